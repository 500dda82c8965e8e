import type { Database } from 'better-sqlite3';
import { toIso } from '@lantern/domain';
import type { Span, TraceRecord } from '@lantern/domain';
import type { Cursor, RootSpanQuery, RootSpanRow, TraceQuery } from '../port.js';
import { asciiLower } from '../text.js';
import { guard } from './errors.js';
import { StatementCache, Where, afterCursor, remainingOf, visibleJoin, visibleProjects } from './paging.js';

interface TraceRow {
  id: string;
  project_id: number;
  application_id: number;
  trace_id: string;
  ts: number;
}

interface SpanRow {
  application_id: number;
  trace_id: string;
  data: string;
}

interface RootRow {
  r: number;
  applicationId: number;
  ts: number;
  durationMs: number | null;
  responseStatus: number | null;
}

const traceKey = (applicationId: number, traceId: string): string => `${applicationId}\u0000${traceId}`;

export interface TraceReader {
  streamTraces(query: TraceQuery): AsyncIterable<TraceRecord>;
  streamRootSpans(query: RootSpanQuery): AsyncIterable<RootSpanRow>;
}

export function createTraceReader(db: Database, pageSize: number): TraceReader {
  const cache = new StatementCache(db);
  // The spans of one page of traces, in one query: (application, trace) pairs go in as a JSON array.
  const pageSpans = db.prepare<[string], SpanRow>(`SELECT s.application_id, s.trace_id, s.data
    FROM json_each(?) j JOIN spans s
      ON s.application_id = json_extract(j.value, '$[0]') AND s.trace_id = json_extract(j.value, '$[1]')
    ORDER BY s.application_id, s.trace_id, s.ts, s.span_id`);

  function tracePage(query: TraceQuery, cursor: Cursor | undefined, limit: number): TraceRow[] {
    // With an application or a trace id, the unary `+` keeps the planner off the project's whole index:
    // the application's index (or the primary key, for a trace id) is far narrower.
    const narrower = query.applicationId !== undefined || query.traceId !== undefined;
    const where = new Where().add(narrower ? '+t.project_id = ?' : 't.project_id = ?', query.projectId)
      .maybe('t.ts >= ?', query.from)
      .maybe('t.ts < ?', query.to)
      .maybe('t.application_id = ?', query.applicationId)
      .maybe('t.root_duration_ms >= ?', query.minDurationMs);
    if (query.status) where.add('t.root_status BETWEEN ? AND ?', query.status.min, query.status.max);
    // Literal and ASCII-case-insensitive (../text.ts): instr has no wildcards, lower() folds ASCII only. No index
    // serves a substring: it narrows the rows the other conditions select.
    if (query.urlContains !== undefined) where.add('instr(lower(t.root_url), ?) > 0', asciiLower(query.urlContains));
    // One trace id has at most a record per application of the project: looked up by primary key.
    if (query.traceId !== undefined) {
      where.add('t.trace_id = ? AND t.application_id IN (SELECT a.id FROM applications a WHERE a.project_id = ?)',
        query.traceId, query.projectId);
    }
    afterCursor(where, 't', cursor);
    const sql = `SELECT t.id, t.project_id, t.application_id, t.trace_id, t.ts FROM traces t ${visibleJoin('t')}
      ${where.sql} ORDER BY t.ts DESC, t.id DESC LIMIT ?`;
    return cache.get<TraceRow>(sql).all(query.userId, ...where.params, limit);
  }

  function spansOf(rows: TraceRow[]): Map<string, Span[]> {
    const byTrace = new Map<string, Span[]>();
    const pairs = JSON.stringify(rows.map((row) => [row.application_id, row.trace_id]));
    for (const row of pageSpans.all(pairs)) {
      const key = traceKey(row.application_id, row.trace_id);
      let spans = byTrace.get(key);
      if (spans === undefined) byTrace.set(key, (spans = []));
      spans.push(JSON.parse(row.data) as Span);
    }
    return byTrace;
  }

  function rootPage(query: RootSpanQuery, projectId: number, after: { ts: number; r: number } | undefined, limit: number) {
    // An entry span: a controller span without parent, or whose parent is a span of another application.
    const where = new Where().add('s.project_id = ?', projectId).add('s.controller = 1')
      .add('s.ts >= ?', query.from).add('s.ts < ?', query.to)
      .maybe('s.application_id = ?', query.applicationId)
      .add(`(s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans parent
        WHERE parent.application_id = s.application_id AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id))`);
    if (after) where.add('(s.ts, s.rowid) > (?, ?)', after.ts, after.r);
    const sql = `SELECT s.rowid AS r, s.application_id AS applicationId, s.ts, s.duration_ms AS durationMs,
        s.status AS responseStatus
      FROM spans s ${visibleJoin('s')} ${where.sql} ORDER BY s.ts, s.rowid LIMIT ?`;
    return cache.get<RootRow>(sql).all(query.userId, ...where.params, limit);
  }

  return {
    async *streamTraces(query) {
      let remaining = remainingOf(query.limit);
      let cursor = query.cursor;
      while (remaining > 0) {
        const want = Math.min(pageSize, remaining);
        const rows = guard(() => tracePage(query, cursor, want));
        if (rows.length === 0) return;
        const spans = guard(() => spansOf(rows));
        for (const row of rows) {
          yield {
            id: row.id,
            projectId: row.project_id,
            applicationId: row.application_id,
            traceId: row.trace_id,
            timestamp: toIso(row.ts),
            telemetry: spans.get(traceKey(row.application_id, row.trace_id)) ?? [],
          };
        }
        remaining -= rows.length;
        if (rows.length < want) return;
        const last = rows[rows.length - 1]!;
        cursor = { ts: last.ts, id: last.id };
      }
    },

    /** Project by project (ascending id), each in ascending `ts`. */
    async *streamRootSpans(query) {
      const projects = guard(() => visibleProjects(cache, query.userId, query.projectId));
      for (const projectId of projects) {
        let after: { ts: number; r: number } | undefined;
        for (;;) {
          const rows = guard(() => rootPage(query, projectId, after, pageSize));
          for (const row of rows) {
            yield { projectId, applicationId: row.applicationId, ts: row.ts, durationMs: row.durationMs ?? 0,
              responseStatus: row.responseStatus };
          }
          if (rows.length < pageSize) break;
          const last = rows[rows.length - 1]!;
          after = { ts: last.ts, r: last.r };
        }
      }
    },
  };
}
