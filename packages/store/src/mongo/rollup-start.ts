import type { Filter } from 'mongodb';
import { HOUR_MS } from '../rollups.js';
import type { Collections, SpanDoc } from './collections.js';
import { spanKey } from './collections.js';
import { DUPLICATE_KEY, codeOf } from './errors.js';
import { completeFound, settle } from './rollup-ops.js';
import type { FirstHour } from './rollups.js';

/** Counter documents (`counters`, field `seq`) that record the rollups' start-up steps. */
const HOURS_SINCE = 'rollupHoursSince';
const BACKFILL_DONE = 'rollupBackfillDone';
/** Controller spans looked at per backfill round. */
const BACKFILL_CHUNK = 1000;

const ceilHour = (t: number): number => Math.ceil(t / HOUR_MS) * HOUR_MS;

/** A concurrent first upsert of the same record inserted it (a duplicate key): theirs stands. */
const unlessDuplicate = (e: unknown): undefined => {
  if (codeOf(e) !== DUPLICATE_KEY) throw e;
  return undefined;
};

/**
 * The first hour whose hour documents hold all their minutes: recorded by the first process that starts with
 * hour documents (an upsert: whoever comes first sets it, for good). A database without rollups yet starts with
 * them (0); else the next whole hour, as the writers started before kept the minute documents of the hour under
 * way and not its hour document. Hours before it are read by the minute.
 */
async function hoursSince(c: Collections, now: number): Promise<number> {
  const existing = await c.counters.findOne({ _id: HOURS_SINCE });
  if (existing) return existing.seq;
  const fresh = (await c.rollups.findOne({}, { projection: { _id: 1 } })) === null && (await c.spans.findOne({}, { projection: { _id: 1 } })) === null;
  await c.counters.updateOne({ _id: HOURS_SINCE }, { $setOnInsert: { seq: fresh ? 0 : ceilHour(now) } }, { upsert: true }).catch(unlessDuplicate);
  return (await c.counters.findOne({ _id: HOURS_SINCE }))?.seq ?? ceilHour(now);
}

/**
 * Counts the entry spans stored before the rollups existed (controller spans without `counted`): a span without
 * parent, or whose parent is not stored in its application, is settled as counted (rollup-ops.ts: marked with an
 * operation id, added to the minute and hour documents once per id, flagged), the others flagged not counted.
 * Safe with several processes starting at once: a span joins one operation at a time, and an operation adds
 * once; a parent stored meanwhile takes its child out as for any late parent. Runs once per database (a counter
 * document records that it finished): it reads the spans collection once, along its _id index.
 */
async function backfillEntries(c: Collections): Promise<void> {
  if (await c.counters.findOne({ _id: BACKFILL_DONE })) return;
  // In _id order from where the last round stopped: the spans collection is read once along its _id index, not
  // again from its start every round.
  let after = '';
  for (;;) {
    const pending = { _id: { $gt: after }, controller: true, counted: { $exists: false } } as Filter<SpanDoc>;
    const spans = await c.spans.find(pending, { projection: { _id: 1, applicationId: 1, traceId: 1, parentSpanId: 1 }, sort: { _id: 1 }, limit: BACKFILL_CHUNK }).toArray();
    if (spans.length === 0) break;
    after = spans[spans.length - 1]!._id;
    const parentKeys = spans.flatMap((s) => (s.parentSpanId === null ? [] : [spanKey(s.applicationId, s.traceId, s.parentSpanId)]));
    const parents = new Set(parentKeys.length === 0 ? [] : (await c.spans.find({ _id: { $in: parentKeys } }, { projection: { _id: 1 } }).toArray()).map((p) => p._id));
    const entries = spans.filter((s) => s.parentSpanId === null || !parents.has(spanKey(s.applicationId, s.traceId, s.parentSpanId)));
    await settle(c, entries.map((s) => s._id), []);
    // What is left without the flag and not under way is not an entry (or was seen with its parent since).
    await c.spans.updateMany({ _id: { $in: spans.map((s) => s._id) }, counted: { $exists: false }, op: { $exists: false } },
      { $set: { counted: false } });
  }
  // Operations another process started on spans this pass went by (it may have stopped half-way): completed
  // here, as a writer completes those it finds (the partial rollup_op index holds the few under way).
  for (const op of await c.spans.distinct('op', { op: { $exists: true } } as Filter<SpanDoc>)) {
    if (typeof op === 'string') await completeFound(c, op);
  }
  await c.counters.updateOne({ _id: BACKFILL_DONE }, { $set: { seq: 1 } }, { upsert: true }).catch(unlessDuplicate);
}

/**
 * The rollups' start-up step (after the indexes): counts the spans stored before the rollups, and returns which
 * hour documents reads may use: from the first complete hour on, and only while none of their minutes can have
 * expired (the TTL removes a minute document `retentionDays` after its minute).
 */
export async function prepareRollups(c: Collections, now: () => number, retentionDays: number | undefined): Promise<FirstHour> {
  const since = await hoursSince(c, now());
  await backfillEntries(c);
  const retentionMs = retentionDays !== undefined && retentionDays > 0 ? retentionDays * 24 * HOUR_MS : null;
  return () => (retentionMs === null ? since : Math.max(since, ceilHour(now() - retentionMs)));
}
