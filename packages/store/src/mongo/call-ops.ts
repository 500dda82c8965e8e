import type { AnyBulkWriteOperation } from 'mongodb';
import { RollupDelta } from '../rollups.js';
import type { Collections, SpanDoc } from './collections.js';
import { awaitOwner } from './rollup-ops.js';
import { applyDelta, newOpId } from './rollups.js';

/*
 * Counting the service map's calls exactly once without transactions (../call-rollups.ts: an entry span of B whose
 * parent is a span of another application A of the project is a call from A to B, counted once both are stored,
 * whichever comes first). The rollup operations' machinery (rollup-ops.ts), on fields of its own:
 *
 * A controller span with a parent outside its group is stored waiting (`callerApp` -1, `callOp` ''; the partial
 * `call_open` index holds the open ones only). Its caller is decided once, by a conditional update of that one
 * document from waiting to the caller (`callerApp` -1 → A, or → 0 for a parent of its own application): of two
 * writers that find the caller at once, one update matches, the other finds it decided. The update that sets a
 * caller also marks the span with a call operation (`callOp`, an id of `newOpId`): the operation's delta (+1 for
 * each marked span not counted yet, -1 for each counted one: the purge's) is added to the call rollup documents
 * once per id (rollups.ts `applyDelta`, the documents' `ops`), and last each span's `callCounted` flips as its mark
 * goes. Whoever finds a marked span completes that operation first, from the marked spans alone (every completion
 * adds the same, the documents add it once), after its owner's lease (rollup-ops.ts `awaitOwner`, the same gap):
 * the owner's retry (its group's spans, or the open spans under the group's parents, are read again), a writer
 * that comes across it, the purge. A span marked stays open (`call_open`) until its operation is complete, so
 * that the retry of a writer that marked another group's span finds the mark again.
 *
 * Which writer finds the caller, with the caller's span and the called one written at once (two applications: two
 * partitions, possibly two writers): each inserts before it looks. The called span's writer looks up its parent in
 * the other applications of its project (read after the insert: an application is created before its first span);
 * the parent's writer looks up the open spans under the group's spans (`call_open`, by project, trace and parent
 * span id). Whichever looks last sees the other's span: at least one of them decides the caller, one alone counts.
 * Spans stored before this version have no `callerApp`: never waiting, never counted as called (a new span may be
 * their parent: no call).
 */

/** The fields of a span a call operation reads. */
const CALL_FIELDS = { projectId: 1, applicationId: 1, ts: 1, durationMs: 1, status: 1, callerApp: 1, callCounted: 1 } as const;
type CallSpan = Pick<SpanDoc, keyof typeof CALL_FIELDS>;

/** A waiting span whose parent is found: its caller, or 0 for a parent of its own application (no call). */
export interface FoundCaller {
  span: CallSpan & Pick<SpanDoc, '_id'>;
  callerApp: number;
}

/** What a span brings to its call cell, as the callee's entry: its time, latency and status. */
const addCall = (delta: RollupDelta, s: CallSpan, callerApp: number, sign: 1 | -1): void =>
  delta.calls.add(s.projectId, s.applicationId, callerApp, { ts: s.ts.getTime(), durationMs: s.durationMs, status: s.status }, sign);

/**
 * Completes a call operation (its owner after a race, `completeFoundCall`, the purge): adds the delta of its marked
 * spans to the call rollups, then flips their `callCounted` and removes their mark, in one update per span.
 */
export async function completeCallOp(c: Collections, op: string): Promise<void> {
  const spans = await c.spans.find({ callOp: op }, { projection: CALL_FIELDS }).toArray();
  if (spans.length === 0) return;
  const delta = new RollupDelta();
  for (const s of spans) addCall(delta, s, s.callerApp!, s.callCounted ? -1 : 1);
  await applyDelta(c, delta, op);
  // A pipeline: each span flips and loses its mark at once, so a completion again finds it done.
  await c.spans.updateMany({ callOp: op }, [{ $set: { callCounted: { $not: ['$callCounted'] } } }, { $unset: 'callOp' }]);
}

/** Completes a call operation someone else began, once its owner may no longer be marking or completing it. */
async function completeFoundCall(c: Collections, op: string): Promise<void> {
  await awaitOwner(op, async () => (await c.spans.findOne({ callOp: op }, { projection: { _id: 1 } })) !== null);
  await completeCallOp(c, op);
}

/** Completes the call operations under way on these spans ('' is a span waiting, no operation). */
export async function completeFoundCalls(c: Collections, spans: Pick<SpanDoc, 'callOp'>[]): Promise<void> {
  for (const op of new Set(spans.flatMap((s) => (s.callOp ? [s.callOp] : [])))) await completeFoundCall(c, op);
}

/**
 * Decides the callers found, each by a conditional update of a waiting span (the one that matches decides), those
 * of another application marked with a new call operation, which is then completed. When every update matched, the
 * operation's spans are those found (all waiting, so not counted): its delta is theirs, with no read.
 */
export async function decideCallers(c: Collections, found: FoundCaller[]): Promise<void> {
  if (found.length === 0) return;
  const op = newOpId();
  const updates = found.map(({ span, callerApp }): AnyBulkWriteOperation<SpanDoc> => ({ updateOne: {
    filter: { _id: span._id, callerApp: -1 },
    update: callerApp > 0 ? { $set: { callerApp, callOp: op } } : { $set: { callerApp: 0 }, $unset: { callOp: '' } },
  } }));
  const decided = (await c.spans.bulkWrite(updates, { ordered: false })).modifiedCount;
  const calls = found.filter((f) => f.callerApp > 0);
  if (calls.length === 0) return;
  // Some span was decided by another writer first: the operation is what was marked, read back.
  if (decided < found.length) return completeCallOp(c, op);
  const delta = new RollupDelta();
  for (const { span, callerApp } of calls) addCall(delta, span, callerApp, 1);
  await applyDelta(c, delta, op);
  await c.spans.updateMany({ callOp: op }, { $set: { callCounted: true }, $unset: { callOp: '' } });
}

/**
 * The purge's part: takes the counted calls of these spans out of the call rollups (a call operation of -1s), so
 * that a purge interrupted and run again takes none out twice. Operations under way on them are completed before.
 */
export async function takeOutCalls(c: Collections, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const op = newOpId();
  const marked = await c.spans.updateMany({ _id: { $in: ids }, callCounted: true, callOp: { $exists: false } }, { $set: { callOp: op } });
  if (marked.modifiedCount > 0) await completeCallOp(c, op);
}
