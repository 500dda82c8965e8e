/**
 * The order of the traces list's loaded rows: the API pages newest first, and the reader may sort what is loaded
 * by a column, as Jaeger sorts its search results. Pure: unit-tested in packages/console/test/trace-sort.test.ts.
 */
import type { TraceSort, TraceSummary } from './trace-list';

type Key = (r: TraceSummary) => number | undefined;

const ORDERS: Record<Exclude<TraceSort, 'newest'>, { key: Key; desc: boolean }> = {
  oldest: { key: (r) => r.startMs, desc: false },
  slowest: { key: (r) => r.durationMs, desc: true },
  fastest: { key: (r) => r.durationMs, desc: false },
  'most-spans': { key: (r) => r.spanCount, desc: true },
  status: { key: (r) => r.status, desc: true },
};

/**
 * The rows in `sort`'s order: 'newest' is the rows as loaded (the API's order); the others sort a copy, stably (ties
 * keep the newest first), with rows missing the value (no root duration, no status) last whichever the direction.
 */
export function sortTraces(rows: readonly TraceSummary[], sort: TraceSort): readonly TraceSummary[] {
  if (sort === 'newest') return rows;
  const { key, desc } = ORDERS[sort];
  const keyed = rows.map((row, i) => ({ row, i, k: key(row) }));
  keyed.sort((a, b) => {
    const ka = a.k;
    const kb = b.k;
    if (ka === undefined || kb === undefined || Number.isNaN(ka) || Number.isNaN(kb)) {
      const ma = ka === undefined || Number.isNaN(ka);
      const mb = kb === undefined || Number.isNaN(kb);
      return ma === mb ? a.i - b.i : ma ? 1 : -1;
    }
    return (desc ? kb - ka : ka - kb) || a.i - b.i;
  });
  return keyed.map((k) => k.row);
}

/** The sort a column's heading sets when clicked: its first direction, or the other one when it is on already. */
export function nextSort(column: 'time' | 'duration' | 'spans' | 'status', current: TraceSort): TraceSort {
  if (column === 'time') return current === 'newest' ? 'oldest' : 'newest';
  if (column === 'duration') return current === 'slowest' ? 'fastest' : 'slowest';
  if (column === 'spans') return current === 'most-spans' ? 'newest' : 'most-spans';
  return current === 'status' ? 'newest' : 'status';
}
