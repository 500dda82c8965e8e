import type { Database } from 'better-sqlite3';
import { toIso } from '@lantern/domain';
import type { Span, TraceRecord } from '@lantern/domain';
import type { Cursor, RootSpanQuery, RootSpanRow, TraceQuery } from '../port.js';
import { PROBE_CAP, filterHash, isKeyHash, rarestFirst } from '../attribute-pairs.js';
import { asciiLower } from '../text.js';
import { guard } from './errors.js';
import { spanJson } from './span-rows.js';
import { hashBytes } from './trace-attrs.js';
import { Deadline, SLICE_ROWS, StatementCache, Where, newestFirst, remainingOf, turn, visibleJoin, visibleProjects } from './paging.js';

interface TraceRow {
  id: string;
  project_id: number;
  application_id: number;
  trace_id: string;
  ts: number;
  /** 1 when the row passes the filters no index serves (always 1 without them). */
  hit: number;
}

interface SpanRow {
  application_id: number;
  trace_id: string;
  data: string;
  /** The span's context (span-rows.ts), or null. */
  context: string | null;
}

interface RootRow {
  r: number;
  applicationId: number;
  ts: number;
  durationMs: number | null;
  responseStatus: number | null;
  operation: string | null;
  hit: number;
}

/** The SQL of one statement of a read, its parameters, and how many index rows it visits at most. */
export interface PageSql {
  sql: string;
  params: unknown[];
  /** The statement's LIMIT: fewer rows back means the read is done. */
  visits: number;
}

const traceKey = (applicationId: number, traceId: string): string => `${applicationId}\u0000${traceId}`;

export interface TraceReader {
  streamTraces(query: TraceQuery): AsyncIterable<TraceRecord>;
  streamRootSpans(query: RootSpanQuery): AsyncIterable<RootSpanRow>;
}

/** The index a trace read walks, in the list's order (ts, id) within its key: the narrowest its filters allow. */
export type TraceDriver = 'trace' | 'attribute' | 'operation' | 'service' | 'status' | 'application' | 'project';

/** The index of each filter's own driver (schema.ts migration 15). */
const DRIVER_INDEX: Partial<Record<TraceDriver, string>> = {
  operation: 'traces_operation', service: 'traces_service', status: 'traces_errors',
};

/** The hundred of a status filter that is one class or one code within a class (`5xx`, `503`); else undefined. */
const statusClass = (status: TraceQuery['status']): number | undefined => {
  if (!status) return undefined;
  const c = Math.floor(status.min / 100);
  return Math.floor(status.max / 100) === c ? c : undefined;
};

/**
 * Which index serves a read: a trace id's primary key, else the first `key=value` attribute's postings (trace_attrs,
 * schema.ts 17), else the operation's, the service's or the failed traces'
 * index (schema.ts migration 15: `5xx` or a code of it), else the application's, else the project's time index. Each
 * keeps the list's order, so the read stops after a page instead of sorting; the other filters are tested on the
 * rows it visits.
 */
export function traceDriver(query: TraceQuery): TraceDriver {
  if (query.traceId !== undefined) return 'trace';
  if (query.attributes?.some((a) => a.value !== undefined)) return 'attribute';
  if (query.operation !== undefined) return 'operation';
  if (query.service !== undefined) return 'service';
  if (statusClass(query.status) === 5) return 'status';
  if (query.applicationId !== undefined) return 'application';
  return 'project';
}

/**
 * One statement of a trace read, newest first from `cursor`, on the index traceDriver picks, bounded by the window
 * and the cursor (newestFirst). When that index is every filter, it reads `limit` records; otherwise it visits the
 * next `sliceRows` records of the index and marks those that pass the other filters (`hit`), so that no statement
 * walks a whole range looking for a rare match. Exported for the tests that read its query plan and count the rows
 * it visits.
 */
