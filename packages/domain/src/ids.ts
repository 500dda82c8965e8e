import { randomFillSync, randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function newId(): string {
  return randomUUID();
}

/** Random bytes for IDS_PER_FILL time-ordered ids at a time: one `randomFillSync` instead of one call per id. */
const IDS_PER_FILL = 128;
const pool = Buffer.alloc(16 * IDS_PER_FILL);
let nextInPool = IDS_PER_FILL;

/**
 * A UUID version 7 (RFC 9562): the time in milliseconds first, then 74 random bits, so that ids made later sort
 * after (as text too, within a millisecond in any order). For keys that should land at the end of an index rather
 * than anywhere in it (docs/architecture.md, "Postings on MongoDB"), and for log ids (ingest makes a thousand a
 * request: the random bytes come from a pool, as `randomUUID()`'s do).
 */
export function newTimeOrderedId(now: number = Date.now()): string {
  if (nextInPool === IDS_PER_FILL) {
    randomFillSync(pool);
    nextInPool = 0;
  }
  const at = 16 * nextInPool++;
  pool.writeUIntBE(now, at, 6);
  pool[at + 6] = 0x70 | (pool[at + 6]! & 0x0f);
  pool[at + 8] = 0x80 | (pool[at + 8]! & 0x3f);
  const hex = pool.toString('hex', at, at + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** The text of a JSON number without sign or exponent: integer digits and an optional fraction. */
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * A whole number from text as JSON Schema's `integer` reads a number (`1.0` is one): decimal digits, optionally a
 * fraction whose value is whole (`7`, `7.0`, `7.000`), computed exactly (BigInt, no rounding:
 * `1.0000000000000000001` is not whole), or null. No sign, leading zero or exponent (`+7`, `07`, `7e0`), at most 40
 * characters: numbers in the document's query and path parameters are written in plain decimal.
 */
export function parseWholeNumber(text: string): bigint | null {
  if (text.length > 40) return null;
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const fraction = m[2] ?? '';
  let digits = `${m[1]}${fraction}`.replace(/^0+(?=\d)/, '');
  let exponent = -fraction.length;
  while (exponent < 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exponent++;
  }
  if (digits === '0') return 0n;
  if (exponent < 0) return null;
  return BigInt(digits);
}

/** A whole number from `min` to `max` given as text (see parseWholeNumber), or null. */
export function parseIntegerText(text: string, min: number, max: number): number | null {
  const n = parseWholeNumber(text);
  if (n === null || n < BigInt(min) || n > BigInt(max)) return null;
  return Number(n);
}

/**
 * A positive integer id (organizations, projects, applications), at most 2^53-1, from text or number, or null.
 * Text as JSON Schema's `integer` reads it (parseWholeNumber): `1` and `1.0` are 1; `1.5`, `+1`, `01`, `1e0` are not ids.
 */
export function parsePositiveInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (typeof value !== 'string') return null;
  return parseIntegerText(value, 1, Number.MAX_SAFE_INTEGER);
}
