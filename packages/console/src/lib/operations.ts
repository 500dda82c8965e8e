/**
 * The Metrics page's table of operations (GET /metrics/operations): its order as kept in the URL (`sort=p95-desc`),
 * the Traces views a row or a bucket of its sparkline opens, the sparkline's bars, and the keyboard's bucket cursor.
 * Pure functions: unit-tested in packages/console/test/operations.test.ts.
 */
import type { MetricsPoint, OperationMetrics } from '../api/types';
import { formatCount } from './format';

export const OPERATION_COLUMNS = ['operation', 'rate', 'errors', 'p50', 'p95', 'p99'] as const;
export type OperationColumn = (typeof OPERATION_COLUMNS)[number];
export type SortDirection = 'ascending' | 'descending';
export interface OperationSort { column: OperationColumn; direction: SortDirection }

/** The server's order: busiest first. Not written in the URL. */
export const DEFAULT_OPERATION_SORT: OperationSort = { column: 'rate', direction: 'descending' };

/** A column's first direction when its heading is clicked: names A to Z, figures highest first. */
const firstDirection = (column: OperationColumn): SortDirection => (column === 'operation' ? 'ascending' : 'descending');

const isColumn = (v: string): v is OperationColumn => (OPERATION_COLUMNS as readonly string[]).includes(v);

/** `sort=<column>` (its first direction) or `sort=<column>-asc|desc`; anything else is the default. */
export function parseOperationSort(raw: string | null | undefined): OperationSort {
  const text = (raw ?? '').trim().toLowerCase();
  const dash = text.lastIndexOf('-');
  const column = dash < 0 ? text : text.slice(0, dash);
  const suffix = dash < 0 ? '' : text.slice(dash + 1);
  if (!isColumn(column) || (suffix !== '' && suffix !== 'asc' && suffix !== 'desc')) return DEFAULT_OPERATION_SORT;
  return { column, direction: suffix === '' ? firstDirection(column) : suffix === 'asc' ? 'ascending' : 'descending' };
}

/** The `sort` param of an order; undefined (dropped) for the default one. */
export function operationSortParam(sort: OperationSort): string | undefined {
  if (sort.column === DEFAULT_OPERATION_SORT.column && sort.direction === DEFAULT_OPERATION_SORT.direction) return undefined;
  return `${sort.column}-${sort.direction === 'ascending' ? 'asc' : 'desc'}`;
}

/** What a click on a column's heading sorts by: that column in its first direction, or the other way when it is on. */
export function nextOperationSort(column: OperationColumn, current: OperationSort): OperationSort {
  if (current.column !== column) return { column, direction: firstDirection(column) };
  return { column, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
}

/** The share of failed requests, exact from the counts (the API's errorRate is rounded to 0.01). */
export function errorShare(op: Pick<OperationMetrics, 'requests' | 'errors' | 'errorRate'>): number {
  return op.requests > 0 ? op.errors / op.requests : op.errorRate;
}

type Key = (op: OperationMetrics) => Array<number | string | null>;

const KEYS: Record<OperationColumn, Key> = {
  operation: (op) => [op.operation, op.applicationId],
  rate: (op) => [op.ratePerMinute, op.requests],
  errors: (op) => [errorShare(op), op.errors],
  p50: (op) => [op.p50Ms],
  p95: (op) => [op.p95Ms],
  p99: (op) => [op.p99Ms],
};

const missing = (v: number | string | null | undefined) => v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v));

/**
 * The rows in `sort`'s order, stably (ties keep the server's order, busiest first). A missing value (no percentile,
 * the other operations' null name) goes last whichever the direction.
 */
export function sortOperations(rows: readonly OperationMetrics[], sort: OperationSort): OperationMetrics[] {
  const key = KEYS[sort.column];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  const keyed = rows.map((row, i) => ({ row, i, k: key(row) }));
  keyed.sort((a, b) => {
    for (let j = 0; j < a.k.length; j++) {
      const x = a.k[j];
      const y = b.k[j];
      const mx = missing(x);
      const my = missing(y);
      if (mx || my) {
        if (mx !== my) return mx ? 1 : -1;
        continue;
      }
      if (x === y) continue;
      const order = typeof x === 'string' && typeof y === 'string' ? x.localeCompare(y, 'en') || (x < y ? -1 : 1) : (x as number) - (y as number);
      return sign * order;
    }
    return a.i - b.i;
  });
  return keyed.map((k) => k.row);
}

