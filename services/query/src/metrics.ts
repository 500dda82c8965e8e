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
      errorRate: app.total.requests === 0 ? 0 : round2(app.total.errors / app.total.requests)!,
      p50Ms: round2(app.total.sketch.quantile(0.5)),
      p95Ms: round2(app.total.sketch.quantile(0.95)),
      p99Ms: round2(app.total.sketch.quantile(0.99)),
      series: Array.from({ length: buckets }, (_, i) => {
        const c = app.series.get(i);
        return { timestamp: toIso(from + i * bucketMs), requests: c?.requests ?? 0, errors: c?.errors ?? 0, p95Ms: round2(c?.sketch.quantile(0.95) ?? null) };
      }),
    }));
  return { from: toIso(from), to: toIso(to), bucketMs, applications };
}
