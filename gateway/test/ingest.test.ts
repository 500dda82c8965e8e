import { gzipSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { logs, sendLogs, sendTraces, traceIdsOf, traces } from './telemetry-helpers.js';

const MiB = 1024 * 1024;
const ENDPOINTS = [
  ['/ingest/traces', () => traceBatch([span()])],
  ['/ingest/logs', () => logBatch([log()])],
] as const;

/** A trace batch whose JSON text is just over `bytes` long (the padding sits in an extra span field). */
function traceBatchOfSize(bytes: number, traceId?: string): string {
  const base = JSON.stringify(traceBatch([span({ ...(traceId ? { traceId } : {}), pad: '' })]));
  const pads = Math.ceil((bytes - base.length + 1) / 60_000);
  const text = JSON.stringify(traceBatch(Array.from({ length: pads }, () => span({ ...(traceId ? { traceId } : {}), pad: 'x'.repeat(60_000) }))));
  expect(text.length).toBeGreaterThan(bytes);
  return text;
}

describe('ingest: credentials', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-auth');
  });
  afterAll(() => l.stop());

  const refusals: Array<[string, (t: Tenancy) => Record<string, string>]> = [
    ['without x-api-key', () => ({})],
    ['with an empty x-api-key', () => ({ 'x-api-key': '' })],
    ['with a key in the right format that does not exist', () => ({ 'x-api-key': `lk_${'A'.repeat(43)}` })],
    ['with a garbage key', () => ({ 'x-api-key': 'not-a-key' })],
    ['with a JWT in Authorization and no key', (x) => bearer(x.token)],
    ['with the JWT in x-api-key', (x) => ({ 'x-api-key': x.token })],
  ];

  for (const [path, body] of ENDPOINTS) {
    it.each(refusals)(`POST ${path} %s: 401 unauthorized`, async (_label, headers) => {
      const res = await l.http.post(path).set(headers(t)).send(body());
      expectError(res, 401, 'unauthorized');
    });
  }

  it('stores nothing sent without a valid key', async () => {
    expect(await traces(l, t)).toEqual([]);
    expect(await logs(l, t)).toEqual([]);
  });

  it('accepts the application key and answers {accepted, rejected}', async () => {
    await sendTraces(l, t.apiKey, traceBatch([span()])).expect(200, { accepted: 1, rejected: [] });
    await sendLogs(l, t.apiKey, logBatch([log()])).expect(200, { accepted: 1, rejected: [] });
  });
});

describe('ingest: media type and body', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-body');
  });
  afterAll(() => l.stop());

  const post = (path: string, contentType: string, raw: string | Buffer, headers: Record<string, string> = {}) =>
    l.http.post(path).set('x-api-key', t.apiKey).set('Content-Type', contentType).set(headers).send(raw);

  for (const [path, body] of ENDPOINTS) {
    it.each([
      ['text/plain', () => JSON.stringify(body())],
      ['application/x-www-form-urlencoded', () => 'timestamp=2026-11-22T10%3A00%3A00Z&traces=x'],
      ['application/jsonp', () => JSON.stringify(body())],
    ])(`POST ${path} as %s: 415 unsupported_media_type`, async (type, raw) => {
      expectError(await post(path, type, raw()), 415, 'unsupported_media_type');
    });

    it(`POST ${path} as "application/json; charset=utf-8" is accepted`, async () => {
      const res = await post(path, 'application/json; charset=utf-8', JSON.stringify(body())).expect(200);
      expect(res.body).toEqual({ accepted: 1, rejected: [] });
    });

    it.each([
      ['a truncated object', '{"timestamp": "2026-11-22T10:00:00Z", "traces": ['],
      ['single quotes', "{'timestamp': 1}"],
      ['a trailing comma', '{"timestamp": "2026-11-22T10:00:00Z",}'],
      ['plain text', 'hello'],
    ])(`POST ${path} with %s: 400 invalid_json`, async (_label, raw) => {
      expectError(await post(path, 'application/json', raw), 400, 'invalid_json');
    });

    it(`POST ${path} without a body: 400 invalid_json`, async () => {
      expectError(await l.http.post(path).set('x-api-key', t.apiKey).set('Content-Type', 'application/json'), 400, 'invalid_json');
    });
  }

  it('stores nothing of the refused bodies (only the two charset batches)', async () => {
    expect((await traces(l, t)).length).toBe(1);
    expect((await logs(l, t)).length).toBe(1);
  });
});