/** A row's identity across reads and orders: its application and operation. */
export function operationKey(op: Pick<OperationMetrics, 'applicationId' | 'operation'>): string {
  return op.operation === null ? `${op.applicationId}\u0000other` : `${op.applicationId}\u0000=${op.operation}`;
}

/** Requests per minute as the table shows them: "1,234", "12.5", "0.08", "<0.01". */
export function formatRate(perMinute: number | null | undefined): string {
  if (typeof perMinute !== 'number' || !Number.isFinite(perMinute)) return '–';
  if (perMinute === 0) return '0';
  if (perMinute < 0.01) return '<0.01';
  if (perMinute < 10) return String(Math.round(perMinute * 100) / 100);
  if (perMinute < 100) return String(Math.round(perMinute * 10) / 10);
  return formatCount(Math.round(perMinute));
}

/** Traces page params (router.ts `navigateView`, `hrefInScope`). */
export type TraceViewParams = Record<string, string>;

/**
 * The Traces view of a row: its application's traces of the report's window (whole buckets, so they are the
 * requests counted), with its operation; the other operations (null) have no name to filter by, so theirs is the
 * application's every trace of the window.
 */
export function operationTraces(op: Pick<OperationMetrics, 'applicationId' | 'operation'>, window: { from: string; to: string }): TraceViewParams {
  return { applicationId: String(op.applicationId), ...(op.operation !== null ? { operation: op.operation } : {}), from: window.from, to: window.to };
}

/**
 * The Traces view of one bucket of a row's sparkline (a spike): the row's traces from the bucket's start to its
 * end; when the bucket had errors, its failed ones (status 5xx), which is what a red mark points at.
 */
export function bucketTraces(op: Pick<OperationMetrics, 'applicationId' | 'operation'>, point: Pick<MetricsPoint, 'timestamp' | 'errors'>, bucketMs: number): TraceViewParams {
  const from = Date.parse(point.timestamp);
  return {
    ...operationTraces(op, { from: new Date(from).toISOString(), to: new Date(from + bucketMs).toISOString() }),
    ...(point.errors > 0 ? { status: '5xx' } : {}),
  };
}

/** Coordinates rounded to 2 decimals keep path strings short. */
const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The sparkline's bars in a box `series.length` wide (one unit a bucket) and `height` high, y down: requests per
 * bucket scaled to the row's busiest bucket, and the errors of each bucket as a bar of their own from the bottom (at
 * least `minError` high, so one failure among thousands still shows). Two paths, not a shape per bucket: a table of
 * 100 rows of 200 buckets stays light.
 */
export function sparkPaths(series: readonly Pick<MetricsPoint, 'requests' | 'errors'>[], height: number, minError = 2): { requests: string; errors: string; max: number } {
  const max = series.reduce((m, p) => Math.max(m, p.requests), 0);
  if (max <= 0) return { requests: '', errors: '', max: 0 };
  // A gap between bars only where a bucket is wide enough to show one.
  const inset = series.length <= 60 ? 0.15 : 0;
  const w = r2(1 - 2 * inset);
  const bar = (i: number, h: number) => `M${r2(i + inset)} ${height}v${-r2(h)}h${w}v${r2(h)}z`;
  const requests: string[] = [];
  const errors: string[] = [];
  series.forEach((p, i) => {
    if (p.requests > 0) requests.push(bar(i, Math.max(1, (p.requests / max) * height)));
    if (p.errors > 0) errors.push(bar(i, Math.min(height, Math.max(minError, (p.errors / max) * height))));
  });
  return { requests: requests.join(''), errors: errors.join(''), max };
}

/**
 * The keyboard's bucket cursor on a sparkline: ArrowRight to the next bucket that had requests (from none: the
 * first), ArrowLeft to the previous one (from none: the last); empty buckets are skipped, they have no traces.
 * Undefined for other keys or a series without requests; at an end it stays.
 */
export function bucketStep(series: readonly Pick<MetricsPoint, 'requests'>[], current: number | undefined, key: string): number | undefined {
  if (key !== 'ArrowRight' && key !== 'ArrowLeft') return undefined;
  const busy: number[] = [];
  series.forEach((p, i) => { if (p.requests > 0) busy.push(i); });
  if (!busy.length) return undefined;
  if (key === 'ArrowRight') return current === undefined ? busy[0] : busy.find((i) => i > current) ?? busy.filter((i) => i <= current).pop() ?? busy[0];
  return current === undefined ? busy[busy.length - 1] : [...busy].reverse().find((i) => i < current) ?? busy.find((i) => i >= current) ?? busy[busy.length - 1];
}
