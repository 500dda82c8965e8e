import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { addApplication, iso, logs, sendLogs, sendTraces, spanIdsOf, T0, traceIdsOf, traces } from './telemetry-helpers.js';

describe('ingest: idempotency', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-idem');
  });
  afterAll(() => l.stop());

  /** A fresh application of the tenancy's project, so each test reads only its own data. */
  async function freshApp() {
    const app = await addApplication(l, t, `app-${randomUUID().slice(0, 6)}`);
    return { ...app, read: async () => traces(l, t, { applicationId: app.applicationId }) };
  }

  it('stores a span sent twice once', async () => {
    const app = await freshApp();
    const s = span();
    await sendTraces(l, app.apiKey, traceBatch([s])).expect(200, { accepted: 1, rejected: [] });
    await sendTraces(l, app.apiKey, traceBatch([s])).expect(200, { accepted: 1, rejected: [] });
    const stored = await app.read();
    expect(stored).toHaveLength(1);
    expect(spanIdsOf(stored)).toEqual([s['spanId']]);
  });

  it('keeps the first copy of a span id when a later one differs', async () => {
    const app = await freshApp();
    const s = span({ responseStatus: 200 });
    await sendTraces(l, app.apiKey, traceBatch([s])).expect(200);
    await sendTraces(l, app.apiKey, traceBatch([{ ...s, responseStatus: 500 }])).expect(200);
    const [record] = await app.read();
    expect(record!.telemetry).toHaveLength(1);
    expect(record!.telemetry[0]!.responseStatus).toBe(200);
  });

  it('stores nothing new for a repeated Idempotency-Key, even with different content', async () => {
    const app = await freshApp();
    const first = [span(), span()];
    await sendTraces(l, app.apiKey, traceBatch(first), { 'Idempotency-Key': 'batch-0001' }).expect(200);
    const sameKey = await sendTraces(l, app.apiKey, traceBatch([span(), span()]), { 'Idempotency-Key': 'batch-0001' });
    expect(sameKey.status).toBe(200);
    // The same trace again, with a new span, under the same key: still nothing new.
    await sendTraces(l, app.apiKey, traceBatch([span({ traceId: first[0]!['traceId'], parentSpanId: first[0]!['spanId'] })]), { 'Idempotency-Key': 'batch-0001' }).expect(200);
    expect(spanIdsOf(await app.read())).toEqual(first.map((s) => s['spanId']).sort());
  });

  it('stores a batch with a different Idempotency-Key', async () => {
    const app = await freshApp();
    const a = span();
    const b = span();
    await sendTraces(l, app.apiKey, traceBatch([a]), { 'Idempotency-Key': 'key-a' }).expect(200);
    await sendTraces(l, app.apiKey, traceBatch([b]), { 'Idempotency-Key': 'key-b' }).expect(200);
    expect(traceIdsOf(await app.read())).toEqual([a['traceId'], b['traceId']].sort());
  });

  it('keeps Idempotency-Keys apart per application', async () => {
    const one = await freshApp();
    const two = await freshApp();
    await sendTraces(l, one.apiKey, traceBatch([span()]), { 'Idempotency-Key': 'shared-key' }).expect(200);
    await sendTraces(l, two.apiKey, traceBatch([span()]), { 'Idempotency-Key': 'shared-key' }).expect(200);
    expect(await one.read()).toHaveLength(1);
    expect(await two.read()).toHaveLength(1);
  });

  it('stores logs re-sent with the same Idempotency-Key once; another key stores', async () => {
    const app = await freshApp();
    const readLogs = async () => (await logs(l, t, { applicationId: app.applicationId })).map((x) => x.message).sort();
    const batch = logBatch([log({ message: 'retry me 1' }), log({ message: 'retry me 2' })]);
    for (let i = 0; i < 3; i++) await sendLogs(l, app.apiKey, batch, { 'Idempotency-Key': 'logs-1' }).expect(200, { accepted: 2, rejected: [] });
    expect(await readLogs()).toEqual(['retry me 1', 'retry me 2']);
    await sendLogs(l, app.apiKey, logBatch([log({ message: 'next batch' })]), { 'Idempotency-Key': 'logs-2' }).expect(200);
    expect(await readLogs()).toEqual(['next batch', 'retry me 1', 'retry me 2']);
  });

  it.each([
    ['201 characters', 'k'.repeat(201)],
    ['an empty value', ''],
    ['a space inside', 'two words'],
    ['non-ASCII text', 'clé'],
  ])('refuses an Idempotency-Key of %s with 400 and stores nothing', async (_label, key) => {
    const app = await freshApp();
    for (const send of [sendTraces, sendLogs]) {
      const body = send === sendTraces ? traceBatch([span()]) : logBatch([log()]);
      const res = await send(l, app.apiKey, body, { 'Idempotency-Key': key });
      expectError(res, 400, 'validation_failed');
    }
    expect(await app.read()).toEqual([]);
    expect(await logs(l, t, { applicationId: app.applicationId })).toEqual([]);
  });

  it('accepts an Idempotency-Key of 200 visible characters', async () => {
    const app = await freshApp();
    await sendTraces(l, app.apiKey, traceBatch([span()]), { 'Idempotency-Key': `${'k'.repeat(199)}~` }).expect(200, { accepted: 1, rejected: [] });
    expect(await app.read()).toHaveLength(1);
  });
});

