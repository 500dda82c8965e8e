/**
 * The attribute index of trace records and logs (issue 19, `attr` on GET /logs/project and GET /ingest/logs):
 * every key a record's spans (or a log) carry, and every key with its value when the value is a string, a number or
 * a boolean, each a hash of 52 bits and a parity bit that tells a key's (odd) from a pair's (even). A record
 * keeps the set of its hashes; a search for `key=value` or `key` (it exists) walks the records holding that hash
 * in the list's order (SQLite: the trace_attrs table, schema.ts 17; MongoDB: the multikey `attrs` field). Only the
 * key-value pairs have postings; a key alone (`key`) is tested on the records that the other terms' postings or
 * the other filters' indexes give (isKeyHash).
 *
 * What counts as a span's attributes (docs/api.md, "Attribute search"):
 * - its OpenTelemetry `attributes`, its resource's (`resource`) and its scope's (`scope.attributes`), each a list
 *   of `{ key, value }`;
 * - its other top-level fields (`requestMethod`, `requestURL`, `responseStatus`, `name`, a Lantern span's own
 *   extra fields...), but not the ids, the time nor the duration, which have their own filters.
 * One namespace: a resource's `host.name` and a span's `host.name` are the same key.
 *
 * A value is compared as text: a number as JavaScript writes it (`500`, `1.5`), a boolean as `true`/`false`. A
 * list or nested value is only found by its key. Hashes may collide: two different pairs of a project with the same
 * hash (52 bits each: about 2 chances in 10^8 per search when a project holds 10^8 distinct pairs) would find each other's records.
 */

/** Distinct hashes a record keeps at most (each batch's first ones, in span order): a hostile span cannot grow one without bound. */
export const MAX_RECORD_PAIRS = 512;

/** A search term: `key=value`, or `key` alone (the key exists, whatever its value). */
export interface AttributeFilter {
  key: string;
  value?: string;
}

/** Top-level span fields that are not attributes: the ids and the time have their own filters. */
const NOT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'traceId', 'spanId', 'parentSpanId', 'timestamp', 'durationMs', 'attributes', 'resource', 'scope', 'serviceName',
]);

/**
 * cyrb53 (public domain, bryc), a fast, well-mixed 53-bit string hash, over `tag`, the key, the key's length and
 * the value, without building their concatenation (the length, not a separator: a key or value may hold any
 * character, so `a` + `\0b` and `a\0` + `b` must differ); exact as a JavaScript number, a SQLite INTEGER and a
 * BSON double.
 */
