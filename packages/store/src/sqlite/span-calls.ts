import type { Database } from 'better-sqlite3';
import type { RollupDelta } from '../rollups.js';

/**
 * Who called a controller span, for the service map (schema.ts 20, ../call-rollups.ts), inside the ingest
 * transaction: `caller_app` 0 its own application, the caller's id once its parent is found in another
 * application of the project, -1 while the parent is stored nowhere (the partial index `spans_waiting_caller`).
 * Each call is counted when the second of the two spans is stored, so exactly once.
 */

/** A controller span waiting for its parent to know who called it. */
interface WaitingCall {
  applicationId: number;
  spanId: string;
  parent: string;
  ts: number;
  durationMs: number | null;
  status: number | null;
}

/** A controller span of the batch's application whose parent the batch stores (ingest.ts `children`). */
export interface ChildCall {
  spanId: string;
  ts: number;
  durationMs: number | null;
  status: number | null;
  /** Its `caller_app`: NULL when stored before schema 20. */
  callerApp: number | null;
}

/** The calls' part of one span batch of `applicationId` (one per batch: it reads the project's applications once). */
export interface BatchCalls {
  /** The caller of a controller span whose parent is not in its application: the application holding it, or -1. */
  callerOf(traceId: string, parent: string): number;
  /** A span's parent stored now in its own application: no call (one counted for that id elsewhere comes out). */
  ownParent(traceId: string, child: ChildCall): void;
  /** The waiting spans of other applications whose parent the batch stored: calls from this application. */
  resolveWaiting(traceIds: Iterable<string>, stored: (traceId: string, spanId: string) => boolean): void;
}

/** The reads of a batch's calls, each on an index (their plans are asserted in sqlite.test.ts). */
export const SPAN_CALLS_SQL = {
  otherApps: 'SELECT id FROM applications WHERE project_id = ? AND id != ?',
  spanStored: 'SELECT 1 FROM spans WHERE application_id = ? AND trace_id = ? AND span_id = ?',
  waiting: `SELECT application_id AS applicationId, span_id AS spanId, parent_span_id AS parent, ts, duration_ms AS durationMs,
    status FROM spans WHERE project_id = ? AND trace_id = ? AND caller_app = -1 AND application_id != ?`,
} as const;

export function createSpanCalls(db: Database): (projectId: number, applicationId: number, rollups: RollupDelta) => BatchCalls {
  const q = {
    otherApps: db.prepare<[number, number], number>(SPAN_CALLS_SQL.otherApps).pluck(),
    spanStored: db.prepare<[number, string, string], number>(SPAN_CALLS_SQL.spanStored).pluck(),
    waiting: db.prepare<[number, string, number], WaitingCall>(SPAN_CALLS_SQL.waiting),
    setCaller: db.prepare<[number, number, string, string]>('UPDATE spans SET caller_app = ? WHERE application_id = ? AND trace_id = ? AND span_id = ?'),
  };
  return (projectId, applicationId, rollups) => {
    let others: number[] | undefined;
    const otherApps = (): number[] => (others ??= q.otherApps.all(projectId, applicationId));
    return {
      // A primary-key probe per other application of the project.
      callerOf: (traceId, parent) => otherApps().find((app) => q.spanStored.get(app, traceId, parent) !== undefined) ?? -1,
      ownParent(traceId, child) {
        if (child.callerApp !== null && child.callerApp > 0) rollups.calls.add(projectId, applicationId, child.callerApp, child, -1);
        if (child.callerApp !== null && child.callerApp !== 0) q.setCaller.run(0, applicationId, traceId, child.spanId);
      },
      resolveWaiting(traceIds, stored) {
        // A project of one application has none (its own waiting spans end through ownParent): no probe at all.
        if (otherApps().length === 0) return;
        for (const traceId of traceIds) {
          for (const w of q.waiting.all(projectId, traceId, applicationId)) {
            if (!stored(traceId, w.parent)) continue;
            q.setCaller.run(applicationId, w.applicationId, traceId, w.spanId);
            rollups.calls.add(projectId, w.applicationId, applicationId, w, 1);
          }
        }
      },
    };
  };
}
