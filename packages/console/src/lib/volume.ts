/**
 * The traces chart's request volume over the whole window, from the server's buckets (GET /metrics), not from the
 * traces loaded: every application's requests and errors summed per bucket. Pure: unit-tested in
 * packages/console/test/volume.test.ts.
 */
import type { MetricsReport } from '../api/types';

export interface Volume {
  /** The window, epoch ms, whole buckets. */
  from: number;
  to: number;
  bucketMs: number;
  /** Per bucket from `from`: requests and errors (status >= 500) of every application. */
  requests: number[];
  errors: number[];
  total: number;
}

export function volumeOf(report: MetricsReport): Volume | undefined {
  const from = Date.parse(report.from);
  const to = Date.parse(report.to);
  const { bucketMs } = report;
  if (!Number.isFinite(from) || !Number.isFinite(to) || !(bucketMs > 0) || to <= from) return undefined;
  const n = Math.ceil((to - from) / bucketMs);
  const requests = new Array<number>(n).fill(0);
  const errors = new Array<number>(n).fill(0);
  let total = 0;
  for (const app of report.applications) {
    for (const p of app.series) {
      const i = Math.floor((Date.parse(p.timestamp) - from) / bucketMs);
      if (!(i >= 0 && i < n)) continue;
      requests[i]! += p.requests;
      errors[i]! += p.errors;
      total += p.requests;
    }
  }
  return { from, to, bucketMs, requests, errors, total };
}
