import type { Database } from 'better-sqlite3';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { planRollupRead } from '../rollup-plan.js';
import type { CellRange } from '../rollup-plan.js';
import { CellMerger } from '../rollups.js';
import { Deadline, StatementCache, Where, turn, visibleProjects } from './paging.js';
import { CALL_TABLES, OPERATION_TABLES, ROLLUP_TABLES, mergeStored } from './rollups.js';
import type { CellRow, RollupTable } from './rollups.js';

/** Rollup rows read per page: a page costs a few milliseconds of the event loop (~20 µs a row with its sketch). */
export const ROLLUP_PAGE_ROWS = 256;

interface RollupRow extends CellRow {
  applicationId: number;
  start: number;
  /** In the per-operation tables. */
  operation?: string;
  /** In the call tables. */
  callerId?: number;
}

/**
 * GET /metrics from the rollups: per visible project, whole hours from the hour rows and the rest of the window
 * (its partial edges, or all of it for buckets under an hour) from the minute rows (rollup-plan.ts), each range of
 * the primary key read in pages of `pageRows` rows with a turn of the event loop between pages, so that a month's
 * read never holds the server: other requests are served between its pages. The pages are separate reads: a batch
 * committed during the read may show in the cells read after it and not in those read before (each cell is whole).
 * The query's budget is checked before each page: past it the read throws 503 read_timeout.
 */
export function createRollupReader(db: Database, pageRows = ROLLUP_PAGE_ROWS): (query: MetricsQuery) => Promise<MetricsCell[]> {
  const cache = new StatementCache(db);

  async function readRange(merger: CellMerger, query: MetricsQuery, projectId: number, table: RollupTable, range: CellRange, deadline: Deadline): Promise<void> {
    // The key after the table's start: the application, and the operation or the caller in the tables that have one.
    const rest = table.extra ? `application_id, ${table.extra}` : 'application_id';
    const columns = table.extra === 'caller_id' ? 'application_id AS applicationId, caller_id AS callerId' : rest.replace('application_id', 'application_id AS applicationId');
    let after: RollupRow | undefined;
    for (;;) {
      deadline.check();
      const where = new Where().add('project_id = ?', projectId).add(`${table.start} < ?`, range.to)
        .maybe('application_id = ?', query.applicationId);
      if (after === undefined) where.add(`${table.start} >= ?`, range.from);
      else if (table.extra) where.add(`(${table.start}, ${rest}) > (?, ?, ?)`, after.start, after.applicationId, after.operation ?? after.callerId);
      else where.add(`(${table.start}, ${rest}) > (?, ?)`, after.start, after.applicationId);
      const sql = `SELECT ${columns}, ${table.start} AS start, requests, errors, sketch
        FROM ${table.table} ${where.sql} ORDER BY ${table.start}, ${rest} LIMIT ${pageRows}`;
      const rows = cache.get<RollupRow>(sql).all(...where.params);
      for (const row of rows) merger.add({ ...row, projectId }, (sketch) => mergeStored(sketch, row.sketch));
      if (rows.length < pageRows) return;
      after = rows[rows.length - 1]!;
      await turn();
    }
  }

  return async (query) => {
    const deadline = new Deadline(query.budgetMs, Date.now(), query.signal);
    const merger = new CellMerger(query);
    const plan = planRollupRead(query);
    const [minutes, hours] = query.byOperation ? OPERATION_TABLES : query.byCaller ? CALL_TABLES : ROLLUP_TABLES;
    for (const projectId of visibleProjects(cache, query.userId, query.projectId)) {
      for (const range of plan.hours) await readRange(merger, query, projectId, hours, range, deadline);
      for (const range of plan.minutes) await readRange(merger, query, projectId, minutes, range, deadline);
    }
    return merger.result();
  };
}
