import type { Database } from 'better-sqlite3';
import { guard } from './errors.js';
import type { EntrySpan } from '../rollups.js';
import { RollupDelta, minuteOf } from '../rollups.js';
import { IDEMPOTENCY_WINDOW_MS } from './ingest.js';
import { turn } from './paging.js';
import { createHourTrimmer, createRollupWriter } from './rollups.js';
import { createTraceAttrs, type RecordBefore } from './trace-attrs.js';

/** The calls a purged trace's spans received at or after a minute (schema.ts 20): on the primary key's (application, trace) range. */
export const CALLS_FROM_SQL = `SELECT ts, duration_ms AS durationMs, status, caller_app AS caller FROM spans
  WHERE application_id = ? AND trace_id = ? AND caller_app > 0 AND ts >= ?`;

/** Rows deleted per transaction, so that a large purge never holds the write lock for long. */
const CHUNK = 2000;


/**
 * Deletes telemetry older than the cut-off, project by project and in chunks, yielding to the event loop
 * between chunks so that writes interleave. A trace record goes with all its spans when its timestamp (its
 * earliest span's) is before the cut-off. Returns the number of trace records and logs deleted (spans are
 * parts of trace records; idempotency keys and rollups are bookkeeping: neither is counted).
 *
 * The metrics rollups stay true: the rows of minutes wholly before the cut-off go, and the entry spans a purged
 * trace had at or after the cut-off's minute (a trace starting before the cut-off may run past it) are taken
 * out of the rows that stay (minute and hour rows), in the transaction that deletes them. Then the hour rows
 * before the cut-off's hour go, and the hour row of the cut-off's hour is rebuilt from the minute rows left.
 */
