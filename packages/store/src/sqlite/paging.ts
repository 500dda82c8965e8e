import type { Database, Statement } from 'better-sqlite3';
import type { Cursor } from '../port.js';

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

/** Newest-first keyset: rows strictly after `cursor`, i.e. older, or as old with a smaller id. */
export function afterCursor(where: Where, alias: string, cursor: Cursor | undefined): Where {
  return cursor ? where.add(`(${alias}.ts, ${alias}.id) < (?, ?)`, cursor.ts, cursor.id) : where;
}

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
