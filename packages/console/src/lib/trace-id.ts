/** Trace ids as the console reads them from a link. Pure: unit-tested in packages/console/test/traceId.test.ts. */

/** The API's form of a trace id: a UUID, 8-4-4-4-12 hex digits (packages/domain/src/schemas/common.ts). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The trace id of a `#/traces/<traceId>` path segment: decoded, trimmed, lower-case; undefined when it is not a
 * UUID (empty, malformed, a stray escape). The API stores ids lower-case, so the result is the id to ask for.
 */
export function parseTraceId(segment: string): string | undefined {
  let id = segment;
  try {
    id = decodeURIComponent(id);
  } catch {
    return undefined; // a malformed escape is no UUID
  }
  id = id.trim().toLowerCase();
  return UUID.test(id) ? id : undefined;
}
