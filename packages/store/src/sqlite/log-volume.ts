import type { Database } from 'better-sqlite3';
import type { LogLevel } from '@lantern/domain';
import { levelsOf } from '../port.js';
import type { LogVolumeCell, LogVolumeQuery } from '../port.js';
import { Deadline, StatementCache, Where, turn, visibleProjects } from './paging.js';

/** Rows of log_rollups read per statement: a few milliseconds of the event loop, then a turn for other requests. */
export const VOLUME_PAGE_ROWS = 2000;

interface Row { minute: number; applicationId: number; level: LogLevel; count: number }

/**
 * GET /logs/volume from log_rollups (schema.ts, 16): the project's rows of the window, in primary-key order, a page at
 * a time with a turn of the event loop between pages and the read's budget checked before each, summed into the
 * query's buckets. A week of one application at five levels is ~50k rows (about 25 pages).
 */
export function createLogVolumeReader(db: Database, pageRows = VOLUME_PAGE_ROWS): (query: LogVolumeQuery) => Promise<LogVolumeCell[]> {
  const cache = new StatementCache(db);
  return async (query) => {
    const deadline = new Deadline(query.budgetMs, Date.now(), query.signal);
    if (!visibleProjects(cache, query.userId, query.projectId).includes(query.projectId)) return [];
    const levels = levelsOf(query);
    const cells = new Map<string, LogVolumeCell>();
    let after: Row | undefined;
    for (;;) {
      deadline.check();
      const where = new Where().add('project_id = ?', query.projectId).add('minute < ?', query.to)
        .maybe('application_id = ?', query.applicationId);
      if (levels) where.add(`level IN (${levels.map(() => '?').join(', ')})`, ...levels);
      if (after === undefined) where.add('minute >= ?', query.from);
      else where.add('(minute, application_id, level) > (?, ?, ?)', after.minute, after.applicationId, after.level);
      const rows = cache.get<Row>(`SELECT minute, application_id AS applicationId, level, count FROM log_rollups ${where.sql}
        ORDER BY minute, application_id, level LIMIT ${pageRows}`).all(...where.params);
      for (const r of rows) {
        const start = query.from + Math.floor((r.minute - query.from) / query.bucketMs) * query.bucketMs;
        const key = `${start}:${r.applicationId}:${r.level}`;
        const cell = cells.get(key);
        if (cell) cell.count += r.count;
        else cells.set(key, { start, applicationId: r.applicationId, level: r.level, count: r.count });
      }
      if (rows.length < pageRows) break;
      after = rows[rows.length - 1];
      await turn();
    }
    return [...cells.values()].sort((a, b) => a.start - b.start || a.applicationId - b.applicationId || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  };
}

const LEVEL_ORDER: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5 };
