import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Bus } from '@lantern/bus';
import { describeBusContract, eventually } from '@lantern/bus/contract';
import { createKafkaBus, type KafkaBus, type KafkaBusOptions } from '@lantern/bus/kafka';
import { Kafka, logLevel } from 'kafkajs';

// The broker comes from scripts/infra/kafka.mjs (pnpm test:distributed starts it and sets this variable).
const brokersEnv = process.env.LANTERN_TEST_KAFKA_BROKERS;
if (!brokersEnv) {
  throw new Error(
    'LANTERN_TEST_KAFKA_BROKERS is not set. Run `pnpm test:distributed`, or `node scripts/infra/kafka.mjs start` ' +
      'and export the env of .infra/kafka/endpoint.json.',
  );
}
const brokers = brokersEnv.split(',');
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

// The test's own client, to look at what the bus did on the broker (partition offsets, topics) and to clean up.
const admin = new Kafka({ clientId: 'lantern-bus-test', brokers, logLevel: logLevel.NOTHING }).admin();
let adminConnected: Promise<void> | undefined;
const inspect = async () => {
  await (adminConnected ??= admin.connect());
  return admin;
};

let n = 0;
const uniquePrefix = () => `test.${process.pid}.${Date.now().toString(36)}.${n++}.`;

async function dropPrefix(prefix: string): Promise<void> {
  const a = await inspect();
  const topics = (await a.listTopics()).filter((t) => t.startsWith(prefix));
  if (topics.length > 0) await a.deleteTopics({ topics });
  const groups = (await a.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
  if (groups.length > 0) await a.deleteGroups(groups).catch(() => undefined); // a group still emptying may refuse
}

const opened: { bus: Bus; prefix: string }[] = [];
function openBus(options: Partial<KafkaBusOptions> = {}): KafkaBus {
  const prefix = options.topicPrefix ?? uniquePrefix();
  const bus = createKafkaBus({ brokers, clientId: 'lantern-bus-test', partitions: 3, ...options, topicPrefix: prefix });
  opened.push({ bus, prefix });
  return bus;
}

afterEach(async () => {
  const done = opened.splice(0);
  await Promise.all(done.map(({ bus }) => bus.close()));
  for (const prefix of new Set(done.map((d) => d.prefix))) await dropPrefix(prefix);
});
afterAll(async () => {
  if (adminConnected) await admin.disconnect();
});

describeBusContract('kafka', async () => {
  const prefix = uniquePrefix();
  const bus = createKafkaBus({ brokers, clientId: 'lantern-bus-contract', topicPrefix: prefix, partitions: 3 });
  return { bus, cleanup: () => dropPrefix(prefix) };
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `node scripts/infra/kafka.mjs <verb>` (the broker the suite uses). */
function kafkaScript(verb: 'start' | 'stop'): void {
  const r = spawnSync(process.execPath, [`${ROOT}scripts/infra/kafka.mjs`, verb], { encoding: 'utf8', timeout: 150_000 });
  if (r.status !== 0) throw new Error(`kafka.mjs ${verb} failed: ${r.stderr}`);
}

async function settle(p: Promise<unknown>): Promise<{ ok: boolean; error?: unknown; ms: number }> {
  const t0 = Date.now();
  return p.then(
    () => ({ ok: true, ms: Date.now() - t0 }),
    (error: unknown) => ({ ok: false, error, ms: Date.now() - t0 }),
  );
}

describe('kafka bus', () => {
  it('sends one key to one partition in publish order, and spreads different keys over partitions', async () => {
    const bus = openBus({ partitions: 4 });
    const prefix = opened[0]!.prefix;
    for (let i = 0; i < 10; i++) await bus.publish('spans', [{ key: 'trace-a', value: { i } }]);
    await bus.publish('spans', Array.from({ length: 10 }, (_, j) => ({ key: 'trace-a', value: { i: 10 + j } })));
    const afterOneKey = await (await inspect()).fetchTopicOffsets(`${prefix}spans`);
    expect(afterOneKey.map((p) => Number(p.high)).sort((a, b) => b - a)).toEqual([20, 0, 0, 0]);

    await bus.publish('spans', Array.from({ length: 40 }, (_, j) => ({ key: `trace-${j}`, value: { i: -1 } })));
    const spread = await (await inspect()).fetchTopicOffsets(`${prefix}spans`);
    expect(spread.filter((p) => Number(p.high) > 0).length).toBeGreaterThan(1);

    const got: number[] = [];
    await bus.subscribe<{ i: number }>('spans', 'writer', async (vs) => void got.push(...vs.map((v) => v.i).filter((i) => i >= 0)));
    await eventually(() => expect(got).toHaveLength(20));
    expect(got).toEqual([...Array(20).keys()]);
  });

  it('gives the values of a handler that threw to the handler again, and loses none', async () => {
    const bus = openBus({ redeliveryBackoff: { initialMs: 50, maxMs: 200 } });
    const calls: number[][] = [];
    const stored = new Set<number>();
    await bus.subscribe<{ i: number }>('logs', 'writer', async (vs) => {
      calls.push(vs.map((v) => v.i));
      if (calls.length <= 2) throw new Error('store down');
      for (const v of vs) stored.add(v.i);
    });
    for (let i = 0; i < 30; i++) await bus.publish('logs', [{ key: `app-${i % 5}`, value: { i } }]);
    await eventually(() => expect(stored.size).toBe(30));
    expect(calls.length).toBeGreaterThan(2);
    // The failed calls' values came again (the first success starts with the same batch).
    for (const failed of calls.slice(0, 2)) for (const i of failed) expect(stored.has(i)).toBe(true);
    expect(calls[2]!.slice(0, calls[0]!.length)).toEqual(calls[0]);
  });

  it('lets the handler in flight finish when a subscription stops, and commits it', async () => {
    const bus = openBus();
    let finished = 0;
    let started = 0;
    const sub = await bus.subscribe('spans', 'writer', async () => {
      started++;
      await new Promise((r) => setTimeout(r, 700));
      finished++;
    });
    await bus.publish('spans', [{ key: 'k', value: 1 }]);
    await eventually(() => expect(started).toBe(1));
    await sub.stop();
    expect(finished).toBe(1);
    const again: unknown[] = [];
    await bus.subscribe('spans', 'writer', async (vs) => void again.push(...vs));
    await bus.publish('spans', [{ key: 'k', value: 2 }]);
    await eventually(() => expect(again).toEqual([2]));
  });

  it('keeps its partition through a handler call longer than the session timeout (heartbeats go on)', async () => {
    const bus = openBus({ sessionTimeoutMs: 6_000 });
    const calls: number[][] = [];
    await bus.subscribe<{ i: number }>('spans', 'writer', async (vs) => {
      calls.push(vs.map((v) => v.i));
      if (calls.length === 1) await new Promise((r) => setTimeout(r, 9_000));
    });
    await bus.publish('spans', [{ key: 'k', value: { i: 1 } }]);
    await eventually(() => expect(calls).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 9_500));
    await bus.publish('spans', [{ key: 'k', value: { i: 2 } }]);
    await eventually(() => expect(calls.flat()).toContain(2));
    // Evicted mid-call, the member's commit would fail and value 1 would come again.
    expect(calls).toEqual([[1], [2]]);
  }, 40_000);

  it('redelivers to the next consumer of the group what a consumer killed mid-handler had received', async () => {
    const dist = `${ROOT}packages/bus/dist/kafka/index.js`;
    if (!existsSync(dist)) throw new Error(`${dist} is missing: build first (pnpm -s build)`);
    const prefix = uniquePrefix();
    const bus = openBus({ topicPrefix: prefix });
    await bus.ensureTopics();
    // A separate process that receives, never finishes its store write, and is killed with SIGKILL: no leave,
    // no commit, as in a crash. (sessionTimeoutMs 6000, the broker's minimum, so the group notices soon.)
    const code = `
      import { createKafkaBus } from ${JSON.stringify(pathToFileURL(dist).href)};
      const bus = createKafkaBus({
        brokers: ${JSON.stringify(brokers)}, clientId: 'crashing-writer', topicPrefix: ${JSON.stringify(prefix)}, sessionTimeoutMs: 6000,
      });
      await bus.subscribe('spans', 'writer', async (values) => {
        process.stdout.write('got ' + JSON.stringify(values) + '\\n');
        await new Promise(() => {});
      });
      process.stdout.write('joined\\n');
    `;
    const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      await eventually(() => expect(out).toContain('joined'), 30_000);
      await bus.publish('spans', Array.from({ length: 10 }, (_, i) => ({ key: 'trace-x', value: { i } })));
      await eventually(() => expect(out).toMatch(/got \[/), 15_000);
      const received = out
        .split('\n')
        .filter((l) => l.startsWith('got '))
        .flatMap((l) => (JSON.parse(l.slice(4)) as { i: number }[]).map((v) => v.i));
      child.kill('SIGKILL');

      const got: number[] = [];
      await bus.subscribe<{ i: number }>('spans', 'writer', async (vs) => void got.push(...vs.map((v) => v.i)));
      await eventually(() => expect(got).toEqual([...Array(10).keys()]), 30_000);
      expect(received.length).toBeGreaterThan(0);
      for (const i of received) expect(got).toContain(i);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);

  it('rejects publish and ping as unavailable within seconds when no broker answers, and logs that once', async () => {
    const lines: string[] = [];
    const logger = { warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) };
    const bus = openBus({ brokers: [`127.0.0.1:${await freePort()}`], logger });
    const published = await settle(bus.publish('spans', [{ key: 'k', value: 1 }]));
    expect(published.ok).toBe(false);
    expect(published.error).toMatchObject({ status: 503, code: 'unavailable' });
    expect(published.ms).toBeLessThan(6_000);
    const again = await settle(bus.publish('spans', [{ key: 'k', value: 2 }]));
    expect(again.error).toMatchObject({ status: 503 });
    expect(again.ms).toBeLessThan(6_000);
    const pinged = await settle(bus.ping());
    expect(pinged.error).toMatchObject({ status: 503 });
    expect(pinged.ms).toBeLessThan(3_000);
    // Every attempt of every client logs the same refusal; the routing says it once per message.
    expect(lines.length).toBeGreaterThan(0);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('creates its topics idempotently when several buses start together, with the configured partitions', async () => {
    const prefix = uniquePrefix();
    const buses = [openBus({ topicPrefix: prefix, partitions: 4 }), openBus({ topicPrefix: prefix, partitions: 4 })];
    await Promise.all(buses.map((b) => b.ensureTopics()));
    await openBus({ topicPrefix: prefix, partitions: 8 }).ensureTopics(); // existing topics are left alone
    const { topics } = await (await inspect()).fetchTopicMetadata({ topics: ['spans', 'logs', 'documents'].map((t) => `${prefix}${t}`) });
    expect(topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
      [`${prefix}documents`, 4],
      [`${prefix}logs`, 4],
      [`${prefix}spans`, 4],
    ]);
    await expect(buses[1]!.ping()).resolves.toBeUndefined();
  });

  it('carries a span batch of several MiB (the broker and topic limits admit what ingest accepts)', async () => {
    const bus = openBus();
    // ~6 MiB of JSON that gzip cannot shrink much (random base64), in one message.
    const { randomBytes } = await import('node:crypto');
    const big = { spans: Array.from({ length: 96 }, (_, i) => ({ i, blob: randomBytes(48 * 1024).toString('base64') })) };
    const got: (typeof big)[] = [];
    await bus.subscribe<typeof big>('spans', 'writer', async (vs) => void got.push(...vs));
    await bus.publish('spans', [{ key: 'trace-big', value: big }]);
    await eventually(() => expect(got).toHaveLength(1), 20_000);
    expect(got[0]).toEqual(big);
  });

  it('acknowledges concurrent publishes (they share requests) and keeps each key in call order', async () => {
    const bus = openBus();
    const got = new Map<string, number[]>();
    await bus.subscribe<{ key: string; i: number }>('spans', 'writer', async (vs) => {
      for (const v of vs) got.set(v.key, [...(got.get(v.key) ?? []), v.i]);
    });
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const key = `trace-${i % 5}`;
        return bus.publish('spans', [{ key, value: { key, i } }]);
      }),
    );
    await eventually(() => expect([...got.values()].flat()).toHaveLength(200));
    for (const [key, list] of got) expect(list).toEqual([...Array(200).keys()].filter((i) => `trace-${i % 5}` === key));
  });

  it('refuses a message above the topic limit with 413, and the publishes that shared its request still succeed', async () => {
    const bus = openBus({ maxMessageBytes: 1024 * 1024 });
    await bus.ensureTopics();
    const { randomBytes } = await import('node:crypto');
    const big = randomBytes(2 * 1024 * 1024).toString('base64');
    const results = await Promise.allSettled([
      bus.publish('logs', [{ key: 'a', value: { n: 1 } }]),
      bus.publish('logs', [{ key: 'a', value: { n: 2 } }]),
      bus.publish('logs', [{ key: 'a', value: { big } }]),
      bus.publish('logs', [{ key: 'a', value: { n: 3 } }]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ status: 413 });
  });

  // Last: it stops the suite's broker and starts it again (through the same script the suite runner uses).
  it('rides out a broker restart: publish and ping answer 503 while it is down, and publishing and delivery resume', async () => {
    const bus = openBus();
    const got = new Set<number>();
    await bus.subscribe<{ i: number }>('spans', 'writer', async (vs) => void vs.forEach((v) => got.add(v.i)));
    await bus.publish('spans', [{ key: 'k', value: { i: 1 } }]);
    await eventually(() => expect(got.has(1)).toBe(true));

    kafkaScript('stop');
    try {
      const down = await settle(bus.publish('spans', [{ key: 'k', value: { i: 2 } }]));
      expect(down.error).toMatchObject({ status: 503 });
      expect(down.ms).toBeLessThan(6_000);
      const ping = await settle(bus.ping());
      expect(ping.error).toMatchObject({ status: 503 });
      expect(ping.ms).toBeLessThan(3_000);
    } finally {
      kafkaScript('start');
    }
    // As a client does after a 503: retry until accepted.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await settle(bus.publish('spans', [{ key: 'k', value: { i: 3 } }]));
      if (r.ok) break;
      if (Date.now() > deadline) throw r.error;
      await new Promise((res) => setTimeout(res, 500));
    }
    await expect(bus.ping()).resolves.toBeUndefined();
    await eventually(() => expect(got.has(3)).toBe(true), 60_000);
  }, 150_000);
});
