import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectJsonStatus, hex, int, logsRequest, nanos, otlpLog, otlpSpan, sendOtlp, str, T0, tracesRequest, uuidOfHex } from './otlp-helpers.js';
import { logs, traces } from './telemetry-helpers.js';

describe('OTLP/JSON over HTTP: stored and read back', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'otlp-json');
  });
  afterAll(() => l.stop());

  it('POST /v1/traces stores the spans, mapped, and GET /logs/project reads them back', async () => {
    const traceId = hex(16);
    const root = otlpSpan({ traceId });
    const child = otlpSpan({ traceId, parentSpanId: root.spanId!, kind: 3, name: 'POST', startTimeUnixNano: nanos(T0 + 5), endTimeUnixNano: nanos(T0 + 15),
      attributes: [str('http.request.method', 'POST'), str('url.full', 'https://payments.example/charge'), int('http.response.status_code', 502)], status: { code: 2, message: 'bad gateway' } });
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([root, child])).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({});
    const [record] = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(record!.telemetry).toEqual([
      expect.objectContaining({
        traceId: uuidOfHex(traceId), spanId: uuidOfHex(root.spanId!), parentSpanId: null, timestamp: '2026-03-01T10:00:00.000Z', durationMs: 25,
        requestMethod: 'controller:GET', requestURL: '/cart', responseStatus: 200, name: 'GET /cart', kind: 'server', serviceName: 'checkout',
        resource: [{ key: 'service.name', value: 'checkout' }], scope: { name: 'test.lib', version: '1.0.0' },
        attributes: [{ key: 'http.request.method', value: 'GET' }, { key: 'url.path', value: '/cart' }, { key: 'http.response.status_code', value: 200 }],
      }),
      expect.objectContaining({
        spanId: uuidOfHex(child.spanId!), parentSpanId: uuidOfHex(root.spanId!), requestMethod: 'external:payments.example', requestURL: 'https://payments.example/charge',
        responseStatus: 502, kind: 'client', status: { code: 'error', message: 'bad gateway' }, durationMs: 10,
      }),
    ]);
  });

  it('spans of one trace sent in separate requests join one record', async () => {
    const traceId = hex(16);
    const root = otlpSpan({ traceId });
    const inner = otlpSpan({ traceId, parentSpanId: root.spanId!, kind: 1, name: 'loadCart', startTimeUnixNano: nanos(T0 + 1) });
    await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([inner], 'cart')).expect(200, {});
    await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([root])).expect(200, {});
    const records = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(records).toHaveLength(1);
    expect(records[0]!.telemetry.map((s) => [s.requestMethod, s['serviceName']])).toEqual([['controller:GET', 'checkout'], ['service:loadCart', 'cart']]);
  });

  it('POST /v1/logs stores the records, mapped, and GET /ingest/logs reads them back', async () => {
    const traceId = hex(16);
    const spanId = hex(8);
    const marker = `otlp-log-${hex(4)}`;
    const res = await sendOtlp(l, '/v1/logs', t.apiKey, logsRequest([
      otlpLog({ body: { stringValue: marker }, severityNumber: 17, severityText: 'ERROR', traceId, spanId, attributes: [str('order.id', '42')] }),
      otlpLog({ body: { kvlistValue: { values: [{ key: 'event', value: { stringValue: marker } }] } }, severityNumber: 0, severityText: 'warning', timeUnixNano: nanos(T0 + 1) }),
    ])).expect(200);
    expect(res.body).toEqual({});
    const stored = (await logs(l, t, { q: marker })).sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(stored).toEqual([
      expect.objectContaining({ level: 'error', message: marker, traceId: uuidOfHex(traceId), spanId: uuidOfHex(spanId), severityText: 'ERROR', type: 'app', timestamp: '2026-03-01T10:00:00.000Z',
        serviceName: 'checkout', scope: { name: 'test.logger' }, attributes: [{ key: 'order.id', value: '42' }], applicationId: t.applicationId, projectId: t.projectId }),
      expect.objectContaining({ level: 'warn', message: JSON.stringify([{ key: 'event', value: marker }]), timestamp: '2026-03-01T10:00:00.001Z' }),
    ]);
  });

  it('takes a gzip or deflate body and a charset parameter; ignores unknown fields', async () => {
    const span = otlpSpan();
    const body = { ...tracesRequest([{ ...span, someFutureField: { x: 1 } } as typeof span]), extra: true };
    await sendOtlp(l, '/v1/traces', t.apiKey, gzipSync(JSON.stringify(body)), { 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': 'gzip' }).expect(200, {});
    const [record] = await traces(l, t, { traceId: uuidOfHex(span.traceId!) });
    expect(record!.telemetry[0]).not.toHaveProperty('someFutureField');
    const deflated = otlpSpan();
    await sendOtlp(l, '/v1/traces', t.apiKey, deflateSync(JSON.stringify(tracesRequest([deflated]))), { 'Content-Type': 'application/json', 'Content-Encoding': 'deflate' }).expect(200, {});
    expect(await traces(l, t, { traceId: uuidOfHex(deflated.traceId!) })).toHaveLength(1);
  });

  it('rejects the spans with bad ids and stores the others, counting them in partialSuccess', async () => {
    const traceId = hex(16);
    const good = otlpSpan({ traceId });
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([
      good, otlpSpan({ traceId: '0'.repeat(32) }), otlpSpan({ traceId, spanId: '0'.repeat(16) }), otlpSpan({ traceId, spanId: 'abc' }), otlpSpan({ traceId: hex(8) }),
    ])).expect(200);
    expect(res.body).toEqual({ partialSuccess: { rejectedSpans: '4', errorMessage: expect.stringMatching(/^4 spans rejected: .*traceId must not be all zeros/) } });
    const [record] = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(record!.telemetry.map((s) => s.spanId)).toEqual([uuidOfHex(good.spanId!)]);
  });

  it('rejects a span with an attribute value over 64 KiB, and a log record with a bad trace id', async () => {
    const traceId = hex(16);
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([otlpSpan({ traceId }), otlpSpan({ traceId, attributes: [str('big', 'x'.repeat(65_537))] })])).expect(200);
    expect(res.body.partialSuccess).toEqual({ rejectedSpans: '1', errorMessage: expect.stringContaining('longer than 65536 characters') });
    expect((await traces(l, t, { traceId: uuidOfHex(traceId) }))[0]!.telemetry).toHaveLength(1);
    const logRes = await sendOtlp(l, '/v1/logs', t.apiKey, logsRequest([otlpLog(), otlpLog({ traceId: 'nothex' })])).expect(200);
    expect(logRes.body).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringContaining('traceId must be 32 hex digits') } });
  });

  it('stores an Idempotency-Key repeat once', async () => {
    const marker = `idem-${hex(4)}`;
    const body = logsRequest([otlpLog({ body: { stringValue: marker } })]);
    const traceId = hex(16);
    for (let i = 0; i < 2; i++) {
      await sendOtlp(l, '/v1/logs', t.apiKey, body, { 'Idempotency-Key': `k-${marker}` }).expect(200, {});
      await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([otlpSpan({ traceId })]), { 'Idempotency-Key': `t-${marker}` }).expect(200, {});
    }
    expect(await logs(l, t, { q: marker })).toHaveLength(1);
    expect((await traces(l, t, { traceId: uuidOfHex(traceId) }))[0]!.telemetry).toHaveLength(1);
  });

  it('stores 10,000 spans in one request; 10,001 is 400 and nothing is stored', async () => {
    const traceId = hex(16);
    const many = (n: number) => tracesRequest(Array.from({ length: n }, () => otlpSpan({ traceId })));
    const over = await sendOtlp(l, '/v1/traces', t.apiKey, many(10_001));
    expectJsonStatus(over, 400, 3);
    expect(over.body.message).toMatch(/10001 spans; at most 10000/);
    expect(await traces(l, t, { traceId: uuidOfHex(traceId) })).toEqual([]);
    await sendOtlp(l, '/v1/traces', t.apiKey, many(10_000)).expect(200, {});
    const [record] = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(record!.telemetry).toHaveLength(10_000);
  });

  it('an attribute without a key (an empty key left out by proto3 JSON) and a doubleValue as numeric text are accepted', async () => {
    const traceId = hex(16);
    const span = otlpSpan({ traceId, attributes: [{ value: { stringValue: 'no key' } }, { key: 'ratio', value: { doubleValue: '1.5' } }, { key: 'code', value: { doubleValue: '404' } }] });
    await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([span])).expect(200, {});
    const res = await sendOtlp(l, '/v1/traces', t.apiKey, tracesRequest([otlpSpan({ attributes: [{ key: 'bad', value: { doubleValue: '1.5x' } }] })]));
    expectJsonStatus(res, 400, 3);
    const [record] = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(record!.telemetry[0]!['attributes']).toEqual([{ key: '', value: 'no key' }, { key: 'ratio', value: 1.5 }, { key: 'code', value: 404 }]);
  });
});
