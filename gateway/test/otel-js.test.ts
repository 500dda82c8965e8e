import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { LogEntry, TraceRecord } from '@lantern/domain';
import { createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';
import {
  aMinuteAgo, at, attr, attrs, flushed, iso, logExporter, loggerProvider, logOf, recordOf, spanOf, spanUuid, traceExporter, tracerProvider, traceUuid, wiretap,
} from './otel-helpers.js';
import { logs, traces } from './telemetry-helpers.js';

/**
 * Issue 14's proof with a client nobody here wrote: the OpenTelemetry JS SDK (sdk-trace-base 2.12.0, sdk-logs
 * 0.223.0) exports through its own OTLP exporters, protobuf (exporter-*-otlp-proto) and JSON
 * (exporter-*-otlp-http), to the embedded Lantern listening on a real port; what it sent is read back through
 * GET /logs/project and GET /ingest/logs and checked field by field against the mapping of the shared design.
 */

let l: Lantern;
let t: Tenancy;
let server: { port: number; close(): Promise<void> };
let tap: Awaited<ReturnType<typeof wiretap>>;
/** Where the exporters send: a pass-through proxy that notes each request's encoding, in front of Lantern's port. */
let base: string;

const RESOURCE = { 'service.name': 'checkout', 'deployment.environment.name': 'proof' };
const T0 = aMinuteAgo();

beforeAll(async () => {
  l = await startLantern();
  server = await listenOnPort(l);
  tap = await wiretap(`http://127.0.0.1:${server.port}`);
  base = tap.base;
  t = await createTenancy(l, 'otel-js');
}, 60_000);
afterAll(async () => {
  await tap.close();
  await server.close();
  await l.stop();
});

describe('OpenTelemetry JS SDK -> POST /v1/traces (protobuf and JSON+gzip) -> GET /logs/project', () => {
  const proto = () => traceExporter({ base, apiKey: t.apiKey, encoding: 'protobuf' });
  const json = () => traceExporter({ base, apiKey: t.apiKey, encoding: 'json', gzip: true });
  let protoExporter: ReturnType<typeof proto>;
  let jsonExporter: ReturnType<typeof json>;
  let records: TraceRecord[];
  const ids: Record<string, { traceId: string; spanId: string }> = {};

  beforeAll(async () => {
    protoExporter = proto();
    jsonExporter = json();
    const protoProvider = tracerProvider(protoExporter, RESOURCE);
    const jsonProvider = tracerProvider(jsonExporter, RESOURCE);
    const tracer = protoProvider.getTracer('otel-proof', '1.2.3');
    const jsonTracer = jsonProvider.getTracer('otel-proof-json', '4.5.6');

    // One trace, three spans, three requests: SERVER and INTERNAL as protobuf, the CLIENT between them as gzipped JSON.
    const serverSpan = tracer.startSpan('GET /cart', {
      kind: SpanKind.SERVER,
      startTime: at(T0),
      attributes: { 'http.request.method': 'GET', 'url.path': '/cart', 'url.query': 'id=7', 'http.route': '/cart', 'http.response.status_code': 500 },
    });
    const inServer = trace.setSpan(ROOT_CONTEXT, serverSpan);
    const clientSpan = jsonTracer.startSpan('POST', {
      kind: SpanKind.CLIENT,
      startTime: at(T0 + 20),
      attributes: {
        'http.request.method': 'POST', 'server.address': 'payments.internal', 'server.port': 8443,
        'url.full': 'https://payments.internal:8443/charge?attempt=1', 'http.response.status_code': 503,
      },
    }, inServer);
    clientSpan.end(at(T0 + 140));
    const internalSpan = tracer.startSpan('loadCart', {
      kind: SpanKind.INTERNAL,
      startTime: at(T0 + 150),
      attributes: { 'cart.items': 3, 'cart.total': 12.5, 'cart.express': true, 'cart.skus': ['A1', 'B2'], 'cart.sizes': [1, 2] },
      links: [{ context: clientSpan.spanContext(), attributes: { 'link.reason': 'retry of' } }],
    }, inServer);
    internalSpan.setStatus({ code: SpanStatusCode.OK });
    internalSpan.end(at(T0 + 175));
    const failure = new TypeError('card declined');
    serverSpan.recordException(failure, at(T0 + 200));
    serverSpan.setStatus({ code: SpanStatusCode.ERROR, message: 'cart failed' });
    serverSpan.end(at(T0 + 250));

    // A trace of its own through JSON: a SERVER span with the older HTTP semantic conventions.
    const oldServer = jsonTracer.startSpan('POST /orders', {
      kind: SpanKind.SERVER,
      startTime: at(T0 + 1000),
      attributes: { 'http.method': 'POST', 'http.target': '/orders?page=2', 'http.status_code': 201 },
    });
    oldServer.end(at(T0 + 1033));

    for (const [name, span] of Object.entries({ serverSpan, clientSpan, internalSpan, oldServer })) {
      const c = span.spanContext();
      ids[name] = { traceId: c.traceId, spanId: c.spanId };
    }
    await flushed(protoProvider);
    await flushed(jsonProvider);
    await protoProvider.shutdown();
    await jsonProvider.shutdown();
    records = await traces(l, t);
  }, 30_000);

  it('every export succeeded, one span a request', () => {
    protoExporter.expectAllSucceeded();
    jsonExporter.expectAllSucceeded();
    expect(protoExporter.batches).toEqual([1, 1]);
    expect(jsonExporter.batches).toEqual([1, 1]);
  });

  it('the spans of one trace, sent in three requests and two encodings, join one trace record', () => {
    const record = recordOf(records, traceUuid(ids['serverSpan']!.traceId));
    expect(record.applicationId).toBe(t.applicationId);
    expect(record.projectId).toBe(t.projectId);
    expect(record.timestamp).toBe(iso(T0));
    expect(record.telemetry.map((s) => s.spanId).sort()).toEqual(
      ['serverSpan', 'clientSpan', 'internalSpan'].map((n) => spanUuid(ids[n]!.spanId)).sort(),
    );
    expect(records).toHaveLength(2);
  });

  it('SERVER (protobuf): controller:<method>, url.path?url.query, status code, duration, error status, exception event, resource and scope', () => {
    const { traceId, spanId } = ids['serverSpan']!;
    const s = spanOf(recordOf(records, traceUuid(traceId)), spanUuid(spanId));
    expect(s).toMatchObject({
      traceId: traceUuid(traceId),
      spanId: spanUuid(spanId),
      parentSpanId: null,
      timestamp: iso(T0),
      durationMs: 250,
      requestMethod: 'controller:GET',
      requestURL: '/cart?id=7',
      responseStatus: 500,
      name: 'GET /cart',
      kind: 'server',
      serviceName: 'checkout',
      scope: { name: 'otel-proof', version: '1.2.3' },
      status: { code: 'error', message: 'cart failed' },
    });
    expect(attrs(s['attributes'])).toEqual({
      'http.request.method': 'GET', 'url.path': '/cart', 'url.query': 'id=7', 'http.route': '/cart', 'http.response.status_code': 500,
    });
    expect(attr(s['resource'], 'service.name')).toBe('checkout');
    expect(attr(s['resource'], 'deployment.environment.name')).toBe('proof');
    const events = s['events'] as { name: string; timestamp: string; attributes?: unknown }[];
    expect(events).toHaveLength(1);
    expect(events[0]!.name).toBe('exception');
    expect(events[0]!.timestamp).toBe(iso(T0 + 200));
    expect(attr(events[0]!.attributes, 'exception.type')).toBe('TypeError');
    expect(attr(events[0]!.attributes, 'exception.message')).toBe('card declined');
    expect(String(attr(events[0]!.attributes, 'exception.stacktrace'))).toContain('TypeError: card declined');
    expect(s['links']).toBeUndefined();
  });

  it('CLIENT (JSON, gzip): external:<server.address>, url.full, parent = the SERVER span by the span id rule, no status when UNSET', () => {
    const { traceId, spanId } = ids['clientSpan']!;
    const s = spanOf(recordOf(records, traceUuid(traceId)), spanUuid(spanId));
    expect(s).toMatchObject({
      parentSpanId: spanUuid(ids['serverSpan']!.spanId),
      timestamp: iso(T0 + 20),
      durationMs: 120,
      requestMethod: 'external:payments.internal',
      requestURL: 'https://payments.internal:8443/charge?attempt=1',
      responseStatus: 503,
      name: 'POST',
      kind: 'client',
      serviceName: 'checkout',
      scope: { name: 'otel-proof-json', version: '4.5.6' },
    });
    expect(attrs(s['attributes'])).toEqual({
      'http.request.method': 'POST', 'server.address': 'payments.internal', 'server.port': 8443,
      'url.full': 'https://payments.internal:8443/charge?attempt=1', 'http.response.status_code': 503,
    });
    expect(s['status']).toBeUndefined();
    expect(s['events']).toBeUndefined();
  });

  it('INTERNAL (protobuf): service:<name>, typed attribute values, status ok, a link', () => {
    const { traceId, spanId } = ids['internalSpan']!;
    const s = spanOf(recordOf(records, traceUuid(traceId)), spanUuid(spanId));
    expect(s).toMatchObject({
      parentSpanId: spanUuid(ids['serverSpan']!.spanId),
      timestamp: iso(T0 + 150),
      durationMs: 25,
      requestMethod: 'service:loadCart',
      name: 'loadCart',
      kind: 'internal',
      status: { code: 'ok' },
    });
    expect(s['requestURL']).toBeUndefined();
    expect(s['responseStatus']).toBeUndefined();
    expect(attrs(s['attributes'])).toEqual({ 'cart.items': 3, 'cart.total': 12.5, 'cart.express': true, 'cart.skus': ['A1', 'B2'], 'cart.sizes': [1, 2] });
    expect(s['links']).toEqual([
      { traceId: traceUuid(ids['clientSpan']!.traceId), spanId: spanUuid(ids['clientSpan']!.spanId), attributes: [{ key: 'link.reason', value: 'retry of' }] },
    ]);
  });

  it('SERVER with the older conventions (JSON): http.method, http.target, http.status_code', () => {
    const { traceId, spanId } = ids['oldServer']!;
    const record = recordOf(records, traceUuid(traceId));
    expect(record.telemetry).toHaveLength(1);
    expect(spanOf(record, spanUuid(spanId))).toMatchObject({
      parentSpanId: null, durationMs: 33, requestMethod: 'controller:POST', requestURL: '/orders?page=2', responseStatus: 201, kind: 'server',
    });
  });
});

describe('OpenTelemetry JS SDK -> POST /v1/logs (protobuf+gzip and JSON) -> GET /ingest/logs', () => {
  let stored: LogEntry[];
  let protoExporter: ReturnType<typeof logExporter>;
  let jsonExporter: ReturnType<typeof logExporter>;
  const traceHex = '4bf92f3577b34da6a3ce929d0e0e4736';
  const spanHex = '00f067aa0ba902b7';
  const inSpan = trace.setSpanContext(ROOT_CONTEXT, { traceId: traceHex, spanId: spanHex, traceFlags: 1 });
  const L0 = T0 + 5000;

  beforeAll(async () => {
    protoExporter = logExporter({ base, apiKey: t.apiKey, encoding: 'protobuf', gzip: true });
    jsonExporter = logExporter({ base, apiKey: t.apiKey, encoding: 'json' });
    const protoProvider = loggerProvider(protoExporter, RESOURCE);
    const jsonProvider = loggerProvider(jsonExporter, RESOURCE);
    const protoLogger = protoProvider.getLogger('otel-proof-logs', '7.8.9');
    const jsonLogger = jsonProvider.getLogger('otel-proof-json-logs');

    protoLogger.emit({
      severityNumber: SeverityNumber.WARN, severityText: 'WARN', body: 'cart is slow', context: inSpan,
      timestamp: at(L0), observedTimestamp: at(L0 + 7), attributes: { 'cart.id': 'c-1', retries: 2 },
    });
    protoLogger.emit({ severityNumber: SeverityNumber.ERROR2, body: { code: 'E42', attempts: 3 }, context: inSpan, timestamp: at(L0 + 1) });
    protoLogger.emit({ severityNumber: SeverityNumber.FATAL, severityText: 'FATAL', body: 'disk full', timestamp: at(L0 + 2) });
    jsonLogger.emit({ severityNumber: SeverityNumber.DEBUG, severityText: 'DEBUG', body: 'cache miss', context: inSpan, timestamp: at(L0 + 3) });
    jsonLogger.emit({ severityNumber: SeverityNumber.TRACE, body: 'entering loop', timestamp: at(L0 + 4) });
    jsonLogger.emit({ severityText: 'Warning', body: 'level from the text', timestamp: at(L0 + 5) });
    jsonLogger.emit({ severityNumber: SeverityNumber.INFO, body: 'order placed', timestamp: at(L0 + 6), attributes: { 'order.lines': 2 } });

    await flushed(protoProvider);
    await flushed(jsonProvider);
    await protoProvider.shutdown();
    await jsonProvider.shutdown();
    stored = await logs(l, t);
  }, 30_000);

  it('every export succeeded, one record a request', () => {
    protoExporter.expectAllSucceeded();
    jsonExporter.expectAllSucceeded();
    expect(protoExporter.batches).toEqual([1, 1, 1]);
    expect(jsonExporter.batches).toEqual([1, 1, 1, 1]);
    expect(stored).toHaveLength(7);
  });

  it('WARN with body, attributes, trace context, resource, scope and both timestamps (protobuf, gzip)', () => {
    const entry = logOf(stored, 'cart is slow');
    expect(entry).toMatchObject({
      level: 'warn',
      type: 'app',
      traceId: traceUuid(traceHex),
      spanId: spanUuid(spanHex),
      severityText: 'WARN',
      serviceName: 'checkout',
      timestamp: iso(L0),
      clientTimestamp: iso(L0 + 7),
      scope: { name: 'otel-proof-logs', version: '7.8.9' },
      applicationId: t.applicationId,
      projectId: t.projectId,
    });
    expect(attrs(entry['attributes'])).toEqual({ 'cart.id': 'c-1', retries: 2 });
    expect(attr(entry['resource'], 'service.name')).toBe('checkout');
  });

  it('a map body becomes the JSON text of its plain value; ERROR2 is error', () => {
    const entry = stored.find((e) => e.level === 'error');
    expect(entry).toBeDefined();
    expect(JSON.parse(entry!.message)).toEqual([{ key: 'code', value: 'E42' }, { key: 'attempts', value: 3 }]);
    expect(entry!.traceId).toBe(traceUuid(traceHex));
    expect(entry!['severityText']).toBeUndefined();
  });

  it('every severity maps to its level; without a span context there is no traceId', () => {
    expect(logOf(stored, 'disk full')).toMatchObject({ level: 'fatal', severityText: 'FATAL' });
    expect(logOf(stored, 'disk full').traceId).toBeUndefined();
    expect(logOf(stored, 'cache miss')).toMatchObject({ level: 'debug', traceId: traceUuid(traceHex), spanId: spanUuid(spanHex), scope: { name: 'otel-proof-json-logs' } });
    expect(logOf(stored, 'entering loop')).toMatchObject({ level: 'trace' });
    expect(logOf(stored, 'level from the text')).toMatchObject({ level: 'warn', severityText: 'Warning' });
    expect(logOf(stored, 'order placed')).toMatchObject({ level: 'info', serviceName: 'checkout', timestamp: iso(L0 + 6) });
  });

  it('on the wire: each exporter its encoding and compression, every request answered 200', () => {
    const requests = tap.seen.map((r) => `${r.status} ${r.path} ${r.contentType} ${r.contentEncoding ?? 'identity'}`).sort();
    expect(requests).toEqual([
      ...Array(4).fill('200 /v1/logs application/json identity'),
      ...Array(3).fill('200 /v1/logs application/x-protobuf gzip'),
      ...Array(2).fill('200 /v1/traces application/json gzip'),
      ...Array(2).fill('200 /v1/traces application/x-protobuf identity'),
    ].sort());
  });

  it('the trace filter of GET /ingest/logs finds the logs of the OTel trace', async () => {
    const inTrace = await logs(l, t, { traceId: traceUuid(traceHex) });
    expect(inTrace.map((e) => e.level).sort()).toEqual(['debug', 'error', 'warn']);
    expect(inTrace.filter((e) => e.level !== 'error').map((e) => e.message).sort()).toEqual(['cache miss', 'cart is slow']);
  });
});
