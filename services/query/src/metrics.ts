import { QuantileSketch, round2, toIso } from '@lantern/domain';
import type { RootSpanRow } from '@lantern/store';

interface Cell {
  requests: number;
  errors: number;
  sketch: QuantileSketch;
}

const cell = (): Cell => ({ requests: 0, errors: 0, sketch: new QuantileSketch() });

function addTo(c: Cell, row: RootSpanRow): void {
  c.requests++;
  if ((row.responseStatus ?? 0) >= 500) c.errors++;
  c.sketch.add(row.durationMs);
}

/** errors / requests rounded to 2 decimals; null without requests (the total reports 0 instead). */
function errorRate(c: Cell): number | null {
  return c.requests === 0 ? null : round2(c.errors / c.requests);
}

/** p50, p95 and p99 of the cell's durations, rounded to 2 decimals; null without requests. */
function percentiles(c: Cell): { p50Ms: number | null; p95Ms: number | null; p99Ms: number | null } {
  return { p50Ms: round2(c.sketch.quantile(0.5)), p95Ms: round2(c.sketch.quantile(0.95)), p99Ms: round2(c.sketch.quantile(0.99)) };
}

/** A bucket width giving at most 60 buckets, in whole minutes (at least one). */
export function bucketWidth(from: number, to: number): number {
  return Math.max(1, Math.ceil((to - from) / 60 / 60_000)) * 60_000;
}

/**
 * Per-application request metrics from root spans, in memory bounded by applications x buckets (each
 * percentile sketch is bounded), however many spans stream through.
 */
export async function aggregateMetrics(rows: AsyncIterable<RootSpanRow>, from: number, to: number) {
  const bucketMs = bucketWidth(from, to);
  const buckets = Math.ceil((to - from) / bucketMs);
  const apps = new Map<number, { projectId: number; total: Cell; series: Map<number, Cell> }>();
  for await (const row of rows) {
    let app = apps.get(row.applicationId);
    if (!app) apps.set(row.applicationId, (app = { projectId: row.projectId, total: cell(), series: new Map() }));
    addTo(app.total, row);
    const b = Math.floor((row.ts - from) / bucketMs);
    let c = app.series.get(b);
    if (!c) app.series.set(b, (c = cell()));
    addTo(c, row);
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
