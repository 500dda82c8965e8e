import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Received } from './helpers/fault-server.js';
import { useFaultServer, type TestClient } from './helpers/clients.js';
import { sleep, waitFor } from './helpers/wait.js';

/**
 * Several batches in flight. With one batch in flight a kind carries at most maxBatchSize items per round trip
 * (500 / 100 ms = 5k spans/s), less than one busy Node process records, and the bounded queue then drops. Against
 * a fault server that answers after a fixed latency: a backlog is carried by several requests at once, a failing
 * collector gets one at a time, Retry-After holds every batch back, and close() and the spool lose nothing.
 */

const fx = useFaultServer();
const client = fx.client;

/** Records `total` spans, 1000 every `everyMs`; returns the most items seen in memory and in flight. */
async function burst(c: TestClient, total: number, everyMs: number, name = 's'): Promise<{ most: number; mostInFlight: number }> {
  let most = 0;
  let mostInFlight = 0;
  const look = () => {
    const s = c.lantern.stats().traces;
    most = Math.max(most, s.queued + s.inFlight);
    mostInFlight = Math.max(mostInFlight, s.inFlight);
  };
  for (let done = 0; done < total; ) {
    const started = Date.now();
    for (let i = 0; i < 1000 && done < total; i++, done++) c.lantern.service(`${name}${done}`, () => undefined);
    look();
    await sleep(Math.max(0, everyMs - (Date.now() - started)));
    look();
  }
  return { most, mostInFlight };
}

/** Sends `n` spans and waits until they are delivered: the client has had answers, its limit has grown. */
async function warmUp(c: TestClient, n: number): Promise<void> {
  const before = c.lantern.stats().traces.sent;
  for (let i = 0; i < n; i++) c.lantern.service(`warm${i}`, () => undefined);
  await c.lantern.flush();
  await waitFor(() => c.lantern.stats().traces.sent === before + n, 'the warm-up spans');
}

const spanIds = () => fx.server.items('traces').map((s) => s.spanId as string);
const mostConcurrent = (requests: Received[]) => Math.max(0, ...requests.map((r) => r.concurrent));

/**
 * 10,000 spans/s for 3 s against a collector 100 ms away, default batch and queue sizes. One batch in flight
 * carries at most 5,000/s: at least 15,000 - 10,000 (the queue) = 5,000 must drop. Four carry 20,000/s, twice the
 * load, a margin for this process also parsing every batch as the fault server, on a shared machine.
 */
describe('a collector 100 ms away and 30,000 spans in 3 s (default batch and queue sizes)', () => {
  it('several batches in flight carry them: every span arrives exactly once, none dropped, memory within maxQueueSize', async () => {
    fx.server.latencyMs = 100;
    const c = client();
    const { most, mostInFlight } = await burst(c, 30_000, 100);
    await c.lantern.flush();
    await waitFor(() => c.lantern.stats().traces.sent + c.lantern.stats().traces.dropped === 30_000, 'delivery');
    expect(c.lantern.stats().traces).toMatchObject({ dropped: 0, sent: 30_000, queued: 0, inFlight: 0, retried: 0 });
    expect(c.drops).toEqual([]);
    // The bound counts every batch in flight, and stats() sees several of them.
    expect(most).toBeLessThanOrEqual(10_000);
    expect(mostInFlight).toBeGreaterThan(500);
    const requests = fx.server.requests('traces');
    expect(mostConcurrent(requests)).toBeGreaterThan(1);
    expect(mostConcurrent(requests)).toBeLessThanOrEqual(4);
    expect(new Set(requests.map((r) => r.key)).size).toBe(requests.length); // no batch sent twice
    expect(spanIds()).toHaveLength(30_000);
    expect(new Set(spanIds()).size).toBe(30_000);
  });

  it('with maxConcurrentBatches 1 (one batch in flight, as before) the same load overflows the queue: dropped, counted, reported', async () => {
    fx.server.latencyMs = 100;
    const c = client({ maxConcurrentBatches: 1 });
    await burst(c, 30_000, 100);
    await c.lantern.flush();
    await waitFor(() => c.lantern.stats().traces.sent + c.lantern.stats().traces.dropped === 30_000, 'delivery or drops');
    const { dropped, sent } = c.lantern.stats().traces;
    expect(dropped).toBeGreaterThan(1_000);
    expect(c.dropped('traces', 'queue_full')).toBe(dropped);
    expect(sent).toBe(30_000 - dropped);
    expect(mostConcurrent(fx.server.requests('traces'))).toBe(1);
  });
});

