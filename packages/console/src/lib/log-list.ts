/**
 * The list of logs the Logs page holds: newest first in the API's own order (timestamp, then id, both
 * descending), without duplicates, at most `cap` rows. Pure functions: unit-tested in
 * packages/console/test/log-list.test.ts.
 */

export interface LogLike { id: string; timestamp: string }

/** The log levels of the contract, lowest first. GET /ingest/logs?level= matches exactly one of them. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

/** How long before the newest shown log a live-tail poll starts, to catch logs stored slightly out of order. */
export const TAIL_OVERLAP_MS = 5_000;

/** Newest first: timestamp descending, then id descending (the order and the cursor of GET /ingest/logs). */
export function newestFirst(a: LogLike, b: LogLike): number {
  const ta = Date.parse(a.timestamp);
  const tb = Date.parse(b.timestamp);
  if (ta !== tb) return tb - ta;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

export interface Merged<T> {
  rows: T[];
  /** How many rows were new (not already in the list), before the cap. */
  added: number;
  /** How many of the oldest rows the cap cut off. */
  dropped: number;
}

/**
 * `rows` and `incoming` together, each id once (the incoming copy wins), newest first, the oldest cut off beyond
 * `cap`. Serves both ends: a live-tail poll (newer logs) and "Load more" (older ones).
 */
export function mergeLogs<T extends LogLike>(rows: readonly T[], incoming: readonly T[], cap: number): Merged<T> {
  const byId = new Map<string, T>();
  for (const r of rows) byId.set(r.id, r);
  let added = 0;
  for (const r of incoming) {
    if (!byId.has(r.id)) added++;
    byId.set(r.id, r);
  }
  const all = [...byId.values()];
  // Already in order when nothing was added (a poll that found nothing new): skip the sort.
  if (added > 0) all.sort(newestFirst);
  const kept = all.length > cap ? all.slice(0, Math.max(0, cap)) : all;
  return { rows: kept, added, dropped: all.length - kept.length };
}

/**
 * `from` of the next live-tail poll: TAIL_OVERLAP_MS before the newest row that is not in the future (event time at
 * or before `now`), and never after `now` - TAIL_OVERLAP_MS; never before the range's own start. The API takes any
 * timestamp, so one log from a client whose clock is fast would otherwise hold the tail in the future and miss every
 * real log until that time. With rows but none at or before `now`, the tail starts TAIL_OVERLAP_MS before `now`;
 * with no rows at all, at the range's start.
 */
export function tailFrom(rows: readonly LogLike[], rangeFrom: string | undefined, now: number): string | undefined {
  if (rows.length === 0) return rangeFrom;
  let base = now;
  // Newest first: the first row at or before `now` is the newest real one.
  for (const row of rows) {
    const t = Date.parse(row.timestamp);
    if (t <= now) {
      base = t;
      break;
    }
  }
  const floor = rangeFrom ? Date.parse(rangeFrom) : -Infinity;
  return new Date(Math.max(base - TAIL_OVERLAP_MS, floor)).toISOString();
}

/**
 * `to` (exclusive) of a page of logs older than the list's oldest row, used once the cap has dropped rows and the
 * cursor no longer follows the list: 1 ms after it, so logs of the same millisecond come again and the merge
 * drops the copies.
 */
export function olderThan(rows: readonly LogLike[]): string | undefined {
  const oldest = rows[rows.length - 1];
  return oldest ? new Date(Date.parse(oldest.timestamp) + 1).toISOString() : undefined;
}

/** The levels of a `level` hash param (`error,fatal`), each once, in the contract's order; unknown ones dropped. */
export function parseLevels(raw: string | null | undefined): LogLevel[] {
  const wanted = new Set((raw ?? '').split(','));
  return LOG_LEVELS.filter((l) => wanted.has(l));
}

/** The `level` param of a set of levels: undefined for none (every level). */
export function levelsParam(levels: readonly LogLevel[]): string | undefined {
  return levels.length ? LOG_LEVELS.filter((l) => levels.includes(l)).join(',') : undefined;
}
