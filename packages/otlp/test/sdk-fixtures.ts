/**
 * Bytes as the OpenTelemetry JS SDK's OTLP/HTTP protobuf exporters send them: spans and log records recorded by the
 * SDK, serialized by @opentelemetry/otlp-transformer's ProtobufTraceSerializer / ProtobufLogsSerializer.
 */
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { SeverityNumber, type AnyValue } from '@opentelemetry/api-logs';
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, type LogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export const RESOURCE_ATTRIBUTES = { 'service.name': 'checkout', 'service.version': '2.14.1', 'process.pid': 4211 };
const resource = () => resourceFromAttributes(RESOURCE_ATTRIBUTES);
export const START_MS = 1_764_115_200_123; // 2025-11-26T00:00:00.123Z

/** A SERVER root (every attribute kind, two events, error status), a CLIENT child with a link, an INTERNAL child. */
export function recordSpans(): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resource(), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('shop-instrumentation', '1.2.3');
  const root = tracer.startSpan('GET /carts/:id', {
    kind: SpanKind.SERVER,
    startTime: START_MS,
    attributes: {
      'http.request.method': 'GET',
      'url.path': '/carts/42',
      'http.response.status_code': 500,
      'retry.count': -3,
      'cache.hit': true,
      'load.ratio': 0.25,
      'tags': ['a', 'b'],
      'ports': [80, 443],
    },
  });
  root.addEvent('cart.loaded', { 'cart.items': 7 }, START_MS + 2);
  root.recordException(Object.assign(new Error('boom'), { name: 'BoomError' }), START_MS + 9);
  root.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  const ctx = trace.setSpan(context.active(), root);
  const client = tracer.startSpan('POST', {
    kind: SpanKind.CLIENT,
    startTime: START_MS + 3,
    attributes: { 'url.full': 'https://payments.internal/v2/authorize', 'server.address': 'payments.internal' },
    links: [{ context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1, traceState: undefined }, attributes: { 'link.kind': 'follows' } }],
  }, ctx);
  client.end(START_MS + 7);
  const internal = tracer.startSpan('priceCart', { kind: SpanKind.INTERNAL, startTime: START_MS + 4 }, ctx);
  internal.setStatus({ code: SpanStatusCode.OK });
  internal.end(START_MS + 5);
  root.end(START_MS + 10);
  return exporter.getFinishedSpans();
}

export const traceBytes = (spans: ReadableSpan[]): Uint8Array => ProtobufTraceSerializer.serializeRequest(spans)!;

export const SPAN_CONTEXT = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };

/** One log record per body kind; the first inside a span, with severity text and number. */
export const LOG_BODIES: AnyValue[] = [
  'order placed',
  { orderId: 42, paid: true, lines: ['x', 'y'] },
  ['queued', 3],
  new Uint8Array([0xde, 0xad, 0xbe, 0xef]),
  1234,
  2.5,
  false,
];

export function recordLogs(): ReadableLogRecord[] {
  const records: ReadableLogRecord[] = [];
  const collect: LogRecordProcessor = { onEmit: (record) => void records.push(record), forceFlush: async () => {}, shutdown: async () => {} };
  const provider = new LoggerProvider({ resource: resource(), processors: [collect] });
  const logger = provider.getLogger('shop-logger', '0.9.0');
  LOG_BODIES.forEach((body, i) => {
    logger.emit({
      timestamp: START_MS + i,
      observedTimestamp: START_MS + i + 1,
      severityNumber: i === 0 ? SeverityNumber.WARN : SeverityNumber.INFO,
      severityText: i === 0 ? 'WARN' : 'INFO',
      body,
      attributes: { 'order.id': 42 + i },
      context: i === 0 ? trace.setSpanContext(context.active(), SPAN_CONTEXT) : context.active(),
    });
  });
  return records;
}

export const logBytes = (records: ReadableLogRecord[]): Uint8Array => ProtobufLogsSerializer.serializeRequest(records)!;
