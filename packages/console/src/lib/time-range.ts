/**
 * Time ranges of the list and metrics pages: a named range relative to now ("last hour"), or a fixed window
 * (`from`/`to`, e.g. a link from a trace to the logs around it). Kept in the hash params as `range=1h`, or as
 * `from=...&to=...`. Pure functions: unit-tested in packages/console/test/time-range.test.ts.
 */

export type RangeName = '15m' | '1h' | '6h' | '24h' | '7d' | 'all';

export interface RangeOption {
  name: RangeName;
  label: string;
  /** Length of the range; undefined for 'all'. */
  ms: number | undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RANGES: readonly RangeOption[] = [
  { name: '15m', label: 'Last 15 minutes', ms: 15 * MINUTE },
  { name: '1h', label: 'Last hour', ms: HOUR },
  { name: '6h', label: 'Last 6 hours', ms: 6 * HOUR },
  { name: '24h', label: 'Last 24 hours', ms: DAY },
  { name: '7d', label: 'Last 7 days', ms: 7 * DAY },
  { name: 'all', label: 'All time', ms: undefined },
];

/** The window every page opens on when its URL names none. */
export const DEFAULT_RANGE: RangeName = '1h';

/** The query window of an API read: ISO timestamps, `from` inclusive and `to` exclusive; absent = unbounded. */
export interface TimeQuery { from?: string; to?: string }

/** A named range, or a fixed window (`name: 'custom'`, at least one bound set). */
export type TimeRange = { name: RangeName } | { name: 'custom'; from?: string; to?: string };

export function isRangeName(value: unknown): value is RangeName {
  return RANGES.some((r) => r.name === value);
}

export function rangeOption(name: RangeName): RangeOption {
  return RANGES.find((r) => r.name === name)!;
}

const toMs = (now: number | Date) => (typeof now === 'number' ? now : now.getTime());

/** The window of a named range ending at `now`: `{}` for 'all'. */
export function rangeToQuery(name: RangeName, now: number | Date): TimeQuery {
  const { ms } = rangeOption(name);
  if (ms === undefined) return {};
  const end = toMs(now);
  return { from: new Date(end - ms).toISOString(), to: new Date(end).toISOString() };
}

/** A hash param as a normalised ISO timestamp, or undefined when absent or not a date-time. */
function isoParam(raw: string | null): string | undefined {
  if (!raw) return undefined;
  // Only full date-times with a zone (what the API accepts), not "2026" or "tomorrow".
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(raw)) return undefined;
  const ms = Date.parse(raw);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The range in hash params: `from`/`to` (a valid bound wins, as a fixed window), else `range`, else `fallback`.
 * A fixed window whose `from` is not before its `to` is ignored.
 */
export function parseRange(params: URLSearchParams, fallback: RangeName = DEFAULT_RANGE): TimeRange {
  const from = isoParam(params.get('from'));
  const to = isoParam(params.get('to'));
  if ((from || to) && !(from && to && from >= to)) return { name: 'custom', ...(from ? { from } : {}), ...(to ? { to } : {}) };
  const name = params.get('range');
  return { name: isRangeName(name) ? name : fallback };
}

/** The hash params of a range, for href()/navigate(); the other range params set to undefined (dropped). */
export function rangeParams(range: TimeRange): { range?: string; from?: string; to?: string } {
  if (range.name === 'custom') return { range: undefined, from: range.from, to: range.to };
  return { range: range.name, from: undefined, to: undefined };
}

/** The query window of a range at `now`. */
export function resolveRange(range: TimeRange, now: number | Date): TimeQuery {
  if (range.name !== 'custom') return rangeToQuery(range.name, now);
  return { ...(range.from ? { from: range.from } : {}), ...(range.to ? { to: range.to } : {}) };
}

/**
 * A window no longer than `maxMs` (GET /metrics takes at most 90 days): a missing `to` becomes `now`, a missing
 * or too early `from` becomes `to - maxMs`.
 */
export function clampWindow(query: TimeQuery, maxMs: number, now: number | Date): Required<TimeQuery> {
  const to = query.to ? Date.parse(query.to) : toMs(now);
  const earliest = to - maxMs;
  const from = query.from ? Math.max(Date.parse(query.from), earliest) : earliest;
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/** A short description of a range for headings and empty states: "the last hour", "all time", "10:00 to 11:00". */
export function describeRange(range: TimeRange, time: (iso: string) => string = (iso) => iso): string {
  if (range.name !== 'custom') return rangeOption(range.name).label.toLowerCase().replace(/^last/, 'the last');
  if (range.from && range.to) return `${time(range.from)} to ${time(range.to)}`;
  return range.from ? `since ${time(range.from)}` : `before ${time(range.to ?? '')}`;
}
