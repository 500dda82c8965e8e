import { toIso } from '@lantern/domain';
import { byOperation } from '@lantern/store';
import type { MetricsCell } from '@lantern/store';
import { SeriesBuilder } from './metrics.js';
import type { MetricsWindow } from './window.js';

/** GET /metrics/operations' `limit`: the operations listed, the busiest first. */
export const DEFAULT_OPERATIONS = 100;
export const MAX_OPERATIONS = 500;

interface Group {
  applicationId: number;
  projectId: number;
  operation: string | null;
  series: SeriesBuilder;
}

/** Busiest first; then by application, and by name with the other operations (null) last. */
function busiestFirst(a: Group, b: Group): number {
  if (a.series.requests !== b.series.requests) return b.series.requests - a.series.requests;
  return a.applicationId - b.applicationId || byOperation(a.operation, b.operation);
}

/**
 * The GET /metrics/operations report from the store's per-operation cells: each (application, operation) with its
 * totals, its rate per minute over the part of the window that has passed (`now` cuts a window that ends in the
 * future: the current minute counts as far as it has gone) and its series, the `limit` busiest; `total` counts
 * them all.
 */
export function operationsReport(cells: MetricsCell[], window: MetricsWindow, options: { limit: number; now: number }) {
  const groups = new Map<string, Group>();
  for (const c of cells) {
    const operation = c.operation ?? null;
    const key = `${c.applicationId}:${operation ?? ''}:${operation === null}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { applicationId: c.applicationId, projectId: c.projectId, operation, series: new SeriesBuilder(window) }));
    g.series.add(c);
  }
  // At least a minute: a window that has not begun (or just begun) does not divide by nothing.
  const minutes = Math.max(60_000, Math.min(window.to, options.now) - window.from) / 60_000;
  const listed = [...groups.values()].sort(busiestFirst).slice(0, options.limit);
  return {
    from: toIso(window.from),
    to: toIso(window.to),
    bucketMs: window.bucketMs,
    total: groups.size,
    operations: listed.map((g) => {
      const { requests, ...rest } = g.series.report();
      return { applicationId: g.applicationId, projectId: g.projectId, operation: g.operation, requests, ratePerMinute: Math.round((requests / minutes) * 100) / 100, ...rest };
    }),
  };
}
