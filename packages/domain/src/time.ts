/** Timestamps: output is ISO 8601 UTC with exactly 3 fractional digits and `Z`; input is any ISO 8601 date-time with an offset. */
const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:?\d{2})$/;

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
  const check = new Date(Date.UTC(Number(m[1]), Number(mo) - 1, Number(d)));
  if (check.getUTCDate() !== Number(d)) return null;
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
