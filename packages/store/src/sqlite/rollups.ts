import type { Database } from 'better-sqlite3';
import { QuantileSketch } from '@lantern/domain';
import { HOUR_MS, MINUTE_MS } from '../rollups.js';
import type { RollupDelta } from '../rollups.js';
import { createNameKeeper } from './operation-names.js';

/**
 * The rollup tables: per (application, minute) and per (application, hour) (schema.ts, migrations 4 and 5), and
 * the same per operation (migration 19, ../operation-rollups.ts), same columns but the cell's start and the
 * operation. Keys: (project_id, start, application_id[, operation]).
 */
export const ROLLUP_TABLES = [
  { width: MINUTE_MS, table: 'metric_rollups', start: 'minute', extra: null },
  { width: HOUR_MS, table: 'metric_rollups_hourly', start: 'hour', extra: null },
] as const;
export const OPERATION_TABLES = [
  { width: MINUTE_MS, table: 'operation_rollups', start: 'minute', extra: 'operation' },
  { width: HOUR_MS, table: 'operation_rollups_hourly', start: 'hour', extra: 'operation' },
] as const;
/** The calls between applications (migration 20, ../call-rollups.ts): `application_id` is the called one. */
export const CALL_TABLES = [
  { width: MINUTE_MS, table: 'call_rollups', start: 'minute', extra: 'caller_id' },
  { width: HOUR_MS, table: 'call_rollups_hourly', start: 'hour', extra: 'caller_id' },
] as const;
export type RollupTable = (typeof ROLLUP_TABLES)[number] | (typeof OPERATION_TABLES)[number] | (typeof CALL_TABLES)[number];

/** A cell's key: project, start, application, and the operation or the caller in the tables that have one. */
type CellKey = [number, number, number] | [number, number, number, string | number];

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
function cellStatements(db: Database, { table, start, extra }: RollupTable) {
  const key = `project_id, ${start}, application_id${extra ? `, ${extra}` : ''}`;
  const match = `project_id = ? AND ${start} = ? AND application_id = ?${extra ? ` AND ${extra} = ?` : ''}`;
  const marks = extra ? '?, ?, ?, ?' : '?, ?, ?';
  return {
    get: db.prepare<unknown[], CellRow>(`SELECT requests, errors, sketch FROM ${table} WHERE ${match}`),
    put: db.prepare<unknown[]>(`INSERT INTO ${table} (${key}, requests, errors, sketch)
      VALUES (${marks}, ?, ?, ?) ON CONFLICT (${key}) DO UPDATE SET
        requests = excluded.requests, errors = excluded.errors, sketch = excluded.sketch`),
    drop: db.prepare<unknown[]>(`DELETE FROM ${table} WHERE ${match}`),
  };
}
type Cells = ReturnType<typeof cellStatements>;

/** Adds one change to its stored cell (one read, one write); a cell left without requests goes. */
function applyChange(q: Cells, key: CellKey, c: { requests: number; errors: number; sketch: QuantileSketch }): void {
  const row = q.get.get(...key);
  const requests = (row?.requests ?? 0) + c.requests;
  if (requests <= 0) {
    q.drop.run(...key);
    return;
  }
  if (row) mergeStored(c.sketch, row.sketch);
  q.put.run(...key, requests, (row?.errors ?? 0) + c.errors, c.sketch.encode());
}

/**
 * Applies a batch's (or a purge's) rollup changes to the minute and the hour cells, per application and per
 * operation (the names each hour keeps decided first, operation-names.ts): one read and one write per cell,
 * inside the caller's transaction (the rows change with the spans they count, or not at all).
 */
export function createRollupWriter(db: Database): (delta: RollupDelta) => void {
  const tables = ROLLUP_TABLES.map((t) => ({ width: t.width, q: cellStatements(db, t) }));
  const operations = OPERATION_TABLES.map((t) => ({ width: t.width, q: cellStatements(db, t) }));
  const calls = CALL_TABLES.map((t) => ({ width: t.width, q: cellStatements(db, t) }));
  const keepNames = createNameKeeper(db);
  return (delta) => {
    for (const { width, q } of tables) {
      for (const c of delta.changes(width)) applyChange(q, [c.projectId, c.start, c.applicationId], c);
    }
    if (!delta.calls.empty) {
      for (const { width, q } of calls) {
        for (const c of delta.calls.changes(width)) applyChange(q, [c.projectId, c.start, c.applicationId, c.callerId], c);
      }
    }
    if (delta.operations.empty) return;
    const kept = keepNames(delta.operations.hours());
    for (const { width, q } of operations) {
      for (const c of delta.operations.changes(width, kept)) applyChange(q, [c.projectId, c.start, c.applicationId, c.operation], c);
    }
  };
}

/**
 * After the purge dropped the minute rows before `cutoffMinute`: drops the hour rows of hours wholly before it
 * (and the names those hours kept), and rebuilds the hour rows of the hour it falls in (if not on a whole hour)
 * from the minute rows left, per application, per operation and per caller, so that an hour row stays the sum of its minute
 * rows. Runs in one IMMEDIATE transaction.
 */
export function createHourTrimmer(db: Database): (projectId: number, cutoffMinute: number) => void {
  const tables = [ROLLUP_TABLES, OPERATION_TABLES, CALL_TABLES].map(([minutes, hours]) => ({
    hours: cellStatements(db, hours),
    dropBefore: db.prepare<[number, number]>(`DELETE FROM ${hours.table} WHERE project_id = ? AND hour < ?`),
    keys: db.prepare<[number, number], { applicationId: number; extra?: string | number }>(
      `SELECT application_id AS applicationId${hours.extra ? `, ${hours.extra} AS extra` : ''} FROM ${hours.table} WHERE project_id = ? AND hour = ?`),
    minutes: db.prepare<unknown[], CellRow>(`SELECT requests, errors, sketch FROM ${minutes.table}
      WHERE project_id = ? AND minute >= ? AND minute < ? AND application_id = ?${hours.extra ? ` AND ${hours.extra} = ?` : ''}`),
  }));
  const dropNames = db.prepare<[number, number]>('DELETE FROM operation_names WHERE project_id = ? AND hour < ?');
  const trim = db.transaction((projectId: number, cutoffMinute: number) => {
    const hour = Math.floor(cutoffMinute / HOUR_MS) * HOUR_MS;
    dropNames.run(projectId, hour);
    for (const q of tables) {
      q.dropBefore.run(projectId, hour);
      if (hour === cutoffMinute) continue;
      for (const k of q.keys.all(projectId, hour)) {
        const rest = k.extra === undefined ? [] : [k.extra];
        const sum = { requests: 0, errors: 0, sketch: new QuantileSketch() };
        for (const m of q.minutes.iterate(projectId, hour, hour + HOUR_MS, k.applicationId, ...rest)) {
          sum.requests += m.requests;
          sum.errors += m.errors;
          mergeStored(sum.sketch, m.sketch);
        }
        const key = [projectId, hour, k.applicationId, ...rest] as CellKey;
        if (sum.requests <= 0) q.hours.drop.run(...key);
        else q.hours.put.run(...key, sum.requests, sum.errors, sum.sketch.encode());
      }
    }
  });
  // IMMEDIATE, as the purge's other write transactions: the write lock first, never a read upgraded to a write.
  return (projectId, cutoffMinute) => trim.immediate(projectId, cutoffMinute);
}
