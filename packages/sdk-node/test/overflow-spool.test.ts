import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testClient, useFaultServer } from './helpers/clients.js';
import { waitFor } from './helpers/wait.js';

/** Bounded memory while the service is down, overflow reporting, and the spool directory across a restart. */

let dir: string;
const fx = useFaultServer(300);
const client = fx.client;

// After the fault server's hooks: the clients are closed (and have spooled) before the directory goes.
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lantern-spool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spoolFiles = async () => (await readdir(dir)).filter((f) => f.endsWith('.ndjson')).sort();
const messages = () => fx.server.items('logs').map((l) => l.message as string);
const allOnce = (values: string[], n: number, prefix: string) =>
  values.length === n && new Set(values).size === n && values.every((v) => v.startsWith(prefix));

describe('memory bound', () => {
  it('while the server is down, memory stays at maxQueueSize; the overflow is counted, reported and never silent', async () => {
    await fx.server.down();
    const c = client({ maxQueueSize: 100, maxBatchSize: 10 });
    c.lantern.log.info('first');
    await c.lantern.flush();
    let most = 0;
    for (let i = 1; i < 5_000; i++) {
      c.lantern.log.info(`m${i}`);
      c.lantern.service(`s${i}`, () => undefined);
      const s = c.lantern.stats();
      most = Math.max(most, s.logs.queued + s.logs.inFlight, s.traces.queued + s.traces.inFlight);
    }
    expect(most).toBe(100);
    await new Promise((r) => setImmediate(r));
    const stats = c.lantern.stats();
    expect(stats.logs.dropped).toBe(4_900);
    expect(stats.traces.dropped).toBe(4_899);
    expect(c.dropped('logs', 'queue_full')).toBe(4_900);
    expect(c.dropped('traces', 'queue_full')).toBe(4_899);
    // Reported in a few calls (summed per tick), not one per item.
    expect(c.drops.length).toBeLessThan(10);

    await fx.server.up();
    await c.lantern.flush();
    await waitFor(() => c.lantern.stats().logs.sent === 100, 'the kept logs');
    // The first 100 were kept. Several batches may be in flight once the service answers again: in any order.
    expect([...messages()].sort()).toEqual(['first', ...Array.from({ length: 99 }, (_, i) => `m${i + 1}`)].sort());
  });

  it('without an onDrop hook, drops reach onError', async () => {
    await fx.server.down();
    const errors: string[] = [];
    const c = client({ maxQueueSize: 2, maxBatchSize: 1, onDrop: undefined, onError: (e) => errors.push(`${e.code} ${e.message}`) });
    for (let i = 0; i < 5; i++) c.lantern.log.info(`d${i}`);
    await new Promise((r) => setImmediate(r));
    expect(errors).toContain('dropped 3 logs dropped (queue_full)');
  });
});

describe('spool', () => {
  it('what close() could not send is written to spoolDir and sent by the next client, once, files deleted', async () => {
    await fx.server.down();
    const first = client({ spoolDir: dir, maxBatchSize: 10 });
    for (let i = 0; i < 30; i++) {
      first.lantern.log.error(`spooled${i}`);
      first.lantern.service(`spooled${i}`, () => undefined);
    }
    const closed = await first.lantern.close({ timeoutMs: 200 });
    expect(closed.logs).toMatchObject({ spooled: 30, dropped: 0, queued: 0 });
    expect(closed.traces).toMatchObject({ spooled: 30, dropped: 0 });
    const files = await spoolFiles();
    expect(files.filter((f) => f.startsWith('logs-'))).toHaveLength(3);
    expect(files.filter((f) => f.startsWith('traces-'))).toHaveLength(3);

    await fx.server.up();
    const second = client({ spoolDir: dir });
    expect(second.lantern.stats().logs.spoolPending).toBe(30);
    await waitFor(() => fx.server.items('logs').length === 30 && fx.server.items('traces').length === 30, 'the spooled batches');
    expect(allOnce(messages(), 30, 'spooled')).toBe(true);
    expect(new Set(fx.server.items('traces').map((s) => s.spanId)).size).toBe(30);
    await waitFor(async () => (await spoolFiles()).length === 0, 'the files to be deleted');
    expect(second.lantern.stats().logs.spoolPending).toBe(0);
  });

  it('a batch whose answer was lost keeps its Idempotency-Key in the spool: stored once after the restart', async () => {
    fx.server.decide = (r) => (r.path === '/ingest/logs' ? { do: 'lose' } : undefined);
    const first = client({ spoolDir: dir });
    first.lantern.log.error('stored before the crash');
    await first.lantern.flush();
    await fx.server.down();
    await first.lantern.close({ timeoutMs: 100 });
    const [file] = await spoolFiles();
    const key = fx.server.requests('logs')[0]!.key;
    expect(JSON.parse((await readFile(join(dir, file!), 'utf8')).split('\n')[0]!)).toEqual({ v: 1, key });

    fx.server.decide = undefined;
    await fx.server.up();
    const second = client({ spoolDir: dir });
    await waitFor(() => second.lantern.stats().logs.sent === 1, 'the spooled batch');
    expect(fx.server.requests('logs').every((r) => r.key === key)).toBe(true);
    expect(messages()).toEqual(['stored before the crash']);
  });

  it('with spoolDir, overflow during a long outage goes to disk instead of being dropped, and all of it arrives', async () => {
    await fx.server.down();
    const c = client({ spoolDir: dir, maxQueueSize: 20, maxBatchSize: 10 });
    let most = 0;
    for (let i = 0; i < 200; i++) {
      c.lantern.log.warn(`long${i}`);
      const s = c.lantern.stats().logs;
      most = Math.max(most, s.queued + s.inFlight);
    }
    // The buffer (20) plus at most two batches on their way to disk.
    expect(most).toBeLessThanOrEqual(20 + 2 * 10);
    await waitFor(() => c.lantern.stats().logs.spooled === 180, 'the overflow on disk');
    expect(c.lantern.stats().logs).toMatchObject({ dropped: 0, spoolPending: 180 });
    expect((await spoolFiles()).length).toBe(18);
    await fx.server.up();
    await c.lantern.flush();
    await waitFor(() => c.lantern.stats().logs.sent === 200, 'everything');
    expect(allOnce(messages(), 200, 'long')).toBe(true);
    await waitFor(async () => (await spoolFiles()).length === 0, 'the files to be deleted');
  });

  it('the spool respects spoolMaxBytes: beyond it items are dropped and reported as spool_full', async () => {
    await fx.server.down();
    const c = client({ spoolDir: dir, spoolMaxBytes: 4096, maxQueueSize: 10, maxBatchSize: 10 });
    for (let i = 0; i < 200; i++) c.lantern.log.warn(`quota ${'q'.repeat(50)} ${i}`);
    await c.lantern.close({ timeoutMs: 100 });
    const stats = c.lantern.stats().logs;
    expect(stats.spooled).toBeGreaterThan(0);
    expect(stats.spooled + stats.dropped).toBe(200);
    expect(c.dropped('logs', 'spool_full')).toBe(stats.dropped);
    const sizes = await Promise.all((await spoolFiles()).map(async (f) => (await readFile(join(dir, f))).length));
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4096);
  });

  it('an unusable spoolDir is an error at creation naming the option', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    expect(() => testClient(fx.server.url, { spoolDir: join(file, 'spool') })).toThrow(/option "spoolDir" must be a writable directory/);
  });
});
