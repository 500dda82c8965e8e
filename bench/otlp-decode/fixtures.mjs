// Real exporter output: spans and log records made by the OpenTelemetry JS SDK and serialized by its own
// ProtobufTraceSerializer / ProtobufLogsSerializer (@opentelemetry/otlp-transformer, what
// @opentelemetry/exporter-trace-otlp-proto sends). A request of `traces` x 10 spans: a SERVER root with the HTTP
// server attributes, a CLIENT child with the HTTP client attributes, eight INTERNAL children, events on the root
// and on every fifth span (an exception event on failed roots), a link on every CLIENT span, and a resource with the
// usual service/host/process attributes.
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

const RESOURCE = resourceFromAttributes({
  'service.name': 'checkout',
  'service.version': '2.14.1',
  'service.namespace': 'shop',
  'service.instance.id': '6a1f0e2c-5d0b-4f43-9b1e-0f3a2c4d5e6f',
  'deployment.environment.name': 'production',
  'host.name': 'checkout-7d9f8b6c5-x2kqp',
  'host.arch': 'amd64',
  'os.type': 'linux',
  'process.pid': 4211,
  'process.runtime.name': 'nodejs',
  'process.runtime.version': '20.19.0',
  'cloud.region': 'eu-central-1',
  'telemetry.sdk.name': 'opentelemetry',
  'telemetry.sdk.language': 'nodejs',
  'telemetry.sdk.version': '2.12.0',
});

/** The spans of `traces` traces of 10 spans each, as the SDK records them (ReadableSpan[]). */
export function makeSpans(traces) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: RESOURCE, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('@opentelemetry/instrumentation-http', '0.223.0');
  const t0 = Date.now() - 60_000;
  for (let t = 0; t < traces; t++) {
    const failed = t % 20 === 0;
    const start = t0 + t * 50;
    const root = tracer.startSpan('GET /api/v1/carts/:id', {
      kind: SpanKind.SERVER,
      startTime: start,
      attributes: {
        'http.request.method': 'GET',
        'url.scheme': 'https',
        'url.path': `/api/v1/carts/${100000 + t}`,
        'url.query': 'expand=product&currency=EUR',
        'http.route': '/api/v1/carts/:id',
        'server.address': 'shop.example.com',
        'server.port': 443,
        'network.protocol.version': '1.1',
        'client.address': '203.0.113.42',
        'user_agent.original': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
        'http.response.status_code': failed ? 503 : 200,
        'http.response.body.size': 18_734 + t,
      },
    });
    root.addEvent('cart.loaded', { 'cart.items': 7, 'cart.currency': 'EUR' }, start + 3);
    if (failed) {
      root.recordException(Object.assign(new Error('payments-api unavailable'), { name: 'UpstreamError' }), start + 40);
      root.setStatus({ code: SpanStatusCode.ERROR, message: 'payments-api unavailable' });
    }
    const ctx = trace.setSpan(context.active(), root);
    for (let s = 1; s < 10; s++) {
      const client = s === 9;
      const span = tracer.startSpan(client ? 'POST' : ['loadCartItems', 'priceCart', 'applyDiscounts'][s % 3], {
        kind: client ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: start + s * 3,
        attributes: client
          ? {
              'http.request.method': 'POST',
              'url.full': 'https://payments.internal:8443/v2/authorize?merchant=shop',
              'server.address': 'payments.internal',
              'server.port': 8443,
              'http.response.status_code': failed ? 503 : 201,
              'http.request.resend_count': 0,
            }
          : { 'code.function.name': `cart.${s}`, 'cart.id': 100000 + t, 'cache.hit': s % 2 === 0, 'ratio': s / 7, 'tags': ['a', 'b'] },
        links: client ? [{ context: { traceId: 'f'.repeat(16) + (t + 1).toString(16).padStart(16, '0'), spanId: 'e'.repeat(16), traceFlags: 1 }, attributes: { 'link.kind': 'follows' } }] : [],
      }, ctx);
      if (s % 5 === 0) span.addEvent('db.query', { 'db.system.name': 'postgresql', 'db.rows': 12 }, start + s * 3 + 1);
      span.end(start + s * 3 + 2 + s);
    }
    root.end(start + 45 + (t % 7));
  }
  return exporter.getFinishedSpans();
}

/** `n` log records with every body kind, severities across the range, some inside a span. */
export function makeLogs(n) {
  // The records as the processors see them (SimpleLogRecordProcessor exports asynchronously; this collects in step).
  const records = [];
  const collect = { onEmit: (record) => records.push(record), forceFlush: async () => {}, shutdown: async () => {} };
  const provider = new LoggerProvider({ resource: RESOURCE, processors: [collect] });
  const logger = provider.getLogger('checkout-logger', '1.0.0');
  const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
  const t0 = Date.now() - 60_000;
  const severities = [SeverityNumber.DEBUG, SeverityNumber.INFO, SeverityNumber.INFO, SeverityNumber.WARN, SeverityNumber.ERROR];
  for (let i = 0; i < n; i++) {
    const severityNumber = severities[i % severities.length];
    const bodyKind = i % 4;
    logger.emit({
      timestamp: t0 + i,
      observedTimestamp: t0 + i + 1,
      severityNumber,
      severityText: ['DEBUG', 'INFO', 'INFO', 'WARN', 'ERROR'][i % 5],
      body: bodyKind === 0 ? `order ${i} placed for customer 8841` : bodyKind === 1 ? { orderId: i, total: 129.9, paid: true } : bodyKind === 2 ? ['queued', i] : `request ${i} handled in ${i % 90} ms`,
      attributes: { 'http.request.method': 'POST', 'url.path': '/api/v1/orders', 'order.id': 10_000 + i, 'retry': i % 3 === 0 },
      context: i % 2 === 0 ? trace.setSpanContext(context.active(), spanContext) : context.active(),
    });
  }
  return records;
}

/** ExportTraceServiceRequest bytes of `traces` x 10 spans, as the OTLP/HTTP protobuf exporter sends them. */
export const traceRequestBytes = (traces) => ProtobufTraceSerializer.serializeRequest(makeSpans(traces));
/** ExportLogsServiceRequest bytes of `n` log records. */
export const logsRequestBytes = (n) => ProtobufLogsSerializer.serializeRequest(makeLogs(n));
