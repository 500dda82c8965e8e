import type { SpanBatchMessage } from '@lantern/domain';
import { MAX_RECORD_PAIRS, pairsByTrace } from '../attribute-pairs.js';
import { firstOfEach, insertIfAbsent } from './bulk.js';
import type { Collections, SpanDoc } from './collections.js';
import { spanKey, traceKey } from './collections.js';
import { acceptBatches, recordKeys } from './idempotency.js';
import { applicationsOf, markWaiting, openUnder, parentsElsewhere, updateCalls } from './call-group.js';
import { takeOutCalls } from './call-ops.js';
import type { ProjectApplications } from './call-group.js';
import { newOpId } from './rollups.js';
import { entryCandidate, updateRollups } from './rollup-ops.js';
import { batchTime, toSpanDoc } from './span-docs.js';
import { updateTraceRecords } from './trace-records.js';

/** What one read after the insert finds: the stored versions asked for, the parents stored, the children, all of it. */
interface Found {
  stored: SpanDoc[];
  parentsStored: Set<string>;
  children: SpanDoc[];
  found: SpanDoc[];
}

/**
 * One read for four questions, after the group's insert (the parentSeen protocol, and the calls', need every
 * lookup of a parent or a child after the insert): the stored version of each span this call did not insert,
 * which of the entry candidates' parents are stored, the controller spans (any batch) whose parent is in the
 * group, and the open calls (any application of the group's projects) whose parent may be in the group.
 */
async function lookUp(c: Collections, docs: SpanDoc[], inserted: Set<string>, inGroup: Set<string>): Promise<Found> {
  const others = docs.filter((d) => !inserted.has(d._id)).map((d) => d._id);
  const parentKeys = docs.filter((d) => d.op !== undefined && d.parentSpanId !== null)
    .map((d) => spanKey(d.applicationId, d.traceId, d.parentSpanId!));
  const byId = [...new Set([...others, ...parentKeys])];
  const found = await c.spans.find({ $or: [
    ...(byId.length === 0 ? [] : [{ _id: { $in: byId } }]),
    { traceKey: { $in: [...new Set(docs.map((d) => d.traceKey))] }, controller: true, parentSpanId: { $in: [...new Set(docs.map((d) => d.spanId))] } },
    openUnder(docs),
  ] }).toArray();
  const foundById = new Map(found.map((d) => [d._id, d]));
  const otherIds = new Set(others);
  // The first version stored of each span (a span gone since, purged, is left out).
  const stored = docs.flatMap((d) => (!otherIds.has(d._id) ? [d] : foundById.has(d._id) ? [foundById.get(d._id)!] : []));
  const parentsStored = new Set(parentKeys.filter((k) => foundById.has(k)));
  // A stored version that differs from the group's (another parent, now a controller): its parent, looked up too.
  const asked = new Set(parentKeys);
  const more = stored.filter((s) => entryCandidate(s, inGroup) && s.parentSpanId !== null)
    .map((s) => spanKey(s.applicationId, s.traceId, s.parentSpanId!)).filter((k) => !asked.has(k));
  if (more.length > 0) {
    for (const p of await c.spans.find({ _id: { $in: more } }, { projection: { _id: 1 } }).toArray()) parentsStored.add(p._id);
  }
  const children = found.filter((d) => d.controller && d.parentSpanId !== null && inGroup.has(spanKey(d.applicationId, d.traceId, d.parentSpanId)));
  return { stored, parentsStored, children, found };
}

/**
 * Writes the span batches the bus delivered together, with a number of round trips that does not grow with the
 * number of batches: one lookup of their idempotency keys, one unordered insert of all their spans (the entry
 * candidates already marked with the group's rollup operation, the spans with a parent elsewhere waiting for it:
 * call-group.ts), one read of stored versions, parents, children and open calls (beside it, the applications of
 * the group's projects), then the trace records (a read and one or two bulks) beside the rollups (one delta, one
 * flip) and the calls (a read of parents in other applications, the callers decided, one delta, one flip), and
 * last one bulk of the keys. The result is what writing the batches one by one would store: the first version of
 * each span, a batch skipped when its key was accepted (before, or by an earlier batch of the group). One
 * difference of order only: a parent and its controller child in two batches of the group are judged as if the
 * parent came first (the child is no root candidate), whichever batch comes first.
 *
 * No transactions (see ingest.ts): every step is keyed and idempotent and the keys are recorded last, so a group
 * that fails half-way throws, is redelivered, and the retry completes exactly what was missing.
 */
export async function writeSpanGroup(c: Collections, batches: readonly SpanBatchMessage[], now: () => number): Promise<void> {
  if (batches.every((b) => b.spans.length === 0 && !b.idempotencyKey)) return;
  const { accepted, claims } = await acceptBatches(c, 'spans', batches, (b) => batchTime(b, now));
  const docs = firstOfEach(accepted.flatMap(({ batch, at }) => batch.spans.map((span) => toSpanDoc(batch, span, at))), (d) => d._id);
  if (docs.length > 0) {
    const inGroup = new Set(docs.map((d) => d._id));
    const op = newOpId();
    for (const d of docs) {
      if (entryCandidate(d, inGroup)) d.op = op;
      markWaiting(d, inGroup);
    }
    const insertedAt = await insertIfAbsent(c.spans, docs);
    const inserted = new Set(docs.filter((_, i) => insertedAt.has(i)).map((d) => d._id));
    // The applications are read after the insert (call-ops.ts), and only when a span of the group waits for a
    // parent the group does not hold.
    const [{ stored, parentsStored, children, found }, applications] = await Promise.all([lookUp(c, docs, inserted, inGroup),
      parentsElsewhere(docs) ? applicationsOf(c, [...new Set(docs.map((d) => d.projectId))]) : new Map() as ProjectApplications]);
    await settleAll([
      updateTraceRecords(c, { stored, inGroup, parentsStored, pairs: groupPairs(accepted.map((a) => a.batch)) }),
      updateRollups(c, { stored, inserted, inGroup, parentsStored, children, op }),
      updateCalls(c, { stored, found, inGroup, parentsStored, applications }),
      // A controller span whose parent turns out to be of its own application (stored now) is no call: one counted
      // for a span of that id in another application comes out (call-ops.ts, an operation of -1s).
      takeOutCalls(c, children.filter((d) => d.callCounted === true).map((d) => d._id)),
    ]);
  }
  await recordKeys(c, 'spans', claims);
}

/** The attribute hashes of the group's spans by trace record (`traceKey`), at most MAX_RECORD_PAIRS each. */
function groupPairs(batches: readonly SpanBatchMessage[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const batch of batches) {
    for (const [traceId, hashes] of pairsByTrace(batch.spans)) {
      const key = traceKey(batch.applicationId, traceId);
      const held = out.get(key);
      out.set(key, held === undefined ? hashes : [...new Set([...held, ...hashes])].slice(0, MAX_RECORD_PAIRS));
    }
  }
  return out;
}

/** Waits for every step, then throws the first failure: no step is left running behind a failed call. */
export async function settleAll(steps: Promise<void>[]): Promise<void> {
  const results = await Promise.allSettled(steps);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
