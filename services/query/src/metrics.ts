import { QuantileSketch, round2, toIso } from '@lantern/domain';
import type { MetricsCell } from '@lantern/store';
import type { MetricsWindow } from './window.js';

interface Cell {
  requests: number;
  errors: number;
  sketch: QuantileSketch;
}

/** errors / requests rounded to 2 decimals; null without requests (the total reports 0 instead). */
function errorRate(c: Cell): number | null {
  return c.requests === 0 ? null : round2(c.errors / c.requests);
}

/** p50, p95 and p99 of the cell's durations, rounded to 2 decimals; null without requests. */
function percentiles(c: Cell): { p50Ms: number | null; p95Ms: number | null; p99Ms: number | null } {
  return { p50Ms: round2(c.sketch.quantile(0.5)), p95Ms: round2(c.sketch.quantile(0.95)), p99Ms: round2(c.sketch.quantile(0.99)) };
}

/** Cells merged: their requests, errors and sketch, and the figures the reports give of them. */
export class Totals implements Cell {
  requests = 0;
  errors = 0;
  readonly sketch = new QuantileSketch();

  add(c: Cell): void {
    this.requests += c.requests;
    this.errors += c.errors;
    this.sketch.merge(c.sketch);
  }

  /** Errors, their rate (0 without requests) and p50, p95 and p99 (null without requests). */
  figures() {
    return { errors: this.errors, errorRate: errorRate(this) ?? 0, ...percentiles(this) };
  }
}

/** Totals and every bucket of the window (empty ones included) of one group of cells (an application, an operation). */
export class SeriesBuilder {
  private readonly total = new Totals();
  private readonly buckets = new Map<number, Cell>();

  constructor(private readonly window: MetricsWindow) {}

  add(c: MetricsCell): void {
    this.total.add(c);
    this.buckets.set(Math.floor((c.bucket - this.window.from) / this.window.bucketMs), c);
  }

  get requests(): number {
    return this.total.requests;
  }

  /** The totals (rates and percentiles) and the series. */
  report() {
    const { from, to, bucketMs } = this.window;
    return {
      requests: this.total.requests,
      ...this.total.figures(),
      series: Array.from({ length: Math.ceil((to - from) / bucketMs) }, (_, i) => {
        const c = this.buckets.get(i);
        const timestamp = toIso(from + i * bucketMs);
        if (!c) return { timestamp, requests: 0, errors: 0, errorRate: null, p50Ms: null, p95Ms: null, p99Ms: null };
        return { timestamp, requests: c.requests, errors: c.errors, errorRate: errorRate(c), ...percentiles(c) };
      }),
    };
  }
}

/**
 * The GET /metrics report from the store's cells (per application and bucket, merged from per-minute rollups):
 * the totals merge an application's cells, and every bucket of the window is listed, empty ones included.
 */
export function metricsReport(cells: MetricsCell[], window: MetricsWindow) {
  const apps = new Map<number, { projectId: number; series: SeriesBuilder }>();
  for (const c of cells) {
    let app = apps.get(c.applicationId);
    if (!app) apps.set(c.applicationId, (app = { projectId: c.projectId, series: new SeriesBuilder(window) }));
    app.series.add(c);
  }
  const applications = [...apps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([applicationId, app]) => ({ applicationId, projectId: app.projectId, ...app.series.report() }));
  return { from: toIso(window.from), to: toIso(window.to), bucketMs: window.bucketMs, applications };
}
