import type { Filter } from 'mongodb';
import { RollupDelta } from '../rollups.js';
import type { Collections, SpanDoc } from './collections.js';
import { spanKey } from './collections.js';
import { applyDelta, newOpId } from './rollups.js';

/*
 * Keeping the MongoDB rollups true without transactions. Each span says whether the rollups count it (`counted`).
 * A change of that flag is an operation: the spans are first marked with a new operation id (`op`, by a
 * conditional update, so each span joins one operation at a time), then the operation's delta (+1 for each span
 * becoming counted, -1 for each ceasing to be) is added to the rollup documents once per id (rollups.ts), and
 * last the spans' flags flip and the mark goes. Whoever finds a marked span — a redelivered batch after a
 * failure half-way, another writer, the purge — completes that operation first: the delta is computed from the
 * marked spans alone, so every completion adds the same, and the rollup documents add it once.
 *
 * Which spans are entries, with several writers at once: a controller span is counted only while no span of
 * its application is stored as its parent. The writer storing a parent marks the children it finds as
 * `parentSeen` before it looks at their flags, and a span is only marked to become counted while not
 * `parentSeen`: of the child's writer checking the parent and the parent's writer checking the children, at
 * least one sees the other's span (both insert before they look), so a child counted by mistake is seen and
 * taken out again.
 */

type SpanRef = Pick<SpanDoc, '_id'>;

/** Completes an operation: adds the delta of its marked spans to the rollups, then flips their flags. */
export async function completeOp(c: Collections, op: string): Promise<void> {
  const spans = await c.spans.find({ op }, { projection: { projectId: 1, applicationId: 1, ts: 1, durationMs: 1, status: 1, counted: 1 } }).toArray();
  if (spans.length === 0) return;
  const delta = new RollupDelta();
  for (const s of spans) delta.add(s.projectId, s.applicationId, { ts: s.ts.getTime(), durationMs: s.durationMs, status: s.status }, s.counted ? -1 : 1);
  await applyDelta(c, delta, op);
  // Counted spans first: the update removes the mark, so they are not flipped back by the second.
  await c.spans.updateMany({ op, counted: true }, { $set: { counted: false }, $unset: { op: '' } });
  await c.spans.updateMany({ op }, { $set: { counted: true }, $unset: { op: '' } });
}

/** Completes the operations under way on these spans (left by a writer that failed, or running elsewhere). */
async function completePending(c: Collections, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const ops = await c.spans.distinct('op', { _id: { $in: ids }, op: { $exists: true } } as Filter<SpanDoc>);
  for (const op of ops) if (typeof op === 'string') await completeOp(c, op);
}

/** Brings these spans' flags (and so the rollups) to what they should be: `count` counted, `uncount` not. */
export async function settle(c: Collections, count: string[], uncount: string[]): Promise<void> {
  if (count.length === 0 && uncount.length === 0) return;
  await completePending(c, [...count, ...uncount]);
  const op = newOpId();
  let marked = 0;
  if (count.length > 0) {
    marked += (await c.spans.updateMany({ _id: { $in: count }, counted: { $ne: true }, parentSeen: { $ne: true }, op: { $exists: false } },
      { $set: { op } })).modifiedCount;
  }
  if (uncount.length > 0) {
    marked += (await c.spans.updateMany({ _id: { $in: uncount }, counted: true, op: { $exists: false } }, { $set: { op } })).modifiedCount;
  }
  if (marked > 0) await completeOp(c, op);
}

const pairOf = (traceId: string, spanId: string): string => JSON.stringify([traceId, spanId]);

/**
 * The rollups' part of a span batch. `stored` holds the batch's spans as stored (whether this call or an
 * earlier one stored them), so a batch retried after a failure half-way does what is left, and a repeated
 * span, already flagged, changes nothing.
 */
export async function updateRollups(c: Collections, applicationId: number, stored: SpanDoc[]): Promise<void> {
  if (stored.length === 0) return;
  const inBatch = new Set(stored.map((s) => pairOf(s.traceId, s.spanId)));
  // Controller spans of these traces (any batch) whose parent is a span of this batch: not entries.
  const found = await c.spans.find({
    traceKey: { $in: [...new Set(stored.map((s) => s.traceKey))] },
    controller: true,
    parentSpanId: { $in: [...new Set(stored.map((s) => s.spanId))] },
  }, { projection: { _id: 1, traceId: 1, parentSpanId: 1 } }).toArray();
  const children: SpanRef[] = found.filter((s) => s.parentSpanId !== null && inBatch.has(pairOf(s.traceId, s.parentSpanId)));
  const childIds = children.map((s) => s._id);
  if (childIds.length > 0) await c.spans.updateMany({ _id: { $in: childIds }, parentSeen: { $ne: true } }, { $set: { parentSeen: true } });

  // The batch's controller spans whose parent is neither in the batch nor stored: entries.
  const own = stored.filter((s) => s.controller);
  const parentKeys = own.filter((s) => s.parentSpanId !== null && !inBatch.has(pairOf(s.traceId, s.parentSpanId)))
    .map((s) => spanKey(applicationId, s.traceId, s.parentSpanId!));
  const parentsStored = new Set(parentKeys.length === 0 ? [] : (await c.spans
    .find({ _id: { $in: parentKeys } }, { projection: { _id: 1 } }).toArray()).map((s) => s._id));
  const isEntry = (s: SpanDoc): boolean => s.parentSpanId === null
    || (!inBatch.has(pairOf(s.traceId, s.parentSpanId)) && !parentsStored.has(spanKey(applicationId, s.traceId, s.parentSpanId)));
  const count = own.filter(isEntry).map((s) => s._id);
  const uncount = [...childIds, ...own.filter((s) => !isEntry(s)).map((s) => s._id)];
  await settle(c, count, [...new Set(uncount)]);
}
