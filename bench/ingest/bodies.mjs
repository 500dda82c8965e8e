// Request bodies for bench/ingest. Every body carries new ids (trace, span and, for logs, trace ids in the
// messages), so no span or log is ever a repeat a store could skip: the benchmark measures the work that users
// cause. Bodies are concatenated from fixed pieces rather than JSON.stringify'd objects, so the load generator,
// which shares the machine with the server, spends as little CPU as it can on them.
import { randomUUID } from 'node:crypto';

const SPAN_KINDS = ['controller:GET', 'service:loadCartItems', 'service:priceCart', 'external:payments-api'];

/**
 * One request's spans: `batch / 10` traces of 10 spans (a root and nine children), like a busy service's flush,
 * ~400 bytes a span. Timestamps are the current time, so spans arrive in time order as in production.
 */
export function spanBody(batch, { wide = false } = {}) {
  const now = Date.now();
  const iso = (ms) => new Date(ms).toISOString();
  const parts = [];
  const traces = Math.max(1, Math.floor(batch / 10));
  for (let t = 0; t < traces; t++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    const perTrace = t === traces - 1 ? batch - 10 * (traces - 1) : 10;
    for (let s = 0; s < perTrace; s++) {
      const root = s === 0;
      const status = root && t % 20 === 0 ? 503 : 200;
      parts.push(
        `{"traceId":"${traceId}","spanId":"${root ? rootId : randomUUID()}","parentSpanId":${root ? 'null' : `"${rootId}"`},` +
        `"timestamp":"${iso(now - 1000 + s * 3)}","requestMethod":"${root ? SPAN_KINDS[0] : SPAN_KINDS[1 + (s % 3)]}",` +
        `"requestURL":"/api/v1/carts/${100000 + t}/items?expand=product&currency=EUR","responseStatus":${status},` +
        `"durationMs":${root ? 120 + t : 5 + s},${wide ? otelFields(t, s, status) : '"host":"checkout-7d9f8b6c5-x2kqp","region":"eu-central-1"'}}`,
      );
    }
  }
  return `{"timestamp":"${iso(now)}","traces":[${parts.join(',')}]}`;
}

/**
 * `wide`: the fields an OTLP span of otlp-bodies.mjs adds to its stored row (name, kind, the attributes it was sent
 * with, status) in place of host and region (which OTLP stores once, in its resource), so a Lantern JSON span
 * stores as many bytes as the OTLP one: the format `lantern-wide` tells the cost of the path (decode, map) from the
 * cost of the row (the writer's).
 */
function otelFields(t, s, status) {
  const root = s === 0;
  const child = SPAN_KINDS[1 + (s % 3)];
  const client = !root && child === 'external:payments-api';
  const name = root ? 'GET' : client ? 'POST' : child.slice('service:'.length);
  const attributes = [
    `{"key":"url.path","value":"/api/v1/carts/${100000 + t}/items"}`,
    '{"key":"url.query","value":"expand=product&currency=EUR"}',
    ...(root ? ['{"key":"http.request.method","value":"GET"}'] : []),
    ...(client ? ['{"key":"server.address","value":"payments-api"}'] : []),
    `{"key":"http.response.status_code","value":${status}}`,
  ];
  return `"name":"${name}","kind":"${root ? 'server' : client ? 'client' : 'internal'}","attributes":[${attributes.join(',')}]` +
    (status >= 500 ? ',"status":{"code":"error"}' : '');
}

const WORDS = ['cart', 'checkout', 'payment', 'inventory', 'user', 'session', 'timeout', 'retry', 'cache', 'order',
  'shipping', 'invoice', 'coupon', 'price', 'stock', 'warehouse', 'token', 'refresh', 'queue', 'worker'];
const LEVELS = ['info', 'info', 'info', 'debug', 'warn', 'error'];

/** One request's log entries, ~250 bytes each, half of them inside a (new) trace. */
export function logBody(batch) {
  const now = Date.now();
  const ts = new Date(now).toISOString();
  const parts = [];
  let traceId = randomUUID();
  for (let i = 0; i < batch; i++) {
    if (i % 10 === 0) traceId = randomUUID();
    const w = WORDS[i % WORDS.length];
    const v = WORDS[(i * 7) % WORDS.length];
    parts.push(
      `{"level":"${LEVELS[i % LEVELS.length]}","message":"${w} ${v} handled for order ${now % 1000000 + i} in ${i % 97} ms",` +
      `"timestamp":"${ts}"${i % 2 === 0 ? `,"traceId":"${traceId}"` : ''},"service":"checkout","host":"checkout-7d9f8b6c5-x2kqp"}`,
    );
  }
  return `{"timestamp":"${ts}","logs":[${parts.join(',')}]}`;
}
