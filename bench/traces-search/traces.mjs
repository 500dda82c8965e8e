// The traces of bench/traces-search: deterministic (a seeded generator), each trace a root span and children of the
// same application, with OpenTelemetry's fields on the root (service.name, name, kind, http.route) the way
// @lantern/otlp maps them, so the root's service and operation are what the trace filters index. Attributes as an
// OpenTelemetry SDK sends them: a resource of 8 (one object per process, shared by its spans as the OTLP mapping
// shares it; 4 processes), on the root `user.id` (100,000 users) and `order.id` (one per trace), on the children
// `db.system` and `db.statement` or `peer.service`: what the attribute index (`attr`) holds.
import { prng } from '../logs-search/messages.mjs';

const SERVICES = [['checkout', 0.2], ['catalog', 0.3], ['search', 0.25], ['accounts', 0.14], ['billing', 0.1], ['ledger', 0.01]];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

/** A UUID made from a number: trace i's id can be found again without keeping it. */
function uuidOf(prefix, n) {
  const hex = (prefix * 0x100000000 + n).toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The resource of process p (of 4): what an SDK's resource detectors give every span it sends. */
const resourceOf = (p) => [
  { key: 'deployment.environment', value: 'prod' }, { key: 'host.name', value: `ip-10-0-0-${p}` }, { key: 'process.pid', value: 4000 + p },
  { key: 'process.runtime.name', value: 'nodejs' }, { key: 'process.runtime.version', value: '20.20.2' }, { key: 'telemetry.sdk.language', value: 'nodejs' },
  { key: 'telemetry.sdk.name', value: 'opentelemetry' }, { key: 'telemetry.sdk.version', value: '1.30.1' },
];
const RESOURCES = [0, 1, 2, 3].map(resourceOf);

export function traceGenerator(seed, t0, stepMs, spansPerTrace) {
  const rand = prng(seed);
  // Its own sequence, so the other draws (services, operations, statuses, durations) are those of the world before.
  const users = prng(seed + 1);
  const operations = Array.from({ length: 39 }, (_, i) => `${METHODS[i % 4]} /${['items', 'cart', 'users', 'orders', 'search'][i % 5]}${i < 5 ? '/:id' : `/v${i}`}`);
  const service = () => {
    let r = rand();
    for (const [name, share] of SERVICES) if ((r -= share) < 0) return name;
    return SERVICES[0][0];
  };
  // The common operation, a fifth of the traffic; the others evenly; 1 in 1,000 the rare one.
  const operation = () => (rand() < 0.001 ? 'POST /refunds' : rand() < 0.2 ? 'GET /items/:id' : operations[Math.floor(rand() * operations.length)]);
  // Log-normal durations around 30 ms: about 1 % over a second.
  const duration = () => Math.max(1, Math.round(Math.exp(Math.log(30) + 1.5 * Math.sqrt(-2 * Math.log(rand() || 1e-9)) * Math.cos(2 * Math.PI * rand()))));
  const status = () => {
    const r = rand();
    return r < 0.01 ? 503 : r < 0.02 ? 500 : r < 0.05 ? 404 : 200;
  };
  return {
    traceIdOf: (i) => uuidOf(1, i),
    /** Trace i's `order.id` (one per trace). */
    orderIdOf: (i) => `ord-${i}`,
    /** The spans of traces first .. first + count - 1. */
    spans(first, count) {
      const out = [];
      for (let i = first; i < first + count; i++) {
        const traceId = uuidOf(1, i);
        const rootId = uuidOf(2, i * spansPerTrace);
        const at = t0 + i * stepMs;
        const total = duration();
        const [method, route] = operation().split(' ');
        const resource = RESOURCES[i % 4];
        out.push({
          traceId, spanId: rootId, parentSpanId: null, timestamp: new Date(at).toISOString(), requestMethod: `controller:${method}`,
          requestURL: route.replace(':id', String(i % 1000)), responseStatus: status(), durationMs: total,
          name: method, kind: 'server', serviceName: service(), resource, attributes: [{ key: 'http.route', value: route }, { key: 'http.request.method', value: method },
            { key: 'user.id', value: `u-${Math.floor(users() * 100_000)}` }, { key: 'order.id', value: `ord-${i}` }],
        });
        for (let c = 1; c < spansPerTrace; c++) {
          out.push({
            traceId, spanId: uuidOf(2, i * spansPerTrace + c), parentSpanId: rootId, timestamp: new Date(at + c).toISOString(),
            requestMethod: c % 2 ? 'service:query' : 'external:GET', durationMs: Math.max(1, Math.round(total / (c + 1))), name: c % 2 ? 'SELECT orders' : 'GET',
            resource, attributes: c % 2
              ? [{ key: 'db.system', value: 'postgresql' }, { key: 'db.statement', value: 'SELECT * FROM orders WHERE id = $1' }]
              : [{ key: 'peer.service', value: 'payments' }, { key: 'http.request.method', value: 'GET' }],
          });
        }
      }
      return out;
    },
  };
}