export function tracePageSql(query: TraceQuery, cursor: Cursor | undefined, limit: number, sliceRows = SLICE_ROWS): PageSql {
  const driver = traceDriver(query);
  // On the application's index or a trace id's primary key, the unary `+` keeps the planner off the project's
  // whole index; the operation, service and status indexes lead with the project, as the time index does.
  const narrower = driver === 'application' || driver === 'trace';
  const where = new Where();
  const filter = new Where();
  // On the first pair's postings (trace-attrs.ts), in the list's order within its hash; the other terms, and a key
  // alone, are tested on each record's hashes.
  const hashes = (query.attributes ?? []).map(filterHash);
  const driving = driver === 'attribute' ? hashes.find((h) => !isKeyHash(h)) : undefined;
  if (driving !== undefined) where.add('a.project_id = ? AND a.hash = ?', query.projectId, driving);
  else where.add(narrower ? '+t.project_id = ?' : 't.project_id = ?', query.projectId);
  for (const hash of hashes) if (hash !== driving) filter.add('instr(t.attrs, ?) > 0', hashBytes(hash));
  // One trace id has at most a record per application of the project: looked up by primary key.
  if (driver === 'trace') {
    where.add('t.trace_id = ? AND t.application_id IN (SELECT a.id FROM applications a WHERE a.project_id = ?)',
      query.traceId, query.projectId);
  }
  if (driver === 'operation') where.add('t.root_operation = ?', query.operation);
  else filter.maybe('t.root_operation = ?', query.operation);
  if (driver === 'service') where.add('t.root_service = ?', query.service);
  else filter.maybe('t.root_service = ?', query.service);
  // The condition of the failed traces' partial index, written as the index has it.
  if (driver === 'status') where.add('t.root_status >= 500');
  if (driver === 'application' || driver === 'trace') where.maybe('t.application_id = ?', query.applicationId);
  else filter.maybe('t.application_id = ?', query.applicationId);
  newestFirst(where, driver === 'attribute' ? 'a' : 't', query, cursor);
  filter.maybe('t.root_duration_ms >= ?', query.minDurationMs).maybe('t.root_duration_ms <= ?', query.maxDurationMs);
  // An exact code among the failed traces, or a status no index serves.
  if (query.status && !(driver === 'status' && query.status.min === 500 && query.status.max === 599)) {
    filter.add('t.root_status BETWEEN ? AND ?', query.status.min, query.status.max);
  }
  // Literal and ASCII-case-insensitive (../text.ts): instr has no wildcards, lower() folds ASCII only. No index
  // serves a substring: the slices bound it, and the read's budget ends it.
  if (query.urlContains !== undefined) filter.add('instr(lower(t.root_url), ?) > 0', asciiLower(query.urlContains));
  const sliced = filter.conditions.length > 0;
  const hit = sliced ? `coalesce(${filter.conditions.join(' AND ')}, 0)` : '1';
  const visits = sliced ? Math.max(limit, sliceRows) : limit;
  // Named, not left to the planner: without statistics it weighs the time index's range above the class index's
  // expression, and a plan that sorts a whole class would be no bound at all.
  const indexed = DRIVER_INDEX[driver] ? ` INDEXED BY ${DRIVER_INDEX[driver]}` : '';
  // The postings lead (CROSS JOIN: SQLite keeps that order; with another filter the planner would rather walk the
  // project's time index and probe the postings, measured at 2 s at 10M spans); each finds its record by (project, ts, id).
  const from = driver === 'attribute'
    ? 'trace_attrs a CROSS JOIN traces t INDEXED BY traces_project_ts ON t.project_id = a.project_id AND t.ts = a.ts AND t.id = a.id'
    : `traces t${indexed}`;
  const order = driver === 'attribute' ? 'a' : 't';
  const sql = `SELECT t.id, t.project_id, t.application_id, t.trace_id, t.ts, ${hit} AS hit FROM ${from} ${visibleJoin('t')}
    ${where.sql} ORDER BY ${order}.ts DESC, ${order}.id DESC LIMIT ?`;
  return { sql, params: [...filter.params, query.userId, ...where.params, visits], visits };
}

/**
 * One statement of the entry spans of a project, oldest first after `after` (ts, rowid): the cursor bounds the
 * controller index from below (it replaces `from`, which it implies). An entry span's test and the application
 * filter are not in the index: each statement visits `limit` controller spans and marks the entry spans (`hit`).
 */
