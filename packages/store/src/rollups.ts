import { QuantileSketch } from '@lantern/domain';
import { CallCells } from './call-rollups.js';
import { widen } from './rollup-widen.js';
import { OperationCells } from './operation-rollups.js';
import type { MetricsCell, MetricsQuery } from './port.js';

/**
 * The widths of the rollup cells: metrics are aggregated per (application, minute) and per (application, hour)
 * when spans are written, so that a long window reads whole hours from hour cells and only its edges from
 * minute cells (rollup-plan.ts). An hour cell always holds the sum of the minute cells of its hour.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

/** The start of the minute of `ts` (epoch ms). */
export const minuteOf = (ts: number): number => Math.floor(ts / MINUTE_MS) * MINUTE_MS;
/** The start of the hour of `ts` (epoch ms). */
export const hourOf = (ts: number): number => Math.floor(ts / HOUR_MS) * HOUR_MS;

/** What an entry span brings to its rollup cell. */
export interface EntrySpan {
  ts: number;
  durationMs: number | null;
  status: number | null;
  /**
   * Its operationOf as stored with the span ('' without a name), counted in the per-operation rollups too;
   * null or absent for a span stored before they existed, counted per application only.
   */
  operation?: string | null;
}

/** The change a batch (or a purge) makes to the rollups, per (application, cell): a minute or an hour. */
export interface RollupChange {
  projectId: number;
  applicationId: number;
  /** The cell's start: a minute, or an hour for `changes(HOUR_MS)`. */
  start: number;
  requests: number;
  errors: number;
  sketch: QuantileSketch;
}

/**
 * Changes to the rollups accumulated in memory, so that a batch of spans makes one write per cell it touches
 * (the spans of a batch are mostly of one or two minutes). `sign` -1 takes an entry span out again.
 */
export class RollupDelta {
  private readonly cells = new Map<string, RollupChange>();
  /** The same changes per operation (operation-rollups.ts). */
  readonly operations = new OperationCells();
  /** Calls between applications (call-rollups.ts): added apart, when an entry span's caller is known. */
  readonly calls = new CallCells();

  add(projectId: number, applicationId: number, span: EntrySpan, sign: 1 | -1): void {
    const minute = minuteOf(span.ts);
    const key = `${applicationId}:${minute}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      this.cells.set(key, (cell = { projectId, applicationId, start: minute, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    }
    cell.requests += sign;
    if (isError(span.status)) cell.errors += sign;
    cell.sketch.add(span.durationMs ?? 0, sign);
    if (typeof span.operation === 'string') {
      this.operations.add(projectId, applicationId, minute, span.operation, span.durationMs, isError(span.status), sign);
    }
  }

  /**
   * The cells of `width` (MINUTE_MS or HOUR_MS) that change, the minute changes summed per hour for HOUR_MS (a span
   * added and taken out again in one batch changes nothing), as new objects each call.
   */
  changes(width: number = MINUTE_MS): RollupChange[] {
    return widen(this.cells.values(), width, (c, start) => `${c.applicationId}:${start}`);
  }
}

/** An error status: what `errors` counts. */
export const isError = (status: number | null | undefined): boolean => (status ?? 0) >= 500;

/**
 * Groups rollup rows (minutes, or hours wholly inside one bucket) into the query's buckets, merging each
 * (application, bucket), or (application, operation, bucket) for `byOperation`: `bucketMs` wide from `from`. Rows
 * without requests (everything they counted was taken out again) are left out.
 */
export class CellMerger {
  private readonly cells = new Map<string, MetricsCell>();

  constructor(private readonly query: MetricsQuery) {}

  add(row: { projectId: number; applicationId: number; start: number; requests: number; errors: number; operation?: string; callerId?: number },
    sketch: (into: QuantileSketch) => void): void {
    if (row.requests <= 0) return;
    const bucket = this.query.from + Math.floor((row.start - this.query.from) / this.query.bucketMs) * this.query.bucketMs;
    const operation = this.query.byOperation ? (row.operation || null) : undefined;
    const caller = this.query.byCaller ? row.callerId : undefined;
    const key = `${row.applicationId}:${bucket}:${operation ?? ''}:${operation === null}:${caller ?? ''}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      cell = { projectId: row.projectId, applicationId: row.applicationId, bucket, requests: 0, errors: 0, sketch: new QuantileSketch() };
      if (operation !== undefined) cell.operation = operation;
      if (caller !== undefined) cell.callerApplicationId = caller;
      this.cells.set(key, cell);
    }
    cell.requests += row.requests;
    cell.errors += row.errors;
    sketch(cell.sketch);
  }

  /** By application, then operation (OTHER_OPERATIONS' null last) or caller, then bucket. */
  result(): MetricsCell[] {
    return [...this.cells.values()].sort((a, b) => a.applicationId - b.applicationId || byOperation(a.operation, b.operation)
      || (a.callerApplicationId ?? 0) - (b.callerApplicationId ?? 0) || a.bucket - b.bucket);
  }
}

/** Operation names in code-unit order, null (the other operations) after every name. */
export function byOperation(a: string | null | undefined, b: string | null | undefined): number {
  if (a === b) return 0;
  if (a == null) return b == null ? 0 : 1;
  if (b == null) return -1;
  return a < b ? -1 : 1;
}
