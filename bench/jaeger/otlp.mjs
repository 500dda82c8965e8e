// The OTLP/HTTP JSON twin of bench/ingest/bodies.mjs spanBody: the same spans (batch / 10 traces of 10 spans, a
// root and nine children, the same names, URL, status, durations, host and region, timestamps of now), new trace
// and span ids in every request, as Jaeger's OTLP receiver takes them (POST /v1/traces, application/json; ids in
// hex, times in Unix nanoseconds). Concatenated from fixed pieces like bodies.mjs, so the load generator spends
// little CPU on it. Returns the body and one trace id of it (hex), for the stored-sample check.
import { randomBytes } from 'node:crypto';

const SPAN_KINDS = ['controller:GET', 'service:loadCartItems', 'service:priceCart', 'external:payments-api'];
const str = (key, value) => `{"key":"${key}","value":{"stringValue":"${value}"}}`;
// Lantern's spans carry host and region on every span; OTLP says them once, as resource attributes.
const RESOURCE = `{"attributes":[${str('service.name', 'checkout')},${str('host.name', 'checkout-7d9f8b6c5-x2kqp')},${str('cloud.region', 'eu-central-1')}]}`;
const HEAD = `{"resourceSpans":[{"resource":${RESOURCE},"scopeSpans":[{"scope":{"name":"lantern-bench"},"spans":[`;
const TAIL = ']}]}]}';
const nanos = (ms) => `"${ms}000000"`; // whole milliseconds, as bodies.mjs

/** One request's spans, as spanBody(batch) but in OTLP JSON: { body, traceId }. */
export function otlpSpanBody(batch) {
  const now = Date.now();
  const traces = Math.max(1, Math.floor(batch / 10));
  // All the ids of the request from one random draw: 16 bytes a trace, 8 a span.
  const hex = randomBytes(16 * traces + 8 * batch).toString('hex');
  let at = 0;
  const take = (bytes) => hex.slice(at, (at += 2 * bytes));
  const parts = [];
  let firstTraceId;
  for (let t = 0; t < traces; t++) {
    const traceId = take(16);
    firstTraceId ??= traceId;
    const rootId = take(8);
    const perTrace = t === traces - 1 ? batch - 10 * (traces - 1) : 10;
    for (let s = 0; s < perTrace; s++) {
      const root = s === 0;
      const status = root && t % 20 === 0 ? 503 : 200;
      const start = now - 1000 + s * 3;
      const duration = root ? 120 + t : 5 + s;
      parts.push(
        `{"traceId":"${traceId}","spanId":"${root ? rootId : take(8)}"${root ? '' : `,"parentSpanId":"${rootId}"`},` +
        `"name":"${root ? SPAN_KINDS[0] : SPAN_KINDS[1 + (s % 3)]}","kind":${root ? 2 : 1},` +
        `"startTimeUnixNano":${nanos(start)},"endTimeUnixNano":${nanos(start + duration)},` +
        `"attributes":[${str('url.full', `/api/v1/carts/${100000 + t}/items?expand=product&currency=EUR`)},` +
        `{"key":"http.response.status_code","value":{"intValue":"${status}"}}],"status":{"code":${status >= 500 ? 2 : 0}}}`,
      );
    }
  }
  return { body: HEAD + parts.join(',') + TAIL, traceId: firstTraceId };
}
