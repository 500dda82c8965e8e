import { QuantileSketch } from '@lantern/domain';
import type { MetricsCell, MetricsQuery } from './port.js';

/** The width of a rollup cell: metrics are aggregated per (application, minute) when spans are written. */
export const MINUTE_MS = 60_000;

/** The start of the minute of `ts` (epoch ms). */
export const minuteOf = (ts: number): number => Math.floor(ts / MINUTE_MS) * MINUTE_MS;

/** What an entry span brings to its rollup cell. */
export interface EntrySpan {
  ts: number;
  durationMs: number | null;
  status: number | null;
}

/** The change a batch (or a purge) makes to the rollups, per (application, minute). */
export interface RollupChange {
  projectId: number;
  applicationId: number;
  minute: number;
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

  add(projectId: number, applicationId: number, span: EntrySpan, sign: 1 | -1): void {
    const minute = minuteOf(span.ts);
    const key = `${applicationId}:${minute}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      this.cells.set(key, (cell = { projectId, applicationId, minute, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    }
    cell.requests += sign;
    if (isError(span.status)) cell.errors += sign;
    cell.sketch.add(span.durationMs ?? 0, sign);
  }

  /** The cells that change (a span added and taken out again in one batch changes nothing). */
  changes(): RollupChange[] {
    return [...this.cells.values()].filter((c) => c.requests !== 0 || c.sketch.toArray().some((n) => n !== 0));
  }
}

/** An error status: what `errors` counts. */
export const isError = (status: number | null | undefined): boolean => (status ?? 0) >= 500;

/**
 * Groups minute rows into the query's buckets, merging each (application, bucket): `bucketMs` wide from
 * `from`. Rows without requests (everything they counted was taken out again) are left out.
 */
export class CellMerger {
  private readonly cells = new Map<string, MetricsCell>();

  constructor(private readonly query: MetricsQuery) {}

  add(row: { projectId: number; applicationId: number; minute: number; requests: number; errors: number }, sketch: (into: QuantileSketch) => void): void {
    if (row.requests <= 0) return;
    const bucket = this.query.from + Math.floor((row.minute - this.query.from) / this.query.bucketMs) * this.query.bucketMs;
    const key = `${row.applicationId}:${bucket}`;
    let cell = this.cells.get(key);
    if (cell === undefined) {
      this.cells.set(key, (cell = { projectId: row.projectId, applicationId: row.applicationId, bucket, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    }
    cell.requests += row.requests;
    cell.errors += row.errors;
    sketch(cell.sketch);
  }

  /** By application, then bucket. */
  result(): MetricsCell[] {
    return [...this.cells.values()].sort((a, b) => a.applicationId - b.applicationId || a.bucket - b.bucket);
  }
}
