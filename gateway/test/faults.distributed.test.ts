import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createLantern, type Lantern as Sdk } from '@lantern/sdk-node';
import { startCluster, infra, type Cluster } from './distributed/cluster.js';
import { eventually } from './distributed/eventually.js';
import { bearer, createTenancy, span, traceBatch, type Tenancy } from './harness.js';
import { sendTraces, walkPages } from './telemetry-helpers.js';
import type { TraceRecord } from '@lantern/domain';

/**
 * Faults of the distributed mode, with real processes and servers: a writer killed with SIGKILL mid-stream,
 * Kafka stopped while the SDK sends, mongod restarted, an ingest process killed behind nginx.
 * Every time: every span arrives, none twice.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every trace record of the project (all pages). */
async function allTraces(c: Cluster, t: Tenancy): Promise<TraceRecord[]> {
  const pages = await walkPages<TraceRecord>(c, t.token, `/logs/project?id=${t.projectId}&limit=1000&from=2000-01-01T00:00:00.000Z`, 1000);
  return pages.flat();
}

/** Each of `traceIds` stored once, with exactly one span. */
async function expectExactlyOnce(c: Cluster, t: Tenancy, traceIds: string[]): Promise<void> {
  await eventually(async () => {
    const records = await allTraces(c, t);
    const ids = records.map((r) => r.traceId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([...traceIds].sort());
    expect(records.filter((r) => r.telemetry.length !== 1)).toEqual([]);
  }, 60_000);
}

/** One-span traces (each span a root), `n` of them. */
const rootSpans = (n: number) => Array.from({ length: n }, () => span({ traceId: randomUUID(), parentSpanId: null }));
const traceIdsOf = (spans: Array<Record<string, unknown>>): string[] => spans.map((s) => s['traceId'] as string);

/** Sends a batch of 50 one-span traces through the gateway (accepted in full) and adds their trace ids to `ids`. */
async function sendBatch(c: Cluster, t: Tenancy, ids: string[]): Promise<void> {
  const spans = rootSpans(50);
  await sendTraces(c, t.apiKey, traceBatch(spans)).expect(200, { accepted: 50, rejected: [] });
  ids.push(...traceIdsOf(spans));
}

/** An SDK client that retries quickly (so the test does not wait out long backoffs). */
function sdk(c: Cluster, t: Tenancy): Sdk {
  return createLantern({ apiKey: t.apiKey, ingestUrl: c.url, maxBatchSize: 50, flushIntervalMs: 200, retryBaseMs: 100, retryMaxMs: 1000, requestTimeoutMs: 5000, flushOnExit: false });
}

/** Records `n` one-span traces through the SDK, `perTick` every 20 ms; returns their trace ids. */
async function sendThroughSdk(lantern: Sdk, n: number, perTick = 10): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    lantern.service(`job-${i}`, (s) => ids.push(s.traceId));
    if (i % perTick === perTick - 1) await pause(20);
  }
  return ids;
}

describe('distributed faults', () => {
  let c: Cluster;
  let t: Tenancy;
  beforeAll(async () => {
    c = await startCluster({ ingest: 2 });
  }, 180_000);
  afterAll(() => c?.stop());
  afterEach(async () => {
    // A test that failed halfway must not leave the servers down for the next one.
    await infra('kafka', 'start');
    await infra('mongo', 'start');
  });

  it('a writer killed with SIGKILL mid-stream and restarted: every span stored once', async () => {
    t = await createTenancy(c, `kill-writer-${randomUUID().slice(0, 6)}`);
    const ids: string[] = [];
    const batch = () => sendBatch(c, t, ids);
    for (let i = 0; i < 10; i++) await batch();
    await c.kill('writer', 0, 'SIGKILL');
    for (let i = 0; i < 10; i++) await batch(); // ingest still accepts: Kafka holds the batches
    await c.restart('writer', 0);
    for (let i = 0; i < 10; i++) await batch();
    await expectExactlyOnce(c, t, ids);
  }, 180_000);

  it('a writer stopped with SIGTERM mid-stream exits 0 after storing what it held; nothing lost or doubled', async () => {
    t = await createTenancy(c, `term-writer-${randomUUID().slice(0, 6)}`);
    const ids: string[] = [];
    const send = () => sendBatch(c, t, ids);
    for (let i = 0; i < 10; i++) await send();
    const writer = c.procs.writer[0]!;
    const [exit] = await Promise.all([writer.exited, c.kill('writer', 0, 'SIGTERM'), send(), send()]);
    expect(exit).toEqual({ code: 0, signal: null });
    await c.restart('writer', 0);
    for (let i = 0; i < 5; i++) await send();
    await expectExactlyOnce(c, t, ids);
  }, 180_000);

  it('Kafka stopped while the SDK sends: ingest answers 503 with Retry-After, the SDK retries, everything arrives once', async () => {
    t = await createTenancy(c, `kafka-down-${randomUUID().slice(0, 6)}`);
    const lantern = sdk(c, t);
    const before = await sendThroughSdk(lantern, 200);
    await lantern.flush();
    await infra('kafka', 'stop');
    const during = await sendThroughSdk(lantern, 200);
    const refused = await sendTraces(c, t.apiKey, traceBatch([span()]));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await pause(2000); // the SDK meets the 503s and keeps the batches
    await infra('kafka', 'start');
    const after = await sendThroughSdk(lantern, 200);
    const stats = await lantern.close({ timeoutMs: 60_000 });
    expect(stats.traces.dropped).toBe(0);
    expect(stats.traces.retried).toBeGreaterThan(0);
    await expectExactlyOnce(c, t, [...before, ...during, ...after]);
  }, 240_000);

  it('mongod restarted: reads answer 503 while it is down, then everything is there again', async () => {
    t = await createTenancy(c, `mongo-restart-${randomUUID().slice(0, 6)}`);
    const spans = rootSpans(20);
    await sendTraces(c, t.apiKey, traceBatch(spans)).expect(200);
    await expectExactlyOnce(c, t, traceIdsOf(spans));
    await infra('mongo', 'stop');
    const down = await c.http.get(`/logs/project?id=${t.projectId}`).set(bearer(t.token));
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('unavailable');
    await infra('mongo', 'start');
    await expectExactlyOnce(c, t, traceIdsOf(spans));
    const more = rootSpans(20);
    await eventually(async () => {
      await sendTraces(c, t.apiKey, traceBatch(more)).expect(200);
    });
    await expectExactlyOnce(c, t, traceIdsOf([...spans, ...more]));
  }, 240_000);

  it('one of two ingest processes killed behind nginx: the SDK loses nothing and nothing is doubled', async () => {
    t = await createTenancy(c, `kill-ingest-${randomUUID().slice(0, 6)}`);
    const lantern = sdk(c, t);
    const first = await sendThroughSdk(lantern, 300);
    await c.kill('ingest', 0, 'SIGKILL');
    const second = await sendThroughSdk(lantern, 300);
    const stats = await lantern.close({ timeoutMs: 60_000 });
    expect(stats.traces.dropped).toBe(0);
    await expectExactlyOnce(c, t, [...first, ...second]);
    await c.restart('ingest', 0);
  }, 240_000);
});
