import { describe, expect, it } from '@jest/globals';
import { createMemoryBus } from '@lantern/bus';
import { describeBusContract } from '@lantern/bus/contract';

describeBusContract('memory', async () => ({ bus: createMemoryBus() }));

describe('memory bus', () => {
  it('rejects a publish with 503 when no consumer runs, rather than dropping the values', async () => {
    const bus = createMemoryBus();
    await expect(bus.publish('logs', [{ key: 'k', value: 1 }])).rejects.toMatchObject({ status: 503, code: 'unavailable' });
  });

  it('resolves a publish only after the handler has finished', async () => {
    const bus = createMemoryBus();
    let done = false;
    await bus.subscribe('spans', 'writer', async () => {
      await new Promise((r) => setTimeout(r, 30));
      done = true;
    });
    await bus.publish('spans', [{ key: 'k', value: 1 }]);
    expect(done).toBe(true);
  });

  it('waits for in-flight deliveries when closing', async () => {
    const bus = createMemoryBus();
    let done = false;
    await bus.subscribe('spans', 'writer', async () => {
      await new Promise((r) => setTimeout(r, 50));
      done = true;
    });
    const p = bus.publish('spans', [{ key: 'k', value: 1 }]);
    await bus.close();
    expect(done).toBe(true);
    await p;
  });
});
