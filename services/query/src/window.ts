import { errors } from '@lantern/domain';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The bucket widths of GET /metrics, in minutes: each divides a day, so buckets line up with UTC days. */
export const BUCKET_LADDER_MINUTES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
/** At most this many buckets per series: an hour in minutes, a day in 10 minutes, a week in hours. */
export const MAX_BUCKETS = 200;
/** The longest window, in days: a read of it takes whole hours from the hourly rollups (90 days: 2,160 rows per application). */
export const MAX_WINDOW_DAYS = 90;

export interface MetricsWindow {
  from: number;
  to: number;
  bucketMs: number;
}

const floorTo = (t: number, w: number): number => Math.floor(t / w) * w;
const ceilTo = (t: number, w: number): number => Math.ceil(t / w) * w;

/** GET /metrics/operations takes GET /metrics' buckets while they are this narrow (a window up to 6 h 40 min). */
export const OPERATION_MINUTE_BUCKET_MS = 2 * MINUTE;

/**
 * GET /metrics/operations' window: GET /metrics' while its buckets are of 1 or 2 minutes (up to 6 h 40 min, so the
 * console's "last 6 hours", widened by a bucket, keeps the charts' window); a longer one takes buckets of an hour or
 * more, read from the hour rollups, widened to whole hours. By the minute, a day of 120 operations is 173k rows per
 * read (about 0.8 s on SQLite, docs/benchmarks.md "Metrics per operation"); by the hour, 2,880.
 */
export function operationsWindow(fromParam: number | undefined, toParam: number | undefined, now: number): MetricsWindow {
  const window = metricsWindow(fromParam, toParam, now);
  return window.bucketMs <= OPERATION_MINUTE_BUCKET_MS ? window : metricsWindow(fromParam, toParam, now, 60);
}

/**
 * The window and bucket width of GET /metrics. The width is the narrowest of the ladder giving at most
 * MAX_BUCKETS buckets, and the window is widened to whole buckets (from down, to up), since the store keeps
 * metrics per minute. Without `from`, the window is the hour ending with the bucket (minute) that holds `to`.
 * `minBucketMinutes`: no narrower bucket (operationsWindow).
 */
export function metricsWindow(fromParam: number | undefined, toParam: number | undefined, now: number, minBucketMinutes = 1): MetricsWindow {
  const requestedTo = toParam ?? now;
  const requestedFrom = fromParam ?? requestedTo - HOUR;
  if (requestedFrom >= requestedTo) throw errors.validation('"from" must be before "to".', [{ parameter: 'from' }]);
  if (requestedTo - requestedFrom > MAX_WINDOW_DAYS * DAY) {
    throw errors.validation(`The window from "from" to "to" may be at most ${MAX_WINDOW_DAYS} days.`, [{ parameter: 'from' }]);
  }
  for (const minutes of BUCKET_LADDER_MINUTES) {
    if (minutes < minBucketMinutes) continue;
    const bucketMs = minutes * MINUTE;
    const to = ceilTo(requestedTo, bucketMs);
    const from = fromParam === undefined ? to - HOUR : floorTo(requestedFrom, bucketMs);
    if ((to - from) / bucketMs <= MAX_BUCKETS) return { from, to, bucketMs };
  }
  // Unreachable while MAX_WINDOW_DAYS days fit in MAX_BUCKETS buckets of the widest width.
  const bucketMs = DAY;
  return { from: floorTo(requestedFrom, bucketMs), to: ceilTo(requestedTo, bucketMs), bucketMs };
}
