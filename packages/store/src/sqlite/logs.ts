import type { Database } from 'better-sqlite3';
import type { LogEntry, LogLevel } from '@lantern/domain';
import { levelsOf } from '../port.js';
import type { Cursor, LogQuery } from '../port.js';
import { asciiLower } from '../text.js';
import { guard } from './errors.js';
import { chooseLogPlan, logsFrom, trigramQuery } from './log-search.js';
import type { LogPlan, SearchIndex } from './log-search.js';
import { attrsQuery, termsArgument } from './log-attrs.js';
import { Deadline, SLICE_ROWS, StatementCache, Where, newestFirst, remainingOf, turn, visibleJoin, visibleProjects } from './paging.js';

interface LogRow {
  id: string;
  project_id: number;
  application_id: number;
  ts: number;
  data: string;
  /** 1 when the row passes the filters no index serves (always 1 without them). */
  hit: number;
}

/** One project's stream (of one level, when the read names several): a page read ahead, and where the next starts. */
interface Source {
  projectId: number;
  level: LogLevel | undefined;
  rows: LogRow[];
  next: number;
  after: Cursor | undefined;
  exhausted: boolean;
}

/**
 * The FTS5 query that narrows the candidates, if an index can serve the read, the index it is for (the attributes'
 * when the read has a `key=value`, else the message's), and the plan chosen once per read.
 */
export interface Search {
  match: string | undefined;
  plan: LogPlan;
  index?: SearchIndex;
}

/** Newest first: later timestamp first, then larger id. */
function comesBefore(a: LogRow, b: LogRow): boolean {
  return a.ts > b.ts || (a.ts === b.ts && a.id > b.id);
}

function toLog(row: LogRow): LogEntry {
  return { id: row.id, projectId: row.project_id, applicationId: row.application_id, ...(JSON.parse(row.data) as object) } as LogEntry;
}

/**
 * The SQL of one statement of one project's logs, newest first from `after`, its parameters and how many rows it
 * visits at most. The index (the project's, its level's or its trace's) is bounded by the window and the cursor
 * (newestFirst). The filters no index serves (`applicationId`, and the text on the `scan` plan) are not in the
 * WHERE clause: the statement visits the next `sliceRows` logs of the index and marks those that pass (`hit`), so
 * that no statement walks a whole project for a rare match. On the `index` plan the candidates come from logs_fts
 * (at most the plan's bound of them, log-search.ts), whatever the depth. Exported for the tests of its query plan.
 */
export function logPageSql(query: LogQuery, search: Search, projectId: number, after: Cursor | undefined, limit: number,
  sliceRows = SLICE_ROWS, level: LogLevel | undefined = query.level): { sql: string; params: unknown[]; visits: number } {
  const where = new Where()
    .add('l.project_id = ?', projectId)
    .maybe('l.trace_id = ?', query.traceId)
    .maybe('l.level = ?', level);
  newestFirst(where, 'l', query, after);
  const filter = new Where().maybe('l.application_id = ?', query.applicationId);
  // As the url filter of traces: literal, ASCII-case-insensitive, read from the stored JSON. Whichever plan
  // found the candidates (log-search.ts), this exact test decides.
  if (query.messageContains !== undefined) filter.add("instr(lower(json_extract(l.data, '$.message')), ?) > 0", asciiLower(query.messageContains));
  // The attributes, from the log's own hashes (log-attrs.ts), whichever index found the candidates.
  if (query.attributes?.length) filter.add('log_attrs_match(l.data, ?) = 1', termsArgument(query.attributes));
  const from = logsFrom(search.plan, level !== undefined && query.traceId === undefined, search.match, search.index);
  // On the index plan the candidates are few (the plan's bound): the filter narrows them in the WHERE clause.
  const sliced = filter.conditions.length > 0 && search.plan === 'scan';
  if (!sliced && filter.conditions.length > 0) where.add(filter.conditions.join(' AND '), ...filter.params);
  const hit = sliced ? `coalesce(${filter.conditions.join(' AND ')}, 0)` : '1';
  const visits = sliced ? Math.max(limit, sliceRows) : limit;
  const sql = `SELECT l.id, l.project_id, l.application_id, l.ts, l.data, ${hit} AS hit FROM ${from.sql} ${visibleJoin('l')}
    ${where.sql} ORDER BY l.ts DESC, l.id DESC LIMIT ?`;
  return { sql, params: [...(sliced ? filter.params : []), ...from.params, query.userId, ...where.params, visits], visits };
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

  /**
   * The next rows of one project's stream: statements until one gives rows or the project has no more, with the
   * budget checked before each and a turn of the event loop before each (a rare text may take many slices).
   */
  async function refill(query: LogQuery, search: Search, source: Source, limit: number, deadline: Deadline): Promise<void> {
    source.rows = [];
    source.next = 0;
    while (source.rows.length === 0 && !source.exhausted) {
      await turn();
      deadline.check();
      const page = logPageSql(query, search, source.projectId, source.after, limit, SLICE_ROWS, source.level);
      const visited = guard(() => cache.get<LogRow>(page.sql).all(...page.params));
      let last = visited[visited.length - 1];
      for (const row of visited) {
        if (!row.hit) continue;
        source.rows.push(row);
        if (source.rows.length === limit) {
          last = row;
          break;
        }
      }
      source.exhausted = visited.length < page.visits && last === visited[visited.length - 1];
      if (last) source.after = { ts: last.ts, id: last.id };
    }
  }

  return {
    async *streamLogs(query) {
      const deadline = new Deadline(query.budgetMs, Date.now(), query.signal);
      let remaining = remainingOf(query.limit);
      if (remaining === 0) return;
      const projects = guard(() => visibleProjects(cache, query.userId, query.projectId));
      if (projects.length === 0) return;
      // A key-value attribute's postings narrow better than text (an exact pair against trigrams): they lead when asked for.
      const pairs = attrsQuery(query.attributes);
      const index: SearchIndex = pairs !== undefined ? 'attrs' : 'text';
      const match = pairs ?? (query.messageContains === undefined ? undefined : trigramQuery(query.messageContains));
      const planInput = { match, index, limit: Math.min(remaining, pageSize), projects, from: query.from, to: query.to };
      const search: Search = { match, index, plan: guard(() => chooseLogPlan(cache, planInput)) };
      // Rows held in memory stay near a few pages, however many projects the user sees.
      const perSource = Math.max(10, Math.min(pageSize, Math.ceil((pageSize * 4) / Math.max(1, projects.length * (levelsOf(query)?.length ?? 1)))));
      // Several levels: a stream per level, each on its (project, level, ts, id) range, merged like the projects'.
      const levels: Array<LogLevel | undefined> = levelsOf(query) ?? [undefined];
      const sources: Source[] = projects.flatMap((projectId) => levels.map((level) => ({
        projectId, level, rows: [], next: 0, after: query.cursor, exhausted: false,
      })));
      while (remaining > 0) {
        let best: Source | undefined;
        for (const source of sources) {
          if (source.next >= source.rows.length) {
            if (source.exhausted) continue;
            await refill(query, search, source, Math.min(perSource, remaining), deadline);
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