export function createPurger(db: Database, now: () => number): (cutoffMs: number) => Promise<number> {
  const q = {
    projects: db.prepare<[], number>('SELECT id FROM projects ORDER BY id').pluck(),
    oldTraces: db.prepare<[number, number, number], { application_id: number; trace_id: string } & RecordBefore>(
      'SELECT application_id, trace_id, id, ts, attrs FROM traces WHERE project_id = ? AND ts < ? LIMIT ?'),
    deleteSpans: db.prepare<[number, string]>('DELETE FROM spans WHERE application_id = ? AND trace_id = ?'),
    deleteTrace: db.prepare<[number, string]>('DELETE FROM traces WHERE application_id = ? AND trace_id = ?'),
    deleteLogs: db.prepare<[number, number, number]>(
      'DELETE FROM logs WHERE rowid IN (SELECT rowid FROM logs WHERE project_id = ? AND ts < ? LIMIT ?)'),
    deleteKeys: db.prepare<[number]>('DELETE FROM idempotency_keys WHERE created_ms < ?'),
    // After the project's traces: a context whose latest span is before the cut-off has no span left (schema.ts, 13).
    deleteContexts: db.prepare<[number, number, number]>(
      'DELETE FROM span_contexts WHERE id IN (SELECT id FROM span_contexts WHERE project_id = ? AND last_ms < ? LIMIT ?)'),
    entriesFrom: db.prepare<[number, string, number], EntrySpan>(`SELECT s.ts, s.duration_ms AS durationMs, s.status, s.operation
      FROM spans s WHERE s.application_id = ? AND s.trace_id = ? AND s.controller = 1 AND s.ts >= ?
        AND (s.parent_span_id IS NULL OR NOT EXISTS (SELECT 1 FROM spans parent WHERE parent.application_id = s.application_id
          AND parent.trace_id = s.trace_id AND parent.span_id = s.parent_span_id))`),
    deleteRollups: db.prepare<[number, number, number]>(`DELETE FROM metric_rollups WHERE (project_id, minute, application_id) IN
      (SELECT project_id, minute, application_id FROM metric_rollups WHERE project_id = ? AND minute < ? LIMIT ?)`),
    // The calls the purged traces' spans received at or after the cut-off's minute (schema.ts 20).
    callsFrom: db.prepare<[number, string, number], EntrySpan & { caller: number }>(CALLS_FROM_SQL),
    deleteCallRollups: db.prepare<[number, number, number]>(`DELETE FROM call_rollups
      WHERE (project_id, minute, application_id, caller_id) IN (SELECT project_id, minute, application_id, caller_id
        FROM call_rollups WHERE project_id = ? AND minute < ? LIMIT ?)`),
    deleteOperationRollups: db.prepare<[number, number, number]>(`DELETE FROM operation_rollups
      WHERE (project_id, minute, application_id, operation) IN (SELECT project_id, minute, application_id, operation
        FROM operation_rollups WHERE project_id = ? AND minute < ? LIMIT ?)`),
    deleteLogVolume: db.prepare<[number, number, number]>(`DELETE FROM log_rollups WHERE (project_id, minute, application_id, level) IN
      (SELECT project_id, minute, application_id, level FROM log_rollups WHERE project_id = ? AND minute < ? LIMIT ?)`),
  };
  // The cut-off's own minute loses the logs before it: its counts are made again from the logs it keeps.
  const volumeOfMinute = {
    drop: db.prepare<[number, number]>('DELETE FROM log_rollups WHERE project_id = ? AND minute = ?'),
    count: db.prepare<[number, number, number, number]>(`INSERT INTO log_rollups (project_id, minute, application_id, level, count)
      SELECT project_id, ?, application_id, level, count(*) FROM logs WHERE project_id = ? AND ts >= ? AND ts < ? GROUP BY application_id, level`),
  };
  const recountMinute = db.transaction((projectId: number, minute: number) => {
    volumeOfMinute.drop.run(projectId, minute);
    volumeOfMinute.count.run(minute, projectId, minute, minute + 60_000);
  });
  const applyRollups = createRollupWriter(db);
  const attrs = createTraceAttrs(db);
  const trimHours = createHourTrimmer(db);

  const traceChunk = db.transaction((projectId: number, cutoffMs: number): number => {
    const traces = q.oldTraces.all(projectId, cutoffMs, CHUNK);
    const rollups = new RollupDelta();
    for (const t of traces) {
      for (const entry of q.entriesFrom.all(t.application_id, t.trace_id, minuteOf(cutoffMs))) rollups.add(projectId, t.application_id, entry, -1);
      for (const call of q.callsFrom.all(t.application_id, t.trace_id, minuteOf(cutoffMs))) rollups.calls.add(projectId, t.application_id, call.caller, call, -1);
      q.deleteSpans.run(t.application_id, t.trace_id);
      attrs.drop(projectId, t);
      q.deleteTrace.run(t.application_id, t.trace_id);
    }
    applyRollups(rollups);
    return traces.length;
  });

  async function drain(step: () => number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = guard(step);
      total += n;
      if (n < CHUNK) return total;
      await turn();
    }
  }

  return async (cutoffMs) => {
    let deleted = 0;
    for (const projectId of guard(() => q.projects.all())) {
      deleted += await drain(() => traceChunk.immediate(projectId, cutoffMs));
      await drain(() => q.deleteContexts.run(projectId, cutoffMs, CHUNK).changes);
      deleted += await drain(() => q.deleteLogs.run(projectId, cutoffMs, CHUNK).changes);
      await drain(() => q.deleteLogVolume.run(projectId, minuteOf(cutoffMs), CHUNK).changes);
      if (cutoffMs !== minuteOf(cutoffMs)) guard(() => recountMinute.immediate(projectId, minuteOf(cutoffMs)));
      await drain(() => q.deleteRollups.run(projectId, minuteOf(cutoffMs), CHUNK).changes);
      await drain(() => q.deleteOperationRollups.run(projectId, minuteOf(cutoffMs), CHUNK).changes);
      await drain(() => q.deleteCallRollups.run(projectId, minuteOf(cutoffMs), CHUNK).changes);
      guard(() => trimHours(projectId, minuteOf(cutoffMs)));
    }
    guard(() => q.deleteKeys.run(now() - IDEMPOTENCY_WINDOW_MS));
    return deleted;
  };
}
