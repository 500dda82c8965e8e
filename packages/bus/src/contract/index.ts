import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { Bus, Topic } from '../port.js';

export interface BusFixture {
  bus: Bus;
  cleanup?: () => Promise<void>;
}

/** Waits until `check` passes or the time runs out (then throws the last failure). */
export async function eventually(check: () => void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The bus contract: every adapter (embedded, Kafka) passes this same suite. */
export function describeBusContract(name: string, open: () => Promise<BusFixture>, topic: Topic = 'spans'): void {
  describe(`bus contract: ${name}`, () => {
    let fx: BusFixture;
    beforeEach(async () => {
      fx = await open();
    });
    afterEach(async () => {
      await fx.bus.close().catch(() => undefined);
      await fx.cleanup?.();
    });

    it('delivers every published value, intact, to a subscriber', async () => {
      const got: unknown[] = [];
      await fx.bus.subscribe(topic, 'writer', async (values) => void got.push(...values));
      const values = [{ a: 1, nested: { s: 'Zürich 東京' } }, { a: 2, list: [1, null, true] }];
      await fx.bus.publish(topic, values.map((value, i) => ({ key: `k${i}`, value })));
      await eventually(() => expect(got).toEqual(expect.arrayContaining(values)));
      expect(got).toHaveLength(2);
    });

    it('delivers values of one key in publish order', async () => {
      const got: number[] = [];
      await fx.bus.subscribe<{ n: number }>(topic, 'writer', async (values) => void got.push(...values.map((v) => v.n)));
      for (let n = 0; n < 20; n++) await fx.bus.publish(topic, [{ key: 'same-trace', value: { n } }]);
      await eventually(() => expect(got).toHaveLength(20));
      expect(got).toEqual([...Array(20).keys()]);
    });

    it('gives each consumer group every value, and each value to one member of a group', async () => {
      const a: number[] = [];
      const b1: number[] = [];
      const b2: number[] = [];
      await fx.bus.subscribe<{ n: number }>(topic, 'group-a', async (vs) => void a.push(...vs.map((v) => v.n)));
      await fx.bus.subscribe<{ n: number }>(topic, 'group-b', async (vs) => void b1.push(...vs.map((v) => v.n)));
      await fx.bus.subscribe<{ n: number }>(topic, 'group-b', async (vs) => void b2.push(...vs.map((v) => v.n)));
      for (let n = 0; n < 10; n++) await fx.bus.publish(topic, [{ key: `k${n}`, value: { n } }]);
      await eventually(() => expect(a).toHaveLength(10));
      await eventually(() => expect(b1.length + b2.length).toBe(10));
      expect(new Set([...b1, ...b2]).size).toBe(10);
    });

    it('loses nothing when a handler fails: the value comes again, or the publish rejects', async () => {
      const stored: number[] = [];
      let failures = 0;
      await fx.bus.subscribe<{ n: number }>(topic, 'writer', async (vs) => {
        if (failures === 0) {
          failures++;
          throw new Error('store down');
        }
        stored.push(...vs.map((v) => v.n));
      });
      const published = await fx.bus.publish(topic, [{ key: 'k', value: { n: 7 } }]).then(
        () => true,
        () => false,
      );
      if (published) await eventually(() => expect(stored).toEqual([7]));
      else expect(stored).toEqual([]);
      expect(failures).toBe(1);
    });

    it('keeps topics apart: one group subscribed to two topics gets each topic in its own handler', async () => {
      const other: Topic = topic === 'logs' ? 'spans' : 'logs';
      const mine: { topic: Topic; n: number }[] = [];
      const theirs: { topic: Topic; n: number }[] = [];
      await fx.bus.subscribe<{ topic: Topic; n: number }>(topic, 'writer', async (vs) => void mine.push(...vs));
      await fx.bus.subscribe<{ topic: Topic; n: number }>(other, 'writer', async (vs) => void theirs.push(...vs));
      for (let n = 0; n < 6; n++) {
        await fx.bus.publish(topic, [{ key: `k${n}`, value: { topic, n } }]);
        await fx.bus.publish(other, [{ key: `k${n}`, value: { topic: other, n } }]);
      }
      await eventually(() => {
        expect(mine).toHaveLength(6);
        expect(theirs).toHaveLength(6);
      });
      expect(mine.every((v) => v.topic === topic)).toBe(true);
      expect(theirs.every((v) => v.topic === other)).toBe(true);
    });

    it('stops a subscriber: it gets nothing more, and the next subscriber of its group goes on after what was handled', async () => {
      const first: number[] = [];
      const second: number[] = [];
      const sub = await fx.bus.subscribe<{ n: number }>(topic, 'writer', async (vs) => void first.push(...vs.map((v) => v.n)));
      await fx.bus.publish(topic, [{ key: 'k', value: { n: 1 } }]);
      await eventually(() => expect(first).toEqual([1]));
      await sub.stop();
      await fx.bus.subscribe<{ n: number }>(topic, 'writer', async (vs) => void second.push(...vs.map((v) => v.n)));
      await fx.bus.publish(topic, [{ key: 'k', value: { n: 2 } }]);
      await eventually(() => expect(second).toEqual([2]));
      expect(first).toEqual([1]);
    });

    it('answers ping while open and refuses to publish once closed', async () => {
      await expect(fx.bus.ping()).resolves.toBeUndefined();
      await fx.bus.subscribe(topic, 'writer', async () => undefined);
      await fx.bus.close();
      await expect(fx.bus.publish(topic, [{ key: 'k', value: 1 }])).rejects.toBeDefined();
    });
  });
}
