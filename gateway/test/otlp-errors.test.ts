import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectJsonStatus, logsRequest, otlpLog, otlpSpan, sendOtlp, str, tracesRequest, uuidOfHex } from './otlp-helpers.js';
import { traces } from './telemetry-helpers.js';

const MiB = 1024 * 1024;
const GZIP_JSON = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };

describe('OTLP/HTTP errors: a google.rpc.Status with a clear status, and the server stays up', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'otlp-errors');
  });
  afterAll(() => l.stop());

  for (const path of ['/v1/traces', '/v1/logs']) {
    const body = path === '/v1/traces' ? tracesRequest([otlpSpan()]) : logsRequest([otlpLog()]);

    it(`POST ${path} without a key, or with a bad one: 401, code 16 UNAUTHENTICATED`, async () => {
      expectJsonStatus(await sendOtlp(l, path, undefined, body), 401, 16);
      expectJsonStatus(await sendOtlp(l, path, 'lk_not-a-key', body), 401, 16);
      expectJsonStatus(await sendOtlp(l, path, undefined, body, { Authorization: `Bearer ${t.token}` }), 401, 16);
    });

    it(`POST ${path} with another content type: 415, code 3`, async () => {
      for (const type of ['text/plain', 'application/protobuf', 'application/jsonx', 'multipart/form-data']) {
        const res = await l.http.post(path).set('x-api-key', t.apiKey).set('Content-Type', type).send(JSON.stringify(body));
        expectJsonStatus(res, 415, 3);
        expect(res.body.message).toMatch(/application\/x-protobuf.*application\/json/);
      }
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, body, { 'Content-Encoding': 'br' }), 415, 3);
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, body, { 'Content-Type': 'application/json; charset=latin1' }), 415, 3);
    });

    it(`POST ${path} with malformed JSON, a wrong shape or deep nesting: 400, code 3`, async () => {
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, '{"resourceSpans": ['), 400, 3);
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, ''), 400, 3);
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, '[]'), 400, 3);
      const wrong = path === '/v1/traces'
        ? [{ resourceSpans: {} }, { resourceSpans: [{ scopeSpans: [{ spans: [{ startTimeUnixNano: 'soon' }] }] }] }, { resourceSpans: [{ scopeSpans: [{ spans: [{ kind: 'SERVER' }] }] }] },
          { resourceSpans: [{ scopeSpans: [{ spans: [{ attributes: [{ key: 1, value: { stringValue: 'a number as key' } }] }] }] }] }]
        : [{ resourceLogs: 'x' }, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityNumber: 'LOUD' }] }] }] }, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { intValue: 1.5 } }] }] }] }];
      for (const shape of wrong) {
        const res = await sendOtlp(l, path, t.apiKey, shape);
        expectJsonStatus(res, 400, 3);
        expect(res.body.message).toMatch(/is invalid: \/resource/);
      }
      let deep: unknown = { stringValue: 'deep' };
      for (let i = 0; i < 40; i++) deep = { arrayValue: { values: [deep] } };
      const nested = path === '/v1/traces' ? tracesRequest([otlpSpan({ attributes: [{ key: 'deep', value: deep as never }] })]) : logsRequest([otlpLog({ body: deep as never })]);
      const res = await sendOtlp(l, path, t.apiKey, nested);
      expectJsonStatus(res, 400, 3);
      expect(res.body.message).toMatch(/nested deeper than 64 levels/);
    });

    it(`POST ${path}: a gzip bomb is 413 (code 8) without being inflated whole; a corrupt gzip stream is 400`, async () => {
      // 64 MiB of zeros gzip to about 64 KiB: only the first 5 MiB are ever inflated.
      const bomb = gzipSync(Buffer.alloc(64 * MiB, 0x20));
      expect(bomb.length).toBeLessThan(MiB);
      const before = process.memoryUsage().rss;
      const res = await sendOtlp(l, path, t.apiKey, bomb, GZIP_JSON);
      expectJsonStatus(res, 413, 8);
      expect(process.memoryUsage().rss - before).toBeLessThan(48 * MiB);
      const good = gzipSync(JSON.stringify(body));
      const corrupt = Buffer.concat([good.subarray(0, 10), Buffer.alloc(20, 0xff), good.subarray(30)]);
      const bad = await sendOtlp(l, path, t.apiKey, corrupt, GZIP_JSON);
      expectJsonStatus(bad, 400, 3);
      expect(bad.body.message).toMatch(/could not be decompressed/);
    });

    it(`POST ${path} over 5 MiB (identity): 413, code 8`, async () => {
      const big = JSON.stringify({ ...body, pad: 'x'.repeat(5 * MiB) });
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, big), 413, 8);
    });

    it(`GET ${path}: 405 with Allow, code 12 UNIMPLEMENTED; OPTIONS 204`, async () => {
      const res = await l.http.get(path).set('x-api-key', t.apiKey);
      expectJsonStatus(res, 405, 12);
      expect(res.headers['allow']).toBe('POST, OPTIONS');
      expect((await l.http.options(path)).status).toBe(204);
    });

    it(`POST ${path} with a bad Idempotency-Key: 400`, async () => {
      expectJsonStatus(await sendOtlp(l, path, t.apiKey, body, { 'Idempotency-Key': 'has space' }), 400, 3);
    });
  }

  it('POST /v1/metrics: 404 with a Status that says why (code 5 NOT_FOUND)', async () => {
    const res = await sendOtlp(l, '/v1/metrics', t.apiKey, { resourceMetrics: [] });
    expectJsonStatus(res, 404, 5);
    expect(res.body.message).toBe('OTLP metrics are not supported yet: send traces and logs');
  });

  it('other /v1/ paths are 404 with a Status; the rest of the API keeps its error body', async () => {
    expectJsonStatus(await sendOtlp(l, '/v1/nothing', t.apiKey, {}), 404, 5);
    const res = await l.http.get('/nothing').expect(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('is still up and storing after all of that', async () => {
    await l.http.get('/healthz').expect(200);
    const span = otlpSpan({ attributes: [str('http.request.method', 'PUT')] });
    await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([span])).expect(200, {});
    expect((await traces(l, t, { traceId: uuidOfHex(span.traceId!) }))[0]!.telemetry[0]!.requestMethod).toBe('controller:PUT');
  });
});

describe('OTLP/HTTP rate limit: 429 with Retry-After, code 8', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1, authPerMinute: 1000 } });
    t = await createTenancy(l, 'otlp-429');
  });
  afterAll(() => l.stop());

  it('the second request of the minute is refused, shared with /ingest/*', async () => {
    await sendOtlp(l, '/v1/logs', t.apiKey, logsRequest([otlpLog()])).expect(200);
    for (const path of ['/v1/logs', '/v1/traces']) {
      const res = await sendOtlp(l, path, t.apiKey, path === '/v1/logs' ? logsRequest([otlpLog()]) : tracesRequest([otlpSpan()]));
      expectJsonStatus(res, 429, 8);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    const ingest = await l.http.post('/ingest/logs').set('x-api-key', t.apiKey).send({ timestamp: new Date().toISOString(), logs: [] });
    expect(ingest.status).toBe(429);
    expect(ingest.body.error.code).toBe('rate_limited');
  });
});
