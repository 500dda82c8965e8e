import type { Span } from './types.js';

/**
 * The names a trace is searched by (GET /logs/project `service`, `operation`), taken from its root span when it is
 * written. The console labels a span the same way (packages/console/src/lib/otel-span.ts spanLabel).
 */

/** Longer names are cut: they are index keys, and a name that long is not typed into a search box. */
export const MAX_NAME_LENGTH = 200;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, MAX_NAME_LENGTH) : undefined);

/** A string attribute of an OpenTelemetry span's `attributes` list ({ key, value } pairs). */
function attribute(span: Span, key: string): string | undefined {
  const list = span['attributes'];
  if (!Array.isArray(list)) return undefined;
  for (const kv of list) {
    if (kv !== null && typeof kv === 'object' && (kv as { key?: unknown }).key === key) return text((kv as { value?: unknown }).value);
  }
  return undefined;
}

/** The span's service: `serviceName` (an OpenTelemetry resource's service.name); a Lantern SDK span has none. */
export function serviceOf(span: Span): string | undefined {
  return text(span['serviceName']);
}

/**
 * The span's operation: its OpenTelemetry `name`, else the name part of `requestMethod` (`controller:GET` → `GET`).
 * A server span named by its HTTP method alone gets its route after it: Lantern's `route` (the Node library's
 * Express middleware) or OpenTelemetry's `http.route` (`GET` → `GET /items/:id`). Undefined when it has neither.
 */
export function operationOf(span: Span): string | undefined {
  const method = typeof span.requestMethod === 'string' ? span.requestMethod : '';
  const colon = method.indexOf(':');
  const label = text(span['name']) ?? text(colon < 0 ? method : method.slice(colon + 1));
  if (label === undefined) return undefined;
  const server = span['kind'] === 'server' || method.startsWith('controller:');
  const route = text(span['route']) ?? attribute(span, 'http.route');
  if (!server || route === undefined || label.includes(' ') || label.includes('/')) return label;
  return `${label} ${route}`.slice(0, MAX_NAME_LENGTH);
}
