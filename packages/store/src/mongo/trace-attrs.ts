import type { AnyBulkWriteOperation } from 'mongodb';
import { contextPairs, ownPairs } from '../attribute-pairs.js';
import type { Collections, TraceDoc } from './collections.js';
import { addedHashes } from './trace-records.js';

/**
 * Trace records written before the attribute index (`attrs`, ../attribute-pairs.ts) get the hashes of their stored
 * spans, once per database, in the background of the processes that start (then this marker in `counters`). Until
 * the backfill has reached a record, the `attr` filter does not find it (docs/deploy.md, upgrading).
 */
export const TRACE_ATTRS_MARKER = 'migration:trace-attrs';

/** Records per step: one read of them, one of their spans, one bulk of updates. */
const STEP = 200;

export async function traceAttrsBackfilled(c: Collections): Promise<boolean> {
  return (await c.counters.findOne({ _id: TRACE_ATTRS_MARKER })) !== null;
}

/**
 * Walks the records without `attrsComplete` (written before the field: a writer sets it on the records it
 * inserts) in `_id` order, a step at a time, reads all their spans, and adds their hashes with `$addToSet` to what
 * they hold: a record a writer has reached since the upgrade has the hashes of its new spans only, and keeps them.
 * Then sets `attrsComplete` on each, and at the end records the marker.
 */
export async function backfillTraceAttrs(c: Collections, step = STEP): Promise<void> {
  let after = '';
  for (;;) {
    const page = await c.traces.find({ _id: { $gt: after }, attrsComplete: { $exists: false } },
      { sort: { _id: 1 }, limit: step, projection: { _id: 1, attrs: 1, attrKeys: 1 }, hint: '_id_' }).toArray();
    if (page.length === 0) break;
    const hashes = new Map<string, Set<number>>(page.map((t) => [t._id, new Set<number>()]));
    for await (const s of c.spans.find({ traceKey: { $in: page.map((t) => t._id) } },
      { sort: { traceKey: 1, ts: 1, spanId: 1 }, projection: { traceKey: 1, data: 1 } })) {
      const set = hashes.get(s.traceKey)!;
      const span = JSON.parse(s.data) as Record<string, unknown>;
      contextPairs(span, set);
      ownPairs(span, set);
    }
    const held = new Map(page.map((t) => [t._id, t]));
    const updates: AnyBulkWriteOperation<TraceDoc>[] = [...hashes].map(([_id, set]) => {
      const update = addedHashes(held.get(_id), [...set]);
      return { updateOne: { filter: { _id }, update: { ...update, $set: { attrsComplete: true } } } };
    });
    await c.traces.bulkWrite(updates, { ordered: false });
    after = page[page.length - 1]!._id;
  }
  await c.counters.updateOne({ _id: TRACE_ATTRS_MARKER }, { $set: { seq: 1 } }, { upsert: true });
}
