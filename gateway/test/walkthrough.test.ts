import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer, createTenancy, log, span, startLantern, traceBatch, logBatch, type Lantern, type Tenancy } from './harness.js';

describe('walkthrough: register, ingest, read back', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'walk');
  });
  afterAll(() => l.stop());

  it('stores a trace sent with the API key and returns it to the project member', async () => {
    const traceId = '6F1C1F0E-3A55-4B7E-9A55-1D1F7E8B2C01';
    const root = span({ traceId, timestamp: '2026-11-22T12:43:34.1+02:00', custom: { region: 'eu' } });
    const child = span({ traceId, parentSpanId: root['spanId'], requestMethod: 'service:loadCart', timestamp: '2026-11-22T10:43:34.150Z', durationMs: 5 });
    const res = await l.http.post('/ingest/traces').set('x-api-key', t.apiKey).send(traceBatch([child, root])).expect(200);
    expect(res.body).toEqual({ accepted: 2, rejected: [] });

    const read = await l.http.get(`/logs/project?id=${t.projectId}`).set(bearer(t.token)).expect(200);
    expect(read.body).toHaveLength(1);
    const record = read.body[0];
    expect(record).toMatchObject({ projectId: t.projectId, applicationId: t.applicationId, traceId: traceId.toLowerCase(), timestamp: '2026-11-22T10:43:34.100Z' });
    expect(typeof record.id).toBe('string');
    expect(record.telemetry.map((s: { requestMethod: string }) => s.requestMethod)).toEqual(['controller:GET', 'service:loadCart']);
    expect(record.telemetry[0]).toMatchObject({ traceId: traceId.toLowerCase(), parentSpanId: null, custom: { region: 'eu' } });
  });

  it('stores logs and returns them with id, projectId and applicationId', async () => {
    await l.http.post('/ingest/logs').set('x-api-key', t.apiKey).send(logBatch([log({ level: 'fatal', message: 'out of memory' })])).expect(200, { accepted: 1, rejected: [] });
    const read = await l.http.get('/ingest/logs').set(bearer(t.token)).expect(200);
    expect(read.body).toHaveLength(1);
    expect(read.body[0]).toMatchObject({ level: 'fatal', type: 'app', message: 'out of memory', projectId: t.projectId, applicationId: t.applicationId });
    expect(typeof read.body[0].id).toBe('string');
    expect(read.body[0].clientTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('serves health, readiness and the OpenAPI document', async () => {
    await l.http.get('/healthz').expect(200, { status: 'ok' });
    const ready = await l.http.get('/readyz').expect(200);
    expect(ready.body.checks).toEqual({ store: 'ok', bus: 'ok', blobs: 'ok' });
    const doc = await l.http.get('/openapi.json').expect(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/ingest/traces', '/ingest/logs', '/logs/project', '/metrics', '/ai/tenant', '/ai/docs', '/ai/docs/{docId}']));
    expect(doc.body.components.schemas.Span.required).toEqual(['traceId', 'spanId', 'timestamp', 'requestMethod']);
  });

  it('answers /readyz 503 with Retry-After once a shutdown has begun, while /healthz stays 200', async () => {
    const other = await startLantern();
    try {
      await other.http.get('/readyz').expect(200);
      other.beginShutdown();
      const res = await other.http.get('/readyz').expect(503);
      expect(res.body).toEqual({ status: 'stopping', checks: {} });
      expect(res.headers['retry-after']).toBe('5');
      await other.http.get('/healthz').expect(200);
    } finally {
      await other.stop();
    }
  });
});
