import { documentedRoutes } from './openapi.js';

/**
 * The route table of the whole API, shared by every service: which methods each path is served with. It is the
 * OpenAPI document's paths (openapi.ts) plus the undocumented GET endpoints every service has. A service answers
 * 405 with `Allow` from this table, not from its own routers: behind nginx, a method is routed by path prefix to one
 * service (`DELETE /ingest/logs` goes to ingest, which serves only POST there) that alone could not know the
 * methods another service serves on the same path (GET /ingest/logs is the query service's).
 */
const UNDOCUMENTED: Record<string, string[]> = { '/openapi.json': ['get'], '/healthz': ['get'], '/readyz': ['get'] };

/** The order `Allow` lists methods in. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Route {
  pattern: RegExp;
  allow: readonly string[];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `/a/{id}/b` -> /^\/a\/[^/]+\/b\/?$/i: matched as Express matches routes (any case, an optional trailing slash). */
function patternOf(template: string): RegExp {
  const source = template.split('/').map((segment) => (segment.startsWith('{') && segment.endsWith('}') ? '[^/]+' : escape(segment))).join('/');
  return new RegExp(`^${source}/?$`, 'i');
}

/** The methods of a path as `Allow` lists them: HEAD wherever GET is served, and OPTIONS everywhere. */
function allowOf(methods: string[]): string[] {
  const upper = new Set(methods.map((m) => m.toUpperCase()));
  if (upper.has('GET')) upper.add('HEAD');
  upper.add('OPTIONS');
  return ORDER.filter((m) => upper.has(m));
}

const ROUTES: Route[] = Object.entries({ ...documentedRoutes(), ...UNDOCUMENTED }).map(([path, methods]) => ({
  pattern: patternOf(path),
  allow: allowOf(methods),
}));

/** The methods `path` (a request path, without its query) is served with, or undefined when the API has no such path. */
export function allowedMethods(path: string): readonly string[] | undefined {
  return ROUTES.find((r) => r.pattern.test(path))?.allow;
}
