import { describe, expect, it } from '@jest/globals';
import type { MetricsReport } from '../src/api/types';
import { volumeOf } from '../src/lib/volume';

const point = (timestamp: string, requests: number, errors = 0) => ({ timestamp, requests, errors, errorRate: null, p50Ms: null, p95Ms: null, p99Ms: null });
const app = (applicationId: number, series: ReturnType<typeof point>[]) => ({
  applicationId, projectId: 1, requests: 0, errors: 0, errorRate: 0, p50Ms: null, p95Ms: null, p99Ms: null, series,
});

describe('volumeOf', () => {
  it('sums every application\'s requests and errors per bucket of the window', () => {
    const report: MetricsReport = {
      from: '2026-11-22T10:00:00.000Z', to: '2026-11-22T10:03:00.000Z', bucketMs: 60_000,
      applications: [
        app(1, [point('2026-11-22T10:00:00.000Z', 5, 1), point('2026-11-22T10:02:00.000Z', 2)]),
        app(2, [point('2026-11-22T10:00:00.000Z', 3), point('2026-11-22T10:01:00.000Z', 4, 4)]),
      ],
    };
    expect(volumeOf(report)).toEqual({
      from: Date.parse(report.from), to: Date.parse(report.to), bucketMs: 60_000, requests: [8, 4, 2], errors: [1, 4, 0], total: 14,
    });
  });

  it('ignores points outside the window, and refuses a window it cannot read', () => {
    const report: MetricsReport = { from: '2026-11-22T10:00:00.000Z', to: '2026-11-22T10:01:00.000Z', bucketMs: 60_000,
      applications: [app(1, [point('2026-11-22T09:59:00.000Z', 9), point('2026-11-22T10:00:00.000Z', 1)])] };
    expect(volumeOf(report)?.requests).toEqual([1]);
    expect(volumeOf({ ...report, to: report.from })).toBeUndefined();
    expect(volumeOf({ ...report, bucketMs: 0 })).toBeUndefined();
  });
});
