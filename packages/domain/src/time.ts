/** Timestamps: output is ISO 8601 UTC with exactly 3 fractional digits and `Z`; input is any ISO 8601 date-time with an offset. */
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * The instants whose UTC text has a four-digit year. An offset can push a local year-9999 or year-0000 time out
 * of that range ("9999-12-31T23:00:00-05:00" is 10000-01-01 in UTC), and its output would no longer be the
 * contract's format (toISOString writes "+010000-01-01T04:00:00.000Z"): such input is refused.
 */
const MIN_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const MAX_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/** Epoch milliseconds of an ISO 8601 date-time with an offset, or null if it is not one. */
export function parseTimestamp(input: unknown): number | null {
  if (typeof input !== 'string' || input.length > 64) return null;
  const m = ISO_WITH_OFFSET.exec(input);
  if (!m) return null;
  const [, , mo, d, h, mi, s] = m;
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > 31) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  let text = input.replace(' ', 'T');
  // Date.parse accepts at most millisecond precision reliably: cut longer fractions.
  if (m[7] && m[7].length > 4) text = text.replace(m[7], m[7].slice(0, 4));
  // Offsets without a colon (+0200) are ISO 8601 but not accepted by Date.parse.
  const off = m[8]!;
  if (/^[+-]\d{4}$/.test(off)) text = text.slice(0, -5) + `${off.slice(0, 3)}:${off.slice(3)}`;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  // Day-of-month overflow (2026-02-31) silently rolls over in Date.parse: reject it.
  // setUTCFullYear, not Date.UTC: Date.UTC takes years 0-99 as 1900-1999 (so 0000-02-29 would be refused).
  const check = new Date(0);
  check.setUTCFullYear(Number(m[1]), Number(mo) - 1, Number(d));
  if (check.getUTCDate() !== Number(d)) return null;
  if (ms < MIN_MS || ms > MAX_MS) return null;
  return ms;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The normalised text of a timestamp, or null if it is not one. */
export function normalizeTimestamp(input: unknown): string | null {
  const ms = parseTimestamp(input);
  return ms === null ? null : toIso(ms);
}
