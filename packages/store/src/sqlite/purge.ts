import type { Database } from 'better-sqlite3';
import { guard } from './errors.js';
import { IDEMPOTENCY_WINDOW_MS } from './ingest.js';

/** Rows deleted per transaction, so that a large purge never holds the write lock for long. */
const CHUNK = 2000;

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Deletes telemetry older than the cut-off, project by project and in chunks, yielding to the event loop
 * between chunks so that writes interleave. A trace record goes with all its spans when its timestamp (its
 * earliest span's) is before the cut-off. Returns the number of trace records and logs deleted (spans are
 * parts of trace records; idempotency keys are bookkeeping: neither is counted).
 */
export function createPurger(db: Database, now: () => number): (cutoffMs: number) => Promise<number> {
  const q = {
    projects: db.prepare<[], number>('SELECT id FROM projects ORDER BY id').pluck(),
    oldTraces: db.prepare<[number, number, number], { application_id: number; trace_id: string }>(
      'SELECT application_id, trace_id FROM traces WHERE project_id = ? AND ts < ? LIMIT ?'),
    deleteSpans: db.prepare<[number, string]>('DELETE FROM spans WHERE application_id = ? AND trace_id = ?'),
    deleteTrace: db.prepare<[number, string]>('DELETE FROM traces WHERE application_id = ? AND trace_id = ?'),
    deleteLogs: db.prepare<[number, number, number]>(
      'DELETE FROM logs WHERE rowid IN (SELECT rowid FROM logs WHERE project_id = ? AND ts < ? LIMIT ?)'),
    deleteKeys: db.prepare<[number]>('DELETE FROM idempotency_keys WHERE created_ms < ?'),
  };

  const traceChunk = db.transaction((projectId: number, cutoffMs: number): number => {
    const traces = q.oldTraces.all(projectId, cutoffMs, CHUNK);
    for (const t of traces) {
      q.deleteSpans.run(t.application_id, t.trace_id);
      q.deleteTrace.run(t.application_id, t.trace_id);
    }
    return traces.length;
  });

  async function drain(step: () => number): Promise<number> {
    let total = 0;
    for (;;) {
      const n = guard(step);
      total += n;
      if (n < CHUNK) return total;
      await nextTick();
    }
  }

  return async (cutoffMs) => {
    let deleted = 0;
    for (const projectId of guard(() => q.projects.all())) {
      deleted += await drain(() => traceChunk.immediate(projectId, cutoffMs));
      deleted += await drain(() => q.deleteLogs.run(projectId, cutoffMs, CHUNK).changes);
    }
    guard(() => q.deleteKeys.run(now() - IDEMPOTENCY_WINDOW_MS));
    return deleted;
  };
}
