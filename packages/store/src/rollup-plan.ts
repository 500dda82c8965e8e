import { HOUR_MS } from './rollups.js';

/** A range of cell starts, `from` inclusive, `to` exclusive (epoch ms). */
export interface CellRange {
  from: number;
  to: number;
}

/** Which cells a metrics read takes: hour cells for these ranges, minute cells for the rest of the window. */
export interface RollupPlan {
  hours: CellRange[];
  minutes: CellRange[];
}

const ceilHour = (t: number): number => Math.ceil(t / HOUR_MS) * HOUR_MS;
const floorHour = (t: number): number => Math.floor(t / HOUR_MS) * HOUR_MS;

/** Appends a range, joining it to the last one when they touch. */
function push(ranges: CellRange[], from: number, to: number): void {
  if (from >= to) return;
  const last = ranges[ranges.length - 1];
  if (last !== undefined && last.to === from) last.to = to;
  else ranges.push({ from, to });
}

/**
 * The cells that cover the window `[from, to)` in buckets of `bucketMs` from `from`: an hour is read from its hour
 * cell when it lies wholly inside one bucket (and inside the window), and starts at or after `firstHour` (the
 * store's earliest hour whose cells it trusts, e.g. after a retention edge); every other part of the window is
 * read from minute cells. Buckets narrower than an hour hold no whole hour: the window is all minutes.
 * GET /metrics' buckets of an hour or more start on whole hours (window.ts), so there only the window's partial
 * first and last hours are read by the minute.
 */
export function planRollupRead(window: { from: number; to: number; bucketMs: number }, firstHour = Number.NEGATIVE_INFINITY): RollupPlan {
  const plan: RollupPlan = { hours: [], minutes: [] };
  const { from, to, bucketMs } = window;
  if (bucketMs < HOUR_MS) {
    push(plan.minutes, from, to);
    return plan;
  }
  for (let lo = from; lo < to; lo += bucketMs) {
    const hi = Math.min(lo + bucketMs, to);
    const first = Math.max(ceilHour(lo), ceilHour(firstHour));
    const last = floorHour(hi);
    if (first < last) {
      push(plan.minutes, lo, first);
      push(plan.hours, first, last);
      push(plan.minutes, last, hi);
    } else {
      push(plan.minutes, lo, hi);
    }
  }
  return plan;
}