export function rootPageSql(query: RootSpanQuery, projectId: number, after: { ts: number; r: number } | undefined, limit: number): PageSql {
  const where = new Where().add('s.project_id = ?', projectId).add('s.controller = 1');
  if (after) where.add('(s.ts, s.rowid) > (?, ?)', after.ts, after.r);
  else where.add('s.ts >= ?', query.from);
  where.add('s.ts < ?', query.to);
  const filter = new Where().maybe('s.application_id = ?', query.applicationId)
    .add(`(s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans parent
      WHERE parent.application_id = s.application_id AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id))`);
  const sql = `SELECT s.rowid AS r, s.application_id AS applicationId, s.ts, s.duration_ms AS durationMs,
      s.status AS responseStatus, s.operation, coalesce(${filter.conditions.join(' AND ')}, 0) AS hit
    FROM spans s ${visibleJoin('s')} ${where.sql} ORDER BY s.ts, s.rowid LIMIT ?`;
  return { sql, params: [...filter.params, query.userId, ...where.params, limit], visits: limit };
}

export function createTraceReader(db: Database, pageSize: number): TraceReader {
  const cache = new StatementCache(db);
  // The spans of one page of traces, in one query: (application, trace) pairs go in as a JSON array.
  const pageSpans = db.prepare<[string], SpanRow>(`SELECT s.application_id, s.trace_id, s.data, c.data AS context
    FROM json_each(?) j JOIN spans s
      ON s.application_id = json_extract(j.value, '$[0]') AND s.trace_id = json_extract(j.value, '$[1]')
    LEFT JOIN span_contexts c ON c.id = s.context_id
    ORDER BY s.application_id, s.trace_id, s.ts, s.span_id`);

  function spansOf(rows: TraceRow[]): Map<string, Span[]> {
    const byTrace = new Map<string, Span[]>();
    const pairs = JSON.stringify(rows.map((row) => [row.application_id, row.trace_id]));
    for (const row of pageSpans.all(pairs)) {
      const key = traceKey(row.application_id, row.trace_id);
      let spans = byTrace.get(key);
      if (spans === undefined) byTrace.set(key, (spans = []));
      spans.push(JSON.parse(spanJson(row.data, row.context)) as Span);
    }
    return byTrace;
  }

  const probe = cache.get<number>(`SELECT count(*) FROM (SELECT 1 FROM trace_attrs
    WHERE project_id = ? AND hash = ? AND ts >= ? AND ts < ? LIMIT ${PROBE_CAP})`).pluck();

  return {
    async *streamTraces(asked) {
      const deadline = new Deadline(asked.budgetMs, Date.now(), asked.signal);
      // Several pairs: the rarest one's postings lead (its count in the window, up to PROBE_CAP).
      const query = { ...asked, attributes: await rarestFirst(asked.attributes, (hash) =>
        guard(() => probe.get(asked.projectId, hash, asked.from ?? 0, asked.to ?? Number.MAX_SAFE_INTEGER)!)) };
      let remaining = remainingOf(query.limit);
      let cursor = query.cursor;
      for (let statement = 0; remaining > 0; statement++) {
        if (statement > 0) await turn();
        deadline.check();
        const want = Math.min(pageSize, remaining);
        const page = tracePageSql(query, cursor, want);
        const visited = guard(() => cache.get<TraceRow>(page.sql).all(...page.params));
        // The hits, at most `want`; the next statement starts after the last row taken, or else the last visited.
        const rows: TraceRow[] = [];
        let last = visited[visited.length - 1];
        for (const row of visited) {
          if (!row.hit) continue;
          rows.push(row);
          if (rows.length === want) {
            last = row;
            break;
          }
        }
        if (rows.length > 0) {
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
        }
        if (visited.length < page.visits && last === visited[visited.length - 1]) return;
        cursor = { ts: last!.ts, id: last!.id };
      }
    },

    /** Project by project (ascending id), each in ascending `ts`. */
    async *streamRootSpans(query) {
      const deadline = new Deadline(query.budgetMs, Date.now(), query.signal);
      const projects = guard(() => visibleProjects(cache, query.userId, query.projectId));
      for (const projectId of projects) {
        let after: { ts: number; r: number } | undefined;
        for (;;) {
          deadline.check();
          const page = rootPageSql(query, projectId, after, pageSize);
          const rows = guard(() => cache.get<RootRow>(page.sql).all(...page.params));
          for (const row of rows) {
            if (!row.hit) continue;
            yield { projectId, applicationId: row.applicationId, ts: row.ts, durationMs: row.durationMs ?? 0,
              responseStatus: row.responseStatus, operation: row.operation };
          }
          if (rows.length < page.visits) break;
          const last = rows[rows.length - 1]!;
          after = { ts: last.ts, r: last.r };
          await turn();
        }
      }
    },
  };
}
