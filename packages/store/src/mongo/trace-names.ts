import { operationOf, serviceOf } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { AnyBulkWriteOperation } from 'mongodb';
import type { Collections, TraceDoc } from './collections.js';
import { legacyRoot } from './traces.js';

/**
 * Trace records written before `rootService` and `rootOperation` existed get them from their root span, once per
 * database, in the background of the processes that start (then this marker in `counters`). Until the backfill has
 * reached a record, the `service` and `operation` filters do not find it (docs/deploy.md, upgrading).
 */
export const TRACE_NAMES_MARKER = 'migration:trace-names';

/** Records per step: one read of them, one of their spans, one bulk of updates. */
const STEP = 500;

type Legacy = Pick<TraceDoc, '_id' | 'rootRank' | 'rootTs' | 'rootDurationMs' | 'rootStatus'>;

export async function traceNamesBackfilled(c: Collections): Promise<boolean> {
  return (await c.counters.findOne({ _id: TRACE_NAMES_MARKER })) !== null;
}

/**
 * Walks the records without the fields in `_id` order, a step at a time: finds each one's root span as the url
 * filter does for old records (traces.ts legacyRoot), and sets both fields (null when there is no root), only
 * where they are still missing, so that two processes running it at once, or a writer that has since set a new
 * root, are never overwritten. Then records the marker.
 */
export async function backfillTraceNames(c: Collections, step = STEP): Promise<void> {
  let after = '';
  for (;;) {
    const page = await c.traces.find({ _id: { $gt: after }, rootOperation: { $exists: false } },
      { sort: { _id: 1 }, limit: step, projection: { _id: 1, rootRank: 1, rootTs: 1, rootDurationMs: 1, rootStatus: 1 }, hint: '_id_' })
      .toArray() as Legacy[];
    if (page.length === 0) break;
    const spans = new Map<string, Span[]>();
    const rooted = page.filter((t) => t.rootRank > 0).map((t) => t._id);
    if (rooted.length > 0) {
      // Only the spans that can be a root (without parent, or controller spans): a trace of thousands of spans has
      // one or a few, so a step holds a few spans per record, not every span of 500 traces.
      for await (const s of c.spans.find({ traceKey: { $in: rooted }, $or: [{ parentSpanId: null }, { controller: true }] },
        { sort: { traceKey: 1, ts: 1, spanId: 1 }, projection: { traceKey: 1, data: 1 } })) {
        let list = spans.get(s.traceKey);
        if (list === undefined) spans.set(s.traceKey, (list = []));
        list.push(JSON.parse(s.data) as Span);
      }
    }
    const updates: AnyBulkWriteOperation<TraceDoc>[] = page.map((t) => {
      const root = legacyRoot(t, spans.get(t._id) ?? []);
      return { updateOne: {
        filter: { _id: t._id, rootOperation: { $exists: false } },
        update: { $set: { rootService: root ? serviceOf(root) ?? null : null, rootOperation: root ? operationOf(root) ?? null : null } },
      } };
    });
    await c.traces.bulkWrite(updates, { ordered: false });
    after = page[page.length - 1]!._id;
  }
  await c.counters.updateOne({ _id: TRACE_NAMES_MARKER }, { $set: { seq: 1 } }, { upsert: true });
}
