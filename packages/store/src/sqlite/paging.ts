import type { Database, Statement } from 'better-sqlite3';
import { errors } from '@lantern/domain';
import type { Cursor, TimeWindow } from '../port.js';

/** Rows per page read by the streams; each page is read with `.all()` so no cursor stays open across a yield. */
export const DEFAULT_PAGE_SIZE = 200;

/**
 * Prepared statements of the reads whose SQL depends on which filters a query uses. Each shape is prepared
 * once, on first use, and kept (there are at most a few dozen shapes).
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement<unknown[], unknown>>();

  constructor(private readonly db: Database) {}

  get<Row>(sql: string): Statement<unknown[], Row> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[], unknown>(sql);
      this.statements.set(sql, statement);
    }
    return statement as Statement<unknown[], Row>;
  }
}

/** A WHERE clause under construction: conditions with their positional parameters. */
export class Where {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  add(condition: string, ...params: unknown[]): this {
    this.conditions.push(condition);
    this.params.push(...params);
    return this;
  }

  /** Adds `condition` only when `value` is given. */
  maybe(condition: string, value: unknown): this {
    return value === undefined || value === null ? this : this.add(condition, value);
  }

  get sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

/**
 * Index rows a sliced read visits per statement (a read whose filters no index serves: `url`, `minDurationMs`,
 * `status`, a log's `applicationId` or text on the scan plan). Each statement walks at most this many rows of the
 * time index and the read goes on from the last one visited, so a filter that matches nothing costs a few
 * milliseconds per statement, with the budget checked and the event loop free between them, not one long scan.
 */
export const SLICE_ROWS = 2000;

/**
 * The time bounds of a newest-first keyset read: rows of the window strictly after `cursor` (older, or as old
 * with a smaller id). The cursor, when inside the window, replaces `to` as the index's upper bound (one of the two
 * always implies the other), so SQLite starts the index scan at the cursor, not at the window's edge: the page
 * at 95 % depth visits as many rows as the first (with both, the planner bounds the scan by `ts < to` and filters
 * the cursor row by row: quadratic paging).
 */
export function newestFirst(where: Where, alias: string, window: TimeWindow, cursor: Cursor | undefined): Where {
  where.maybe(`${alias}.ts >= ?`, window.from);
  if (cursor && (window.to === undefined || cursor.ts < window.to)) return where.add(`(${alias}.ts, ${alias}.id) < (?, ?)`, cursor.ts, cursor.id);
  return where.maybe(`${alias}.ts < ?`, window.to);
}

/**
 * The moment a read must stop (docs/api.md, "Read budgets"): `check` throws 503 read_timeout past it, and the
 * signal's reason once its caller has gone (ReadBudget.signal).
 */
export class Deadline {
  private readonly at: number;

  constructor(private readonly budgetMs: number | undefined, now = Date.now(), private readonly signal?: AbortSignal) {
    this.at = budgetMs === undefined ? Number.POSITIVE_INFINITY : now + budgetMs;
  }

  check(): void {
    this.signal?.throwIfAborted();
    if (Date.now() >= this.at) throw errors.readTimeout(this.budgetMs!);
  }
}

/** A turn of the event loop: what a read on the main thread gives other requests between its statements. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Clamps a caller's limit: undefined means no limit; negative means none at all. */
export function remainingOf(limit: number | undefined): number {
  return limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(limit));
}

/** Joins that keep only rows of projects (`p`) in organizations `userId` (first parameter) belongs to. */
export const VISIBLE = 'JOIN projects p ON p.id = {alias}.project_id JOIN memberships m ON m.organization_id = p.organization_id AND m.user_id = ?';

export function visibleJoin(alias: string): string {
  return VISIBLE.replace('{alias}', alias);
}

/** Ids of the projects `userId` can see, optionally only `projectId`, ascending. */
export function visibleProjects(cache: StatementCache, userId: string, projectId: number | undefined): number[] {
  const where = new Where().maybe('p.id = ?', projectId);
  const sql = `SELECT p.id FROM projects p JOIN memberships m ON m.organization_id = p.organization_id AND m.user_id = ?
    ${where.sql} ORDER BY p.id`;
  return cache.get<number>(sql).pluck().all(userId, ...where.params);
}
