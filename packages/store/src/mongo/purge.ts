import { IDEMPOTENCY_WINDOW_MS } from '../sqlite/ingest.js';
import { minuteOf } from '../rollups.js';
import type { Collections } from './collections.js';
import { dropSegmentsBefore } from './log-merge.js';
import { completeFoundCalls, takeOutCalls } from './call-ops.js';
import { completeFound, settle } from './rollup-ops.js';
import { dropRollupsBefore } from './rollups.js';

/** Trace records deleted per round, so that one round's `$in` stays small. */
const CHUNK = 1000;

/**
 * Deletes telemetry older than the cut-off, as the SQLite store does: a trace record goes with all its spans
 * when its timestamp (its earliest span's) is before the cut-off; logs by their own time (and the segments of
 * their search index whose logs are all older: log-merge.ts); idempotency keys once
 * out of their window. Returns the number of trace records and logs deleted.
 *
 * A round deletes the spans first and the records last, so a purge interrupted half-way finds the same records
 * again next time. The TTL indexes do the same work continuously on a real MongoDB; this is the explicit
 * equivalent the writer's retention job (and the tests) call.
 *
 * Metrics rollups: before a round deletes spans, it completes the rollup operations (and call operations) under
 * way on them and takes its entry spans, and the calls they received, at or after the cut-off's minute out of the
 * rollups that stay (a trace starting before the cut-off may run past it); then the rollups of minutes (and hours)
 * wholly before the cut-off go (rollups.ts).
 */
export function createPurger(c: Collections, now: () => number): (cutoffMs: number) => Promise<number> {
  return async (cutoffMs) => {
    const cutoff = new Date(cutoffMs);
    let deleted = 0;
    for (;;) {
      const old = await c.traces.find({ ts: { $lt: cutoff } }, { projection: { _id: 1 }, limit: CHUNK }).toArray();
      if (old.length === 0) break;
      const keys = old.map((t) => t._id);
      // The purged traces' spans still waiting for their caller wait no more: a writer deciding one from now on
      // finds it decided (call-ops.ts decides only from -1), and one that decided it before shows below, its call
      // operation under way or counted, and is taken out like any other.
      await c.spans.updateMany({ traceKey: { $in: keys }, callerApp: -1, callOp: '' }, { $set: { callerApp: 0 }, $unset: { callOp: '' } });
      const flagged = await c.spans.find({ traceKey: { $in: keys }, $or: [{ counted: true }, { op: { $exists: true } }, { callCounted: true }, { callOp: { $gt: '' } }] },
        { projection: { _id: 1, ts: 1, op: 1, callOp: 1 } }).toArray();
      for (const op of new Set(flagged.flatMap((s) => (s.op === undefined ? [] : [s.op])))) await completeFound(c, op);
      await completeFoundCalls(c, flagged);
      const later = flagged.filter((s) => s.ts.getTime() >= minuteOf(cutoffMs)).map((s) => s._id);
      await settle(c, [], later);
      await takeOutCalls(c, later);
      await c.spans.deleteMany({ traceKey: { $in: keys } });
      const round = (await c.traces.deleteMany({ _id: { $in: keys }, ts: { $lt: cutoff } })).deletedCount;
      deleted += round;
      if (old.length < CHUNK || round === 0) break;
    }
    deleted += (await c.logs.deleteMany({ ts: { $lt: cutoff } })).deletedCount;
    await dropSegmentsBefore(c, cutoff);
    await dropRollupsBefore(c, cutoffMs);
    await c.idempotencyKeys.deleteMany({ createdAt: { $lt: new Date(now() - IDEMPOTENCY_WINDOW_MS) } });
    return deleted;
  };
}
