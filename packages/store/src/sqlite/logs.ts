import type { Database } from 'better-sqlite3';
import type { LogEntry } from '@lantern/domain';
import type { Cursor, LogQuery } from '../port.js';
import { asciiLower } from '../text.js';
import { guard } from './errors.js';
import { chooseLogPlan, logsFrom, trigramQuery } from './log-search.js';
import type { LogPlan } from './log-search.js';
import { StatementCache, Where, afterCursor, remainingOf, visibleJoin, visibleProjects } from './paging.js';

interface LogRow {
  id: string;
  project_id: number;
  application_id: number;
  ts: number;
  data: string;
}

/** One project's stream: a page of rows read ahead, and where the next page starts. */
interface Source {
  projectId: number;
  rows: LogRow[];
  next: number;
  after: Cursor | undefined;
  exhausted: boolean;
}

/** The FTS5 query of the text filter, if the index can serve it, and the plan chosen once per read. */
export interface Search {
  match: string | undefined;
  plan: LogPlan;
}

/** Newest first: later timestamp first, then larger id. */
function comesBefore(a: LogRow, b: LogRow): boolean {
  return a.ts > b.ts || (a.ts === b.ts && a.id > b.id);
}

function toLog(row: LogRow): LogEntry {
  return { id: row.id, projectId: row.project_id, applicationId: row.application_id, ...(JSON.parse(row.data) as object) } as LogEntry;
}

/**
 * The SQL of one page of one project's logs, newest first, and its parameters. Exported for the test that reads
 * its query plan.
 */
export function logPageSql(query: LogQuery, search: Search, projectId: number, after: Cursor | undefined, limit: number): { sql: string; params: unknown[] } {
  const where = new Where()
    .add('l.project_id = ?', projectId)
    .maybe('l.ts >= ?', query.from)
    .maybe('l.ts < ?', query.to)
    .maybe('l.application_id = ?', query.applicationId)
    .maybe('l.trace_id = ?', query.traceId)
    .maybe('l.level = ?', query.level);
  // As the url filter of traces: literal, ASCII-case-insensitive, read from the stored JSON. Whichever plan
  // found the candidates (log-search.ts), this exact test decides.
  if (query.messageContains !== undefined) where.add("instr(lower(json_extract(l.data, '$.message')), ?) > 0", asciiLower(query.messageContains));
  afterCursor(where, 'l', after);
  const from = logsFrom(search.plan, query.level !== undefined && query.traceId === undefined, search.match);
  const sql = `SELECT l.id, l.project_id, l.application_id, l.ts, l.data FROM ${from.sql} ${visibleJoin('l')}
    ${where.sql} ORDER BY l.ts DESC, l.id DESC LIMIT ?`;
  return { sql, params: [...from.params, query.userId, ...where.params, limit] };
}

export interface LogReader {
  streamLogs(query: LogQuery): AsyncIterable<LogEntry>;
}

/**
 * Logs of several projects come newest first by merging one keyset-paged stream per visible project (each
 * served by the (project_id, ts, id) index, or for a rare text by logs_fts: log-search.ts), so no query ever
 * sorts a whole project's logs.
 */
export function createLogReader(db: Database, pageSize: number): LogReader {
  const cache = new StatementCache(db);

  function page(query: LogQuery, search: Search, projectId: number, after: Cursor | undefined, limit: number): LogRow[] {
    const { sql, params } = logPageSql(query, search, projectId, after, limit);
    return cache.get<LogRow>(sql).all(...params);
  }

  function refill(query: LogQuery, search: Search, source: Source, limit: number): void {
    const rows = guard(() => page(query, search, source.projectId, source.after, limit));
    source.rows = rows;
    source.next = 0;
    source.exhausted = rows.length < limit;
    const last = rows[rows.length - 1];
    if (last) source.after = { ts: last.ts, id: last.id };
  }

  return {
    async *streamLogs(query) {
      let remaining = remainingOf(query.limit);
      if (remaining === 0) return;
      const projects = guard(() => visibleProjects(cache, query.userId, query.projectId));
      if (projects.length === 0) return;
      const match = query.messageContains === undefined ? undefined : trigramQuery(query.messageContains);
      const planInput = { match, limit: Math.min(remaining, pageSize), projects, from: query.from, to: query.to };
      const search: Search = { match, plan: guard(() => chooseLogPlan(cache, planInput)) };
      // Rows held in memory stay near a few pages, however many projects the user sees.
      const perSource = Math.max(10, Math.min(pageSize, Math.ceil((pageSize * 4) / Math.max(1, projects.length))));
      const sources: Source[] = projects.map((projectId) => ({
        projectId, rows: [], next: 0, after: query.cursor, exhausted: false,
      }));
      while (remaining > 0) {
        let best: Source | undefined;
        for (const source of sources) {
          if (source.next >= source.rows.length) {
            if (source.exhausted) continue;
            refill(query, search, source, Math.min(perSource, remaining));
            if (source.rows.length === 0) continue;
          }
          if (best === undefined || comesBefore(source.rows[source.next]!, best.rows[best.next]!)) best = source;
        }
        if (best === undefined) return;
        const row = best.rows[best.next++]!;
        yield toLog(row);
        remaining -= 1;
      }
    },
  };
}