describe('ingest: invalid envelopes are refused whole', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-env');
  });
  afterAll(() => l.stop());

  // Each envelope carries a valid span (or log): none of them may be stored.
  const valid = () => [span()];
  const now = new Date().toISOString();
  const traceEnvelopes: Array<[string, unknown, string]> = [
    ['missing timestamp', { traces: valid() }, '/timestamp'],
    ['missing traces', { timestamp: now }, '/traces'],
    ['traces not an array', { timestamp: now, traces: span() }, '/traces'],
    ['traces a string', { timestamp: now, traces: 'many' }, '/traces'],
    ['an item that is not an object', { timestamp: now, traces: [...valid(), 'span'] }, '/traces/1'],
    ['a timestamp that is not a date', { timestamp: 'yesterday', traces: valid() }, '/timestamp'],
    ['a timestamp without an offset', { timestamp: '2026-11-22T10:43:34', traces: valid() }, '/timestamp'],
    ['an impossible timestamp', { timestamp: '2026-02-31T10:00:00Z', traces: valid() }, '/timestamp'],
    ['a numeric timestamp', { timestamp: Date.now(), traces: valid() }, '/timestamp'],
    ['an array body', [{ timestamp: now, traces: valid() }], 'must be object'],
    ['an operator key on the envelope', { timestamp: now, traces: valid(), $where: 'sleep(1000)' }, '$where'],
  ];

  it.each(traceEnvelopes)('POST /ingest/traces with %s: 400 validation_failed naming the path', async (_label, body, path) => {
    const res = await sendTraces(l, t.apiKey, JSON.stringify(body));
    expectError(res, 400, 'validation_failed');
    expect(JSON.stringify(res.body.error)).toContain(path);
  });

  it('POST /ingest/traces with 10,001 items: 400 validation_failed; 10,000 are accepted', async () => {
    const items = (n: number) => Array.from({ length: n }, () => span({ requestURL: undefined }));
    const res = await sendTraces(l, t.apiKey, traceBatch(items(10_001)));
    expectError(res, 400, 'validation_failed');
    expect(JSON.stringify(res.body.error)).toContain('/traces');
    expect(await traces(l, t)).toEqual([]);
    const ok = await sendTraces(l, t.apiKey, traceBatch(items(10_000))).expect(200);
    expect(ok.body).toEqual({ accepted: 10_000, rejected: [] });
    expect((await traces(l, t)).length).toBe(10_000);
  });

  it.each([
    ['missing timestamp', { logs: [log()] }],
    ['logs not an array', { timestamp: now, logs: log() }],
    ['a bad timestamp', { timestamp: '22/11/2026', logs: [log()] }],
    ['10,001 items', logBatch(Array.from({ length: 10_001 }, () => log()))],
  ])('POST /ingest/logs with %s: 400 validation_failed', async (_label, body) => {
    expectError(await sendLogs(l, t.apiKey, body), 400, 'validation_failed');
  });

  it('stores nothing of a refused log envelope', async () => {
    expect(await logs(l, t)).toEqual([]);
  });
});

describe('ingest: body size (5 MiB after decompression)', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ing-size');
  });
  afterAll(() => l.stop());

  const tooLargeTrace = '0b6a3f8e-1c2d-4e5f-8a9b-000000000413';

  it('refuses a plain body over 5 MiB with 413 payload_too_large', async () => {
    expectError(await sendTraces(l, t.apiKey, traceBatchOfSize(5 * MiB, tooLargeTrace)), 413, 'payload_too_large');
  });

  it('refuses a gzip body that is small compressed but over 5 MiB decompressed', async () => {
    const zipped = gzipSync(traceBatchOfSize(5 * MiB, tooLargeTrace));
    expect(zipped.length).toBeLessThan(MiB);
    const res = await sendTraces(l, t.apiKey, zipped, { 'Content-Encoding': 'gzip' });
    expectError(res, 413, 'payload_too_large');
  });

  it('refuses a log body over 5 MiB', async () => {
    const big = logBatch(Array.from({ length: 90 }, () => log({ message: 'm'.repeat(60_000) })));
    expectError(await sendLogs(l, t.apiKey, gzipSync(JSON.stringify(big)), { 'Content-Encoding': 'gzip' }), 413, 'payload_too_large');
  });

  it('stored nothing of the refused bodies', async () => {
    expect(await traces(l, t)).toEqual([]);
    expect(await logs(l, t)).toEqual([]);
  });

  it('accepts gzip and deflate bodies under the limit (4 MiB decompressed) and stores them', async () => {
    const a = span();
    const b = span();
    const children = Array.from({ length: 70 }, () => span({ traceId: a['traceId'], parentSpanId: a['spanId'], pad: 'y'.repeat(60_000) }));
    const text = JSON.stringify(traceBatch([a, ...children]));
    expect(text.length).toBeGreaterThan(4 * MiB);
    expect(text.length).toBeLessThan(5 * MiB);
    await sendTraces(l, t.apiKey, gzipSync(text), { 'Content-Encoding': 'gzip' }).expect(200, { accepted: 71, rejected: [] });
    await sendTraces(l, t.apiKey, deflateSync(JSON.stringify(traceBatch([b]))), { 'Content-Encoding': 'deflate' }).expect(200, { accepted: 1, rejected: [] });
    expect(traceIdsOf(await traces(l, t))).toEqual([a['traceId'], b['traceId']].sort());
  });

  it('refuses a body that is not valid gzip with 400 invalid_json (not a 500)', async () => {
    const truncated = gzipSync(JSON.stringify(traceBatch([span()]))).subarray(0, 20);
    expectError(await sendTraces(l, t.apiKey, truncated, { 'Content-Encoding': 'gzip' }), 400, 'invalid_json');
    expectError(await sendTraces(l, t.apiKey, Buffer.from('{"not":"gzip"}'), { 'Content-Encoding': 'gzip' }), 400, 'invalid_json');
  });

  it('refuses an unknown Content-Encoding with 415', async () => {
    const res = await sendTraces(l, t.apiKey, JSON.stringify(traceBatch([span()])), { 'Content-Encoding': 'br-unknown' });
    expectError(res, 415, 'unsupported_media_type');
  });
});