describe('ingest: trace records', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-rec');
  });
  afterAll(() => l.stop());

  it('joins the spans of one trace sent in two batches into one record: earliest timestamp, spans by time', async () => {
    const traceId = randomUUID();
    const root = span({ traceId, timestamp: iso(T0), durationMs: 80 });
    const late = span({ traceId, parentSpanId: root['spanId'], requestMethod: 'service:b', timestamp: iso(T0 + 50) });
    const early = span({ traceId, parentSpanId: root['spanId'], requestMethod: 'service:a', timestamp: iso(T0 + 20) });
    await sendTraces(l, t.apiKey, traceBatch([late])).expect(200);
    await sendTraces(l, t.apiKey, traceBatch([early, root])).expect(200);
    const records = await traces(l, t, { traceId });
    expect(records).toHaveLength(1);
    expect(records[0]!.timestamp).toBe(iso(T0));
    expect(records[0]!.telemetry.map((s) => s.requestMethod)).toEqual(['controller:GET', 'service:a', 'service:b']);
  });

  it('moves the record timestamp earlier when an earlier span arrives later', async () => {
    const traceId = randomUUID();
    await sendTraces(l, t.apiKey, traceBatch([span({ traceId, parentSpanId: randomUUID(), timestamp: iso(T0 + 500) })])).expect(200);
    expect((await traces(l, t, { traceId }))[0]!.timestamp).toBe(iso(T0 + 500));
    await sendTraces(l, t.apiKey, traceBatch([span({ traceId, timestamp: iso(T0 + 100) })])).expect(200);
    const [record] = await traces(l, t, { traceId });
    expect(record!.timestamp).toBe(iso(T0 + 100));
    expect(record!.telemetry.map((s) => s.timestamp)).toEqual([iso(T0 + 100), iso(T0 + 500)]);
  });

  it('keeps one record per application for the same traceId from two applications of the project', async () => {
    const second = await addApplication(l, t);
    const traceId = randomUUID();
    const fromFirst = span({ traceId, requestMethod: 'controller:GET', timestamp: iso(T0) });
    const fromSecond = span({ traceId, parentSpanId: fromFirst['spanId'], requestMethod: 'controller:POST', timestamp: iso(T0 + 5) });
    await sendTraces(l, t.apiKey, traceBatch([fromFirst])).expect(200);
    await sendTraces(l, second.apiKey, traceBatch([fromSecond])).expect(200);
    const records = await traces(l, t, { traceId });
    expect(records).toHaveLength(2);
    const byApp = Object.fromEntries(records.map((r) => [r.applicationId, r]));
    expect(byApp[t.applicationId]!.telemetry.map((s) => s.spanId)).toEqual([fromFirst['spanId']]);
    expect(byApp[second.applicationId]!.telemetry.map((s) => s.spanId)).toEqual([fromSecond['spanId']]);
    expect(new Set(records.map((r) => r.id)).size).toBe(2);
    expect(records.every((r) => r.projectId === t.projectId)).toBe(true);
  });

  it('stores the same span id from two applications twice (span ids are per application)', async () => {
    const second = await addApplication(l, t, 'third app');
    const s = span();
    await sendTraces(l, t.apiKey, traceBatch([s])).expect(200);
    await sendTraces(l, second.apiKey, traceBatch([s])).expect(200);
    expect(await traces(l, t, { traceId: s['traceId'] as string })).toHaveLength(2);
  });
});

describe('ingest: rate limit per API key', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 2, authPerMinute: 1000 } });
    t = await createTenancy(l, 'ing-rate');
  });
  afterAll(() => l.stop());

  it('answers the third request in a minute 429 rate_limited with Retry-After, and stores nothing of it', async () => {
    await sendTraces(l, t.apiKey, traceBatch([span()])).expect(200);
    await sendLogs(l, t.apiKey, logBatch([log()])).expect(200);
    const limited = span();
    const res = await sendTraces(l, t.apiKey, traceBatch([limited]));
    expectError(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(traceIdsOf(await traces(l, t))).not.toContain(limited['traceId']);
  });

  it('counts each API key on its own', async () => {
    const other = await addApplication(l, t);
    await sendTraces(l, other.apiKey, traceBatch([span()])).expect(200);
    expectError(await sendLogs(l, t.apiKey, logBatch([log()])), 429, 'rate_limited');
  });
});
