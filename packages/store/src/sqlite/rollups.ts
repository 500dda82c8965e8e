import type { Database } from 'better-sqlite3';
import { QuantileSketch } from '@lantern/domain';
import { HOUR_MS, MINUTE_MS } from '../rollups.js';
import type { RollupDelta } from '../rollups.js';

/**
 * The two rollup tables: per (application, minute) and per (application, hour), same columns but the cell's
 * start (schema.ts, migrations 4 and 5). Both have the key (project_id, start, application_id).
 */
export const ROLLUP_TABLES = [
  { width: MINUTE_MS, table: 'metric_rollups', start: 'minute' },
  { width: HOUR_MS, table: 'metric_rollups_hourly', start: 'hour' },
] as const;
export type RollupTable = (typeof ROLLUP_TABLES)[number];

export interface CellRow {
  requests: number;
  errors: number;
  /** Varint bytes; JSON text in a row a migration's backfill wrote and no batch has updated since. */
  sketch: Uint8Array | string;
}

export function mergeStored(into: QuantileSketch, stored: Uint8Array | string): void {
  if (typeof stored === 'string') into.mergeArray(JSON.parse(stored) as number[]);
  else into.mergeEncoded(stored);
}

/** Reads, writes and drops one cell of one table. */
function cellStatements(db: Database, { table, start }: RollupTable) {
  return {
    get: db.prepare<[number, number, number], CellRow>(
      `SELECT requests, errors, sketch FROM ${table} WHERE project_id = ? AND ${start} = ? AND application_id = ?`),
    put: db.prepare<[number, number, number, number, number, Uint8Array]>(`INSERT INTO ${table}
      (project_id, ${start}, application_id, requests, errors, sketch) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, ${start}, application_id) DO UPDATE SET
        requests = excluded.requests, errors = excluded.errors, sketch = excluded.sketch`),
    drop: db.prepare<[number, number, number]>(`DELETE FROM ${table} WHERE project_id = ? AND ${start} = ? AND application_id = ?`),
  };
}

/**
 * Applies a batch's (or a purge's) rollup changes to the minute and the hour cells: one read and one write per
 * cell, inside the caller's transaction (the rows change with the spans they count, or not at all). A cell left
 * without requests goes.
 */
export function createRollupWriter(db: Database): (delta: RollupDelta) => void {
  const tables = ROLLUP_TABLES.map((t) => ({ width: t.width, q: cellStatements(db, t) }));
  return (delta) => {
    for (const { width, q } of tables) {
      for (const c of delta.changes(width)) {
        const row = q.get.get(c.projectId, c.start, c.applicationId);
        const requests = (row?.requests ?? 0) + c.requests;
        if (requests <= 0) {
          q.drop.run(c.projectId, c.start, c.applicationId);
          continue;
        }
        if (row) mergeStored(c.sketch, row.sketch);
        q.put.run(c.projectId, c.start, c.applicationId, requests, (row?.errors ?? 0) + c.errors, c.sketch.encode());
      }
    }
  };
}

/**
 * After the purge dropped the minute rows before `cutoffMinute`: drops the hour rows of hours wholly before it,
 * and rebuilds the hour row of the hour it falls in (if not on a whole hour) from the minute rows left, so that
 * an hour row stays the sum of its minute rows. Runs in one IMMEDIATE transaction.
 */
export function createHourTrimmer(db: Database): (projectId: number, cutoffMinute: number) => void {
  const hours = cellStatements(db, ROLLUP_TABLES[1]);
  const q = {
    dropBefore: db.prepare<[number, number]>('DELETE FROM metric_rollups_hourly WHERE project_id = ? AND hour < ?'),
    apps: db.prepare<[number, number], number>('SELECT application_id FROM metric_rollups_hourly WHERE project_id = ? AND hour = ?').pluck(),
    minutes: db.prepare<[number, number, number, number], CellRow>(`SELECT requests, errors, sketch FROM metric_rollups
      WHERE project_id = ? AND minute >= ? AND minute < ? AND application_id = ?`),
  };
  const trim = db.transaction((projectId: number, cutoffMinute: number) => {
    const hour = Math.floor(cutoffMinute / HOUR_MS) * HOUR_MS;
    q.dropBefore.run(projectId, hour);
    if (hour === cutoffMinute) return;
    for (const applicationId of q.apps.all(projectId, hour)) {
      const sum = { requests: 0, errors: 0, sketch: new QuantileSketch() };
      for (const m of q.minutes.iterate(projectId, hour, hour + HOUR_MS, applicationId)) {
        sum.requests += m.requests;
        sum.errors += m.errors;
        mergeStored(sum.sketch, m.sketch);
      }
      if (sum.requests <= 0) hours.drop.run(projectId, hour, applicationId);
      else hours.put.run(projectId, hour, applicationId, sum.requests, sum.errors, sum.sketch.encode());
    }
  });
  // IMMEDIATE, as the purge's other write transactions: the write lock first, never a read upgraded to a write.
  return (projectId, cutoffMinute) => trim.immediate(projectId, cutoffMinute);
}
