import type { Filter } from 'mongodb';
import { RollupDelta } from '../rollups.js';
import type { EntrySpan } from '../rollups.js';
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
 * marked spans alone, so every completion adds the same, and the rollup documents add it once. New spans that
 * are entry candidates are inserted already marked (`entryCandidate`): their insert is their marking.
 *
 * Marks land document by document (an unordered insert, an updateMany), so an operation found while its marks are
 * still landing is not completed by whoever finds it: its delta would be that of the spans seen so far, and the
 * rollup documents would then skip the owner's whole delta under the same id (spans flagged without being
 * counted, or uncounted without being taken out: seen now and then in CI with two writers on late parents
 * and their children). An operation id carries the time it began (`newOpId`); one found younger than
 * OP_LEASE_MS is waited for, polled on the partial `rollup_op` index, and only an operation still there past its
 * lease (its owner failed half-way, or stopped) is completed by the finder; a finder waits a whole lease at most,
 * whatever the owner's clock says. The gap left: an owner alive but slower than the lease between its first mark
 * and its completion, or an owner's clock behind the finder's by nearly the lease or more (its operation looks old).
 *
 * Which spans are entries, with several writers at once: a controller span is counted only while no span of
 * its application is stored as its parent. The writer storing a parent marks the children it finds as
 * `parentSeen` before it looks at their flags, and a span is only marked to become counted while not
 * `parentSeen`: of the child's writer checking the parent and the parent's writer checking the children, at
 * least one sees the other's span (both insert before they look), so a child counted by mistake is seen and
 * taken out again.
 */

/** How long an operation's owner has, from its first mark, before another may complete it (see above). */
export const OP_LEASE_MS = 10_000;
const POLL_MS = 20;

/** When the operation began (`newOpId`'s prefix); ids made before it carried one: undefined, never waited for. */
export function opStartedAt(op: string): number | undefined {
  const dot = op.indexOf('.');
  const at = dot > 0 ? parseInt(op.slice(0, dot), 36) : NaN;
  return Number.isFinite(at) ? at : undefined;
}

/**
 * Waits while the owner of an operation someone else began may still be marking or completing it: until none of
 * its marks is left (`marked` polls them), or its lease is over.
 */