describe('failures with several batches in flight', () => {
  it('while the collector fails, one batch at a time; after it recovers several again, and every span arrives once', async () => {
    fx.server.latencyMs = 30;
    const c = client({ maxBatchSize: 100 });
    await warmUp(c, 1_000);
    expect(mostConcurrent(fx.server.requests('traces'))).toBeGreaterThan(1);

    const failingFrom = fx.server.received.length;
    fx.server.decide = () => ({ do: 'status', status: 503 });
    await burst(c, 2_000, 0, 'b');
    // Those sent before the client heard of the first failure may overlap; every one sent after it is alone.
    const sentAfterTheFailure = () => {
      const failing = fx.server.received.slice(failingFrom);
      const firstAnswer = Math.min(...failing.map((r) => r.answeredAt ?? Infinity));
      return failing.filter((r) => r.at > firstAnswer + 20);
    };
    await waitFor(() => sentAfterTheFailure().length >= 5, 'attempts after the first failure');
    const afterwards = sentAfterTheFailure();
    expect(afterwards.map((r) => r.concurrent)).toEqual(afterwards.map(() => 1));
    expect(c.errors.some((e) => e.code === 'http_status' && e.status === 503 && e.retrying)).toBe(true);

    const recoveredFrom = fx.server.received.length;
    fx.server.decide = undefined;
    await waitFor(() => c.lantern.stats().traces.sent === 3_000, 'delivery after the recovery');
    expect(mostConcurrent(fx.server.received.slice(recoveredFrom))).toBeGreaterThan(1);
    expect(c.lantern.stats().traces).toMatchObject({ dropped: 0, queued: 0, inFlight: 0 });
    expect(spanIds()).toHaveLength(3_000);
    expect(new Set(spanIds()).size).toBe(3_000);
    // Each failed batch was sent again with its key and items.
    const byKey = new Map<string, Received[]>();
    for (const r of fx.server.received.slice(failingFrom)) byKey.set(r.key!, [...(byKey.get(r.key!) ?? []), r]);
    for (const attempts of byKey.values()) expect(new Set(attempts.map((a) => JSON.stringify(a.body))).size).toBe(1);
  });

  it('a Retry-After on batches in flight together holds every batch back for that long', async () => {
    fx.server.latencyMs = 30;
    const c = client({ maxBatchSize: 100 });
    await warmUp(c, 1_000);
    const from = fx.server.received.length;
    let refused = 0;
    fx.server.decide = () => (refused < 4 ? (refused++, { do: 'status', status: 429, headers: { 'retry-after': '1' } }) : undefined);
    for (let i = 0; i < 1_000; i++) c.lantern.service(`r${i}`, () => undefined);
    await waitFor(() => c.lantern.stats().traces.sent === 2_000, 'delivery after the Retry-After', 10_000);
    const requests = fx.server.received.slice(from);
    const refusals = requests.filter((r) => r.behaviour === 'status');
    expect(refusals).toHaveLength(4);
    expect(mostConcurrent(refusals)).toBe(4);
    const firstRefusal = Math.min(...refusals.map((r) => r.answeredAt!));
    const later = requests.filter((r) => r.at > firstRefusal + 20);
    expect(later.length).toBeGreaterThan(0);
    for (const r of later) expect(r.at - firstRefusal).toBeGreaterThanOrEqual(950);
    // The refused batches were sent again with their keys.
    for (const r of refusals) expect(requests.some((o) => o.key === r.key && o.behaviour === 'ok')).toBe(true);
    expect(new Set(spanIds()).size).toBe(2_000);
  });
});

describe('close() and the spool with several batches in flight', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-inflight-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('at the deadline every batch in flight is aborted and spooled with the rest; the next client sends each once, one file at a time', async () => {
    const first = client({ spoolDir: dir, maxBatchSize: 100 });
    await warmUp(first, 1_000);
    fx.server.latencyMs = 5_000;
    for (let i = 0; i < 1_000; i++) first.lantern.service(`late${i}`, () => undefined);
    await waitFor(() => first.lantern.stats().traces.inFlight === 400, 'four batches in flight');
    const closing = Date.now();
    const stats = await first.lantern.close({ timeoutMs: 300 });
    // Requests started before close() are aborted at its deadline too, not left to their 5 s answer.
    expect(Date.now() - closing).toBeLessThan(2_000);
    expect(stats.traces).toMatchObject({ spooled: 1_000, dropped: 0, queued: 0, inFlight: 0, sent: 1_000 });
    expect((await readdir(dir)).filter((f) => f.startsWith('traces-'))).toHaveLength(10);

    fx.server.latencyMs = 20;
    const from = fx.server.received.length;
    const second = client({ spoolDir: dir });
    await waitFor(() => second.lantern.stats().traces.sent === 1_000, 'the spooled batches');
    expect(mostConcurrent(fx.server.received.slice(from))).toBe(1);
    expect(spanIds()).toHaveLength(2_000);
    expect(new Set(spanIds()).size).toBe(2_000);
    await waitFor(async () => (await readdir(dir)).filter((f) => f.endsWith('.ndjson')).length === 0, 'the files to be deleted');
  });
});

/**
 * The interval sends everything that is waiting, partial batch included, and no more: under steady traffic the
 * spans recorded while that batch is in flight wait for a full batch again. (Before, the interval's "send all"
 * stayed on for as long as the loop ran, and traffic that kept a batch in flight kept it running: one small batch,
 * one gzip and one request per round trip from the first interval on.)
 */
describe('steady traffic after an interval', () => {
  it('goes back to full batches: partial batches only at interval ticks and at the final flush', async () => {
    fx.server.latencyMs = 30;
    const c = client({ flushIntervalMs: 200, maxBatchSize: 100 });
    const started = Date.now();
    let recorded = 0;
    while (Date.now() - started < 1_500) {
      for (let i = 0; i < 10; i++, recorded++) c.lantern.service(`steady${recorded}`, () => undefined);
      await sleep(10);
    }
    const elapsed = Date.now() - started;
    await c.lantern.flush();
    await waitFor(() => c.lantern.stats().traces.sent === recorded, 'delivery');
    const sizes = fx.server.requests('traces').map((r) => r.body.traces?.length ?? 0);
    const partial = sizes.filter((n) => n < 100).length;
    // Up to 1,000 spans/s and a 30 ms round trip: a partial batch per round trip would be dozens (46 in a run of
    // the old loop, against 9 with this one).
    expect(partial).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(recorded);
  });
});
