import { LOG_LEVELS, toIso, type LogLevel } from '@lantern/domain';
import type { LogVolumeCell } from '@lantern/store';
import type { MetricsWindow } from './window.js';

/** GET /logs/volume's answer: the window's logs per bucket and level, and the level and application counts of it all. */
export interface LogVolumeReport {
  from: string;
  to: string;
  bucketMs: number;
  total: number;
  /** Every level, in the contract's order, with its count (0 included): the level facet. */
  levels: Array<{ level: LogLevel; count: number }>;
  /** The applications with logs in the window, most first (then by id): the application facet. */
  applications: Array<{ applicationId: number; count: number }>;
  /** Every bucket of the window, oldest first, with its count per level (the levels it has). */
  buckets: Array<{ timestamp: string; total: number; levels: Partial<Record<LogLevel, number>> }>;
}

export function logVolumeReport(cells: readonly LogVolumeCell[], window: MetricsWindow): LogVolumeReport {
  const n = Math.round((window.to - window.from) / window.bucketMs);
  const buckets = Array.from({ length: n }, (_, i) => ({ timestamp: toIso(window.from + i * window.bucketMs), total: 0, levels: {} as Partial<Record<LogLevel, number>> }));
  const levels = new Map<LogLevel, number>(LOG_LEVELS.map((l) => [l, 0]));
  const applications = new Map<number, number>();
  let total = 0;
  for (const c of cells) {
    const bucket = buckets[Math.floor((c.start - window.from) / window.bucketMs)];
    if (!bucket) continue;
    bucket.total += c.count;
    bucket.levels[c.level] = (bucket.levels[c.level] ?? 0) + c.count;
    levels.set(c.level, (levels.get(c.level) ?? 0) + c.count);
    applications.set(c.applicationId, (applications.get(c.applicationId) ?? 0) + c.count);
    total += c.count;
  }
  return {
    from: toIso(window.from), to: toIso(window.to), bucketMs: window.bucketMs, total,
    levels: LOG_LEVELS.map((level) => ({ level, count: levels.get(level) ?? 0 })),
    applications: [...applications].map(([applicationId, count]) => ({ applicationId, count })).sort((a, b) => b.count - a.count || a.applicationId - b.applicationId),
    buckets,
  };
}
