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

/**
 * The GET /metrics report from the store's cells (per application and bucket, merged from per-minute rollups):
 * the totals merge an application's cells, and every bucket of the window is listed, empty ones included.
 */
export function metricsReport(cells: MetricsCell[], { from, to, bucketMs }: MetricsWindow) {
  const buckets = Math.ceil((to - from) / bucketMs);
  const apps = new Map<number, { projectId: number; total: Cell; series: Map<number, Cell> }>();
  for (const c of cells) {
    let app = apps.get(c.applicationId);
    if (!app) {
      apps.set(c.applicationId, (app = { projectId: c.projectId, total: { requests: 0, errors: 0, sketch: new QuantileSketch() }, series: new Map() }));
    }
    app.total.requests += c.requests;
    app.total.errors += c.errors;
    app.total.sketch.merge(c.sketch);
    app.series.set(Math.floor((c.bucket - from) / bucketMs), c);
  }
  const applications = [...apps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([applicationId, app]) => ({
      applicationId,
      projectId: app.projectId,
      requests: app.total.requests,
      errors: app.total.errors,
      errorRate: errorRate(app.total) ?? 0,
      ...percentiles(app.total),
      series: Array.from({ length: buckets }, (_, i) => {
        const c = app.series.get(i);
        const timestamp = toIso(from + i * bucketMs);
        if (!c) return { timestamp, requests: 0, errors: 0, errorRate: null, p50Ms: null, p95Ms: null, p99Ms: null };
        return { timestamp, requests: c.requests, errors: c.errors, errorRate: errorRate(c), ...percentiles(c) };
      }),
    }));
  return { from: toIso(from), to: toIso(to), bucketMs, applications };
}
