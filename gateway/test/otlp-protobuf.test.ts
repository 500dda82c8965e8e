import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { hex, int, logsRequest, nanos, otlpLog, otlpSpan, sendOtlp, str, T0, tracesRequest, uuidOfHex } from './otlp-helpers.js';
import { binary, bodyBytes, decodeLogsResponse, decodeStatus, decodeTracesResponse, encodeLogs, encodeTraces } from './otlp-protobuf.js';
import { logs, traces } from './telemetry-helpers.js';

const PROTOBUF = /^application\/x-protobuf/;

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 127) | 128);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}
/** A length-delimited field (wire type 2). */
const ld = (field: number, bytes: Buffer) => Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
const fixed64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

describe('OTLP/protobuf over HTTP', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'otlp-pb');
  });
  afterAll(() => l.stop());

  const post = (path: string, body: Buffer, headers: Record<string, string> = {}, apiKey: string | null = t.apiKey) => binary(sendOtlp(l, path, apiKey ?? undefined, body, headers));

  it('POST /v1/traces stores the spans, mapped as from JSON, and answers an empty ExportTraceServiceResponse in protobuf', async () => {
    const traceId = hex(16);
    const root = otlpSpan({ traceId, attributes: [str('http.request.method', 'POST'), str('url.path', '/orders'), str('url.query', 'x=1'), int('http.response.status_code', 201)] });
    const child = otlpSpan({ traceId, parentSpanId: root.spanId!, kind: 3, name: 'SELECT', startTimeUnixNano: nanos(T0 + 2), endTimeUnixNano: nanos(T0 + 7),
      attributes: [str('server.address', 'db.internal'), { key: 'rows', value: { arrayValue: { values: [{ intValue: '1' }, { doubleValue: 2.5 }, { boolValue: true }, { bytesValue: 'AQI=' }] } } }],
      events: [{ name: 'retry', timeUnixNano: nanos(T0 + 3), attributes: [int('attempt', 2)] }], links: [{ traceId: hex(16), spanId: hex(8) }], traceState: 'vendor=1' });
    const res = await post('/v1/traces', encodeTraces(tracesRequest([root, child]))).expect(200);
    expect(res.headers['content-type']).toMatch(PROTOBUF);
    expect(bodyBytes(res)).toHaveLength(0);
    expect(decodeTracesResponse(bodyBytes(res))).toEqual({});
    const [record] = await traces(l, t, { traceId: uuidOfHex(traceId) });
    expect(record!.telemetry).toEqual([
      expect.objectContaining({ spanId: uuidOfHex(root.spanId!), parentSpanId: null, requestMethod: 'controller:POST', requestURL: '/orders?x=1', responseStatus: 201, durationMs: 25,
        timestamp: '2026-03-01T10:00:00.000Z', serviceName: 'checkout', scope: { name: 'test.lib', version: '1.0.0' }, kind: 'server' }),
      expect.objectContaining({ spanId: uuidOfHex(child.spanId!), parentSpanId: uuidOfHex(root.spanId!), requestMethod: 'external:db.internal', durationMs: 5, traceState: 'vendor=1',
        attributes: [{ key: 'server.address', value: 'db.internal' }, { key: 'rows', value: [1, 2.5, true, 'AQI='] }],
        events: [{ name: 'retry', timestamp: '2026-03-01T10:00:00.003Z', attributes: [{ key: 'attempt', value: 2 }] }],
        links: [expect.objectContaining({ traceId: expect.any(String), spanId: expect.stringMatching(/-0000-000000000000$/) })] }),
    ]);
  });

  it('POST /v1/logs stores the records and GET /ingest/logs reads them back', async () => {
    const marker = `pb-log-${hex(4)}`;
    const traceId = hex(16);
    const res = await post('/v1/logs', encodeLogs(logsRequest([otlpLog({ body: { stringValue: marker }, severityNumber: 21, traceId, spanId: hex(8) })]))).expect(200);
    expect(res.headers['content-type']).toMatch(PROTOBUF);
    expect(decodeLogsResponse(bodyBytes(res))).toEqual({});
    const [log] = await logs(l, t, { q: marker });
    expect(log).toMatchObject({ level: 'fatal', message: marker, traceId: uuidOfHex(traceId), serviceName: 'checkout', timestamp: '2026-03-01T10:00:00.000Z' });
  });

  it('answers partialSuccess in protobuf: the spans with all-zero or wrong-length ids rejected, the others stored', async () => {
    const traceId = hex(16);
    const good = otlpSpan({ traceId });
    const res = await post('/v1/traces', encodeTraces(tracesRequest([good, otlpSpan({ traceId, spanId: '0'.repeat(16) }), otlpSpan({ traceId, spanId: hex(4) }), otlpSpan({ traceId: hex(20) })]))).expect(200);
    expect(decodeTracesResponse(bodyBytes(res))).toEqual({ partialSuccess: { rejectedSpans: '3', errorMessage: expect.stringMatching(/^3 spans rejected/) } });
    expect((await traces(l, t, { traceId: uuidOfHex(traceId) }))[0]!.telemetry.map((s) => s.spanId)).toEqual([uuidOfHex(good.spanId!)]);
    const logRes = await post('/v1/logs', encodeLogs(logsRequest([otlpLog(), otlpLog({ spanId: hex(3) })]))).expect(200);
    expect(decodeLogsResponse(bodyBytes(logRes))).toEqual({ partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringContaining('spanId must be 16 hex digits') } });
  });

  it('a 64 KiB + 1 attribute value rejects its span; a gzip body is inflated', async () => {
    const traceId = hex(16);
    const body = gzipSync(encodeTraces(tracesRequest([otlpSpan({ traceId }), otlpSpan({ traceId, attributes: [str('big', 'y'.repeat(65_537))] })])));
    const res = await post('/v1/traces', body, { 'Content-Encoding': 'gzip' }).expect(200);
    expect(decodeTracesResponse(bodyBytes(res))).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringContaining('longer than 65536 characters') } });
    expect((await traces(l, t, { traceId: uuidOfHex(traceId) }))[0]!.telemetry).toHaveLength(1);
  });

  it('deep attribute nesting: 400 past the decoder\'s bound, else the span rejected; never stored, the server up', async () => {
    const traceId = hex(16);
    // By hand: protobufjs's own encoder refuses such depth. AnyValue.array_value (5) -> ArrayValue.values (1) -> ...
    let value = ld(1, Buffer.from('deep'));
    const nest = (levels: number) => {
      let v = value;
      for (let i = 0; i < levels; i++) v = ld(5, ld(1, v));
      return v;
    };
    const request = (levels: number) => ld(1, ld(2, ld(2, Buffer.concat([
      ld(1, Buffer.from(traceId, 'hex')), ld(2, Buffer.from(hex(8), 'hex')), ld(5, Buffer.from('deep')),
      Buffer.from([0x39]), fixed64(BigInt(T0) * 1_000_000n), ld(9, Buffer.concat([ld(1, Buffer.from('k')), ld(2, nest(levels))])),
    ]))));
    const past = await post('/v1/traces', request(500));
    expect([past.status, decodeStatus(bodyBytes(past))['code']]).toEqual([400, 3]);
    const under = await post('/v1/traces', request(40)).expect(200);
    expect(decodeTracesResponse(bodyBytes(under))).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringContaining('nested deeper') } });
    expect(await traces(l, t, { traceId: uuidOfHex(traceId) })).toEqual([]);
    value = ld(1, Buffer.from('shallow'));
    await post('/v1/traces', request(3)).expect(200);
    expect(await traces(l, t, { traceId: uuidOfHex(traceId) })).toHaveLength(1);
    await l.http.get('/healthz').expect(200);
  });

  it('undecodable protobuf: 400 with a protobuf-encoded Status (code 3)', async () => {
    for (const bytes of [Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), Buffer.from('definitely not protobuf'), Buffer.from([0x0a, 0x05, 0x12, 0x03])]) {
      const res = await post('/v1/traces', bytes);
      expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: 400, type: expect.stringMatching(PROTOBUF) });
      expect(decodeStatus(bodyBytes(res))).toEqual({ code: 3, message: expect.stringContaining('cannot be decoded as protobuf') });
    }
    expect((await post('/v1/logs', Buffer.from([0xff]))).status).toBe(400);
  });

  it('errors of a protobuf request are protobuf Statuses: 401 (code 16), 415 encoding (code 3), 405 (code 12), 413 (code 8), 400 count (code 3)', async () => {
    const body = encodeTraces(tracesRequest([otlpSpan()]));
    const noKey = await post('/v1/traces', body, {}, null);
    expect([noKey.status, noKey.headers['content-type'], decodeStatus(bodyBytes(noKey))['code']]).toEqual([401, expect.stringMatching(PROTOBUF), 16]);
    const br = await post('/v1/traces', body, { 'Content-Encoding': 'br' });
    expect([br.status, decodeStatus(bodyBytes(br))['code']]).toEqual([415, 3]);
    const method = await binary(l.http.put('/v1/logs').set('Content-Type', 'application/x-protobuf').set('x-api-key', t.apiKey).send(''));
    expect([method.status, method.headers['allow'], decodeStatus(bodyBytes(method))['code']]).toEqual([405, 'POST, OPTIONS', 12]);
    const bomb = await post('/v1/logs', gzipSync(Buffer.alloc(32 * 1024 * 1024)), { 'Content-Encoding': 'gzip' });
    expect([bomb.status, decodeStatus(bodyBytes(bomb))['code']]).toEqual([413, 8]);
    const many = await post('/v1/logs', encodeLogs(logsRequest(Array.from({ length: 10_001 }, () => otlpLog()))));
    expect([many.status, decodeStatus(bodyBytes(many))['code']]).toEqual([400, 3]);
  });

  it('unknown fields are skipped and the span stored', async () => {
    const traceId = hex(16);
    // Field 99 (varint) and 100 (length-delimited) appended to the request message: unknown to OTLP v1.11.
    const extra = Buffer.from([0x98, 0x06, 0x2a, 0xa2, 0x06, 0x03, 0x61, 0x62, 0x63]);
    await post('/v1/traces', Buffer.concat([encodeTraces(tracesRequest([otlpSpan({ traceId })])), extra])).expect(200);
    expect(await traces(l, t, { traceId: uuidOfHex(traceId) })).toHaveLength(1);
  });
});