function cyrb53(tag: number, key: string, value: string | undefined): number {
  let h1 = Math.imul(0xdeadbeef ^ tag, 2654435761);
  let h2 = Math.imul(0x41c6ce57 ^ tag, 1597334677);
  for (let i = 0; i < key.length; i++) {
    const ch = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  if (value !== undefined) {
    h1 = Math.imul(h1 ^ (0x10000 + key.length), 2654435761);
    h2 = Math.imul(h2 ^ (0x10000 + key.length), 1597334677);
    for (let i = 0; i < value.length; i++) {
      const ch = value.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Keys repeat from span to span: their hashes are remembered (up to KEYS_REMEMBERED, then forgotten at once), the
 * short ones only, so that the memory held stays small whatever keys a client sends (an attribute's key is text of
 * up to 64 KiB).
 */
const keyHashes = new Map<string, number>();
const KEYS_REMEMBERED = 4096;
const REMEMBERED_KEY_LENGTH = 128;

/** A key's hash (the key exists): odd, so that a hash says what it is (isKeyHash). */
export const keyHash = (key: string): number => {
  let h = keyHashes.get(key);
  if (h === undefined) {
    const raw = cyrb53(0x6b, key, undefined);
    h = raw - (raw % 2) + 1;
    if (key.length <= REMEMBERED_KEY_LENGTH) {
      if (keyHashes.size >= KEYS_REMEMBERED) keyHashes.clear();
      keyHashes.set(key, h);
    }
  }
  return h;
};
/** A key and value's hash: even. */
export const pairHash = (key: string, value: string): number => {
  const h = cyrb53(0x76, key, value);
  return h - (h % 2);
};
/**
 * Whether a hash is a key's. A record keeps both kinds; only the pairs' have postings (an index entry per record):
 * most keys are on most records, and a key alone is tested on the records another filter walks.
 */
export const isKeyHash = (hash: number): boolean => hash % 2 === 1;

/** Postings counted per pair when a read chooses which of its pairs to walk (rarestFirst). */
export const PROBE_CAP = 10_000;

/**
 * The terms with the rarest key-value pair first: a read walks its first pair's postings and tests the others on
 * each record, so the pair with the fewest records (each counted up to PROBE_CAP, by the adapter's `count`) should
 * lead. The others keep their order. With fewer than two pairs, the terms as they are.
 */
export async function rarestFirst(attributes: readonly AttributeFilter[] | undefined, count: (hash: number) => number | Promise<number>):
  Promise<readonly AttributeFilter[] | undefined> {
  const pairs = (attributes ?? []).filter((a) => a.value !== undefined);
  if (pairs.length < 2) return attributes;
  let best = pairs[0]!;
  let fewest = Number.POSITIVE_INFINITY;
  for (const term of pairs) {
    const n = await count(filterHash(term));
    if (n < fewest) [best, fewest] = [term, n];
  }
  return [best, ...attributes!.filter((a) => a !== best)];
}

/** The hash a search term looks up. */
export const filterHash = (filter: AttributeFilter): number =>
  (filter.value === undefined ? keyHash(filter.key) : pairHash(filter.key, filter.value));

/**
 * A value's text when it is compared by value (a string, a finite number, a boolean); else undefined. GET
 * /logs/facets counts values by it, so a value it lists is one `attr` finds.
 */
export function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return undefined;
}

/** Adds a key (and its value's pair) to `out`, while it holds fewer than `max`. */
function addPair(out: Set<number>, key: string, value: unknown, max: number): void {
  if (out.size >= max) return;
  out.add(keyHash(key));
  const text = valueText(value);
  if (text !== undefined && out.size < max) out.add(pairHash(key, text));
}

/** The `{ key, value }` entries of an attribute list into `out`. */
function addList(out: Set<number>, list: unknown, max: number): void {
  if (!Array.isArray(list)) return;
  for (const kv of list) {
    if (kv === null || typeof kv !== 'object') continue;
    const key = (kv as { key?: unknown }).key;
    if (typeof key === 'string' && key !== '') addPair(out, key, (kv as { value?: unknown }).value, max);
  }
}

/** The hashes of what a resource and scope give a span (`resource`, `scope.attributes`, `serviceName` as `service.name`). */
export function contextPairs(span: Record<string, unknown>, out: Set<number>, max = MAX_RECORD_PAIRS): void {
  addList(out, span['resource'], max);
  const scope = span['scope'];
  if (scope !== null && typeof scope === 'object') addList(out, (scope as { attributes?: unknown }).attributes, max);
  if (typeof span['serviceName'] === 'string') addPair(out, 'service.name', span['serviceName'], max);
}

/** The hashes of a span's own attributes and top-level fields (not its context's: contextPairs). */
export function ownPairs(span: Record<string, unknown>, out: Set<number>, max = MAX_RECORD_PAIRS, excluded = NOT_ATTRIBUTES): void {
  addList(out, span['attributes'], max);
  for (const key of Object.keys(span)) {
    if (!excluded.has(key)) addPair(out, key, span[key], max);
  }
}

/**
 * A log's fields that are not attributes: its times, its trace and span ids, and its message (`q` searches it); the
 * context's fields are read by contextPairs. Its level and every other field are.
 */
export const LOG_NOT_ATTRIBUTES: ReadonlySet<string> = new Set([
  'id', 'projectId', 'applicationId', 'timestamp', 'clientTimestamp', 'traceId', 'spanId', 'message', 'attributes', 'resource', 'scope', 'serviceName',
]);

/** The hashes of a log's attributes (as a span's: its OpenTelemetry lists, its context's, its other fields), at most MAX_RECORD_PAIRS. */
export function logPairs(log: Record<string, unknown>): Set<number> {
  const out = new Set<number>();
  contextPairs(log, out);
  ownPairs(log, out, MAX_RECORD_PAIRS, LOG_NOT_ATTRIBUTES);
  return out;
}

/**
 * The hashes of a batch's spans per trace id, at most `max` per trace: the context's pairs once per distinct
 * resource and scope objects (a batch's spans share them), each span's own.
 */
export function pairsByTrace(spans: ReadonlyArray<Record<string, unknown>>, max = MAX_RECORD_PAIRS): Map<string, number[]> {
  const sets = new Map<string, Set<number>>();
  let resource: unknown;
  let scope: unknown;
  let serviceName: unknown;
  let context: Set<number> | undefined;
  for (const span of spans) {
    if (context === undefined || span['resource'] !== resource || span['scope'] !== scope || span['serviceName'] !== serviceName) {
      resource = span['resource'];
      scope = span['scope'];
      serviceName = span['serviceName'];
      context = new Set();
      contextPairs(span, context, max);
    }
    const traceId = String(span['traceId']);
    let set = sets.get(traceId);
    if (set === undefined) sets.set(traceId, (set = new Set()));
    for (const h of context) {
      if (set.size >= max) break;
      set.add(h);
    }
    ownPairs(span, set, max);
  }
  return new Map([...sets].map(([traceId, set]) => [traceId, [...set]]));
}