export async function awaitOwner(op: string, marked: () => Promise<boolean>): Promise<void> {
  const began = opStartedAt(op);
  if (began === undefined) return;
  // What is left of the lease by the owner's clock, never more than a whole lease by ours (an owner's clock
  // ahead of ours must not make us wait longer), timed on our monotonic clock (a wall-clock step changes nothing).
  const until = performance.now() + Math.min(began + OP_LEASE_MS - Date.now(), OP_LEASE_MS);
  while (performance.now() < until && (await marked())) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Completes an operation someone else began (another writer, a failed attempt, the purge's find): waits while
 * its owner may still be marking or completing it, then completes whatever is left of it.
 */
export async function completeFound(c: Collections, op: string): Promise<void> {
  await awaitOwner(op, async () => (await c.spans.findOne({ op }, { projection: { _id: 1 } })) !== null);
  await completeOp(c, op);
}

/**
 * What a span brings to the rollups. Its operation is what it was stored with (span-docs.ts), the same for its +1
 * and its -1; a span stored before the per-operation rollups has none, and is counted per application only.
 */
const entryOf = (s: Pick<SpanDoc, 'ts' | 'durationMs' | 'status' | 'operation'>): EntrySpan =>
  ({ ts: s.ts.getTime(), durationMs: s.durationMs, status: s.status, operation: s.operation ?? null });

/** Completes an operation (its owner does, or `completeFound`): adds the delta of its marked spans to the rollups, then flips their flags. */
export async function completeOp(c: Collections, op: string): Promise<void> {
  const spans = await c.spans.find({ op }, { projection: { projectId: 1, applicationId: 1, ts: 1, durationMs: 1, status: 1, operation: 1, counted: 1 } }).toArray();
  if (spans.length === 0) return;
  const delta = new RollupDelta();
  for (const s of spans) delta.add(s.projectId, s.applicationId, entryOf(s), s.counted ? -1 : 1);
  await applyDelta(c, delta, op);
  // Counted spans first: the update removes the mark, so they are not flipped back by the second.
  await c.spans.updateMany({ op, counted: true }, { $set: { counted: false }, $unset: { op: '' } });
  await c.spans.updateMany({ op }, { $set: { counted: true }, $unset: { op: '' } });
}

/** Completes the operations under way on these spans (left by a writer that failed, or running elsewhere). */
async function completePending(c: Collections, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const ops = await c.spans.distinct('op', { _id: { $in: ids }, op: { $exists: true } } as Filter<SpanDoc>);
  for (const op of ops) if (typeof op === 'string') await completeFound(c, op);
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

/** The group of spans written together, as the rollups need it (see span-group.ts). */
export interface RollupInput {
  /** The group's spans as stored (the first version of each), whoever stored them. */
  stored: SpanDoc[];
  /** The `_id`s of the spans this call inserted. */
  inserted: Set<string>;
  /** `spanKey` of every span of the group. */
  inGroup: Set<string>;
  /** `spanKey` of the parents of the group's controller spans, outside the group, that are stored. */
  parentsStored: Set<string>;
  /** Controller spans (of any batch) whose parent is a span of the group, as found after the group's insert. */
  children: Pick<SpanDoc, '_id'>[];
  /** The operation the inserted entry candidates were marked with (`entryCandidate`). */
  op: string;
}

const parentKeyOf = (s: SpanDoc): string | null => (s.parentSpanId === null ? null : spanKey(s.applicationId, s.traceId, s.parentSpanId));

/**
 * A span the rollups will count unless its parent turns out to be stored: a controller span whose parent is
 * not in the group. It is inserted already marked with the group's operation (so no marking round trip), and
 * since it is new, nobody can have seen its parent for it yet (`parentSeen`).
 */
export function entryCandidate(s: SpanDoc, inGroup: Set<string>): boolean {
  const parent = parentKeyOf(s);
  return s.controller && (parent === null || !inGroup.has(parent));
}

/** Completes the group's own operation: the delta of the spans it inserted marked, then their flags, in one update. */
async function completeOwn(c: Collections, op: string, marked: SpanDoc[]): Promise<void> {
  const delta = new RollupDelta();
  for (const s of marked) delta.add(s.projectId, s.applicationId, entryOf(s), 1);
  await applyDelta(c, delta, op);
  // All of them were inserted not counted, and only a completion of `op` takes the mark away.
  await c.spans.updateMany({ op }, { $set: { counted: true }, $unset: { op: '' } });
}

/**
 * The rollups' part of a group of span batches, with the same outcome as before, in fewer round trips: the
 * children of the group's spans are marked `parentSeen`; the group's own operation (the new entry candidates,
 * marked at their insert) is completed; and only spans stored before (a retry, a repeat) or whose parent is
 * stored go through `settle`. A group retried after a failure half-way finds its operation on its stored spans
 * and completes it (`settle` completes pending operations first), and a repeated span, already flagged,
 * changes nothing.
 */
export async function updateRollups(c: Collections, g: RollupInput): Promise<void> {
  if (g.stored.length === 0) return;
  const childIds = g.children.map((s) => s._id);
  if (childIds.length > 0) await c.spans.updateMany({ _id: { $in: childIds }, parentSeen: { $ne: true } }, { $set: { parentSeen: true } });

  const marked = g.stored.filter((s) => g.inserted.has(s._id) && s.op === g.op);
  if (marked.length > 0) await completeOwn(c, g.op, marked);

  // The group's controller spans whose parent is neither in the group nor stored: entries.
  const own = g.stored.filter((s) => s.controller);
  const isEntry = (s: SpanDoc): boolean => {
    const parent = parentKeyOf(s);
    return parent === null || (!g.inGroup.has(parent) && !g.parentsStored.has(parent));
  };
  const count = own.filter((s) => isEntry(s) && !g.inserted.has(s._id)).map((s) => s._id);
  const uncount = [...childIds, ...own.filter((s) => !isEntry(s)).map((s) => s._id)];
  await settle(c, count, [...new Set(uncount)]);
}
