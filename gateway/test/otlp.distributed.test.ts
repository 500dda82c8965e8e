import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startCluster, type Cluster } from './distributed/cluster.js';
import { eventually } from './distributed/eventually.js';
import { createTenancy, type Tenancy } from './harness.js';
import { expectJsonStatus, hex, logsRequest, nanos, otlpLog, otlpSpan, sendOtlp, T0, tracesRequest, uuidOfHex } from './otlp-helpers.js';
import { binary, bodyBytes, decodeStatus, decodeTracesResponse, encodeLogs, encodeTraces } from './otlp-protobuf.js';
import { logs, traces } from './telemetry-helpers.js';

/** OTLP/HTTP through nginx (`location /v1/`) to the ingest process, over Kafka to the writer and MongoDB, read back through query. */
describe('distributed: OTLP/HTTP through nginx', () => {
  let c: Cluster;
  let t: Tenancy;
  beforeAll(async () => {
    c = await startCluster();
    t = await createTenancy(c, 'otlp-dist');
  }, 180_000);
  afterAll(() => c?.stop());

  it('an OTLP/JSON and an OTLP/protobuf request of one trace are stored as one record; logs of both encodings read back', async () => {
    const traceId = hex(16);
    const root = otlpSpan({ traceId });
    const child = otlpSpan({ traceId, parentSpanId: root.spanId!, kind: 1, name: 'loadCart', startTimeUnixNano: nanos(T0 + 1) });
    await sendOtlp(c, '/v1/traces', t.apiKey, tracesRequest([root])).expect(200, {});
    const pb = await binary(sendOtlp(c, '/v1/traces', t.apiKey, encodeTraces(tracesRequest([child], 'cart')))).expect(200);
    expect(pb.headers['content-type']).toMatch(/^application\/x-protobuf/);
    expect(decodeTracesResponse(bodyBytes(pb))).toEqual({});
    const marker = `dist-${hex(4)}`;
    await sendOtlp(c, '/v1/logs', t.apiKey, logsRequest([otlpLog({ body: { stringValue: `${marker} json` } })])).expect(200, {});
    await binary(sendOtlp(c, '/v1/logs', t.apiKey, encodeLogs(logsRequest([otlpLog({ body: { stringValue: `${marker} protobuf` }, severityNumber: 13 })])))).expect(200);
    await eventually(async () => {
      const records = await traces(c, t, { traceId: uuidOfHex(traceId) });
      expect(records.map((r) => r.telemetry.map((s) => [s.spanId, s.requestMethod, s['serviceName']]))).toEqual([[
        [uuidOfHex(root.spanId!), 'controller:GET', 'checkout'], [uuidOfHex(child.spanId!), 'service:loadCart', 'cart'],
      ]]);
      const stored = await logs(c, t, { q: marker });
      expect(stored.map((l) => [l.message, l.level]).sort()).toEqual([[`${marker} json`, 'info'], [`${marker} protobuf`, 'warn']]);
    });
  });

  it('errors through nginx are google.rpc.Status: 401 in JSON, 400 in protobuf, 405 with Allow, 404 for metrics', async () => {
    expectJsonStatus(await sendOtlp(c, '/v1/traces', undefined, tracesRequest([otlpSpan()])), 401, 16);
    const bad = await binary(sendOtlp(c, '/v1/logs', t.apiKey, Buffer.from('not protobuf at all')));
    expect([bad.status, decodeStatus(bodyBytes(bad))['code']]).toEqual([400, 3]);
    const get = await c.http.get('/v1/traces');
    expectJsonStatus(get, 405, 12);
    expect(get.headers['allow']).toBe('POST, OPTIONS');
    expectJsonStatus(await sendOtlp(c, '/v1/metrics', t.apiKey, {}), 404, 5);
  });
});
