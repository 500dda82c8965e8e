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
 * `from` of the next live-tail poll: a little before the newest row (TAIL_OVERLAP_MS), never before the range's
 * own start; the range's start when the list is empty.
 */
export function tailFrom(rows: readonly LogLike[], rangeFrom: string | undefined): string | undefined {
  const newest = rows[0];
  if (!newest) return rangeFrom;
  const t = Date.parse(newest.timestamp) - TAIL_OVERLAP_MS;
  const floor = rangeFrom ? Date.parse(rangeFrom) : -Infinity;
  return new Date(Math.max(t, floor)).toISOString();
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
