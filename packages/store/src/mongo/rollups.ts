import { randomBytes } from 'node:crypto';
import type { AnyBulkWriteOperation, Collection, Document, Filter } from 'mongodb';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { planRollupRead } from '../rollup-plan.js';
import { CellMerger, HOUR_MS, MINUTE_MS, hourOf, minuteOf } from '../rollups.js';
import type { RollupChange, RollupDelta } from '../rollups.js';
import type { Access } from './access.js';
import { deadlineOf } from './budget.js';
import { onlyDuplicates } from './bulk.js';
import type { Collections, RollupDoc } from './collections.js';
import { rollupKey } from './collections.js';
import { readRawRollup } from './rollup-bson.js';
import { nextTurn } from './paging.js';
import type { RawRollup } from './rollup-bson.js';

/**
 * How many operation ids a rollup document remembers. Completing an operation again (a retry after a failure
 * half-way) changes nothing as long as its id is among them: fewer than this many other operations reached the
 * same minute (or hour) of the same application in between (at 1M requests an hour, about three minutes of
 * batches: for a minute document, any retry after its minute has passed is also safe; for an hour document, a
 * retry must come within those minutes while its hour is still being written).
 */
export const OPS_KEPT = 1000;

/** Rollup documents a read merges before it gives the event loop a turn (about 10 ms of work). */
const YIELD_EVERY = 100;

/** A new operation id: the time it begins (base 36 ms, read by rollup-ops.ts' `opStartedAt`), a dot, 8 random characters. */
export const newOpId = (): string => `${Date.now().toString(36)}.${randomBytes(6).toString('base64url')}`;

/** A minute or an hour rollup document, as both collections' updates and reads see them (they differ in `minute`/`hour` alone). */
type AnyRollup = RollupDoc;

/** The updates of one rollup collection for these changes: `$inc` once per operation id, `start` set on insert. */
function updatesOf(changes: RollupChange[], op: string, startField: 'minute' | 'hour'): AnyBulkWriteOperation<AnyRollup>[] {
  return changes.map((ch) => {
    const inc: Record<string, number> = { requests: ch.requests, errors: ch.errors };
    const [zeros, ...buckets] = ch.sketch.toArray();
    inc['zeros'] = zeros ?? 0;
    for (let i = 0; i + 1 < buckets.length; i += 2) inc[`b.${buckets[i]}`] = buckets[i + 1]!;
    return { updateOne: {
      filter: { _id: rollupKey(ch.applicationId, ch.start), ops: { $ne: op } },
      update: {
        $inc: inc,
        $setOnInsert: { projectId: ch.projectId, applicationId: ch.applicationId, [startField]: new Date(ch.start) },
        $push: { ops: { $each: [op], $slice: -OPS_KEPT } },
      },
      upsert: true,
    } } as AnyBulkWriteOperation<AnyRollup>;
  });
}

async function bulkOnce(collection: Collection<AnyRollup>, ops: AnyBulkWriteOperation<AnyRollup>[]): Promise<void> {
  if (ops.length === 0) return;
  try {
    await collection.bulkWrite(ops, { ordered: false });
  } catch (e) {
    // A duplicate key: the document exists and either holds the operation already (done), or another writer
    // inserted it between our match and our insert (then the second try matches it and applies).
    if (!onlyDuplicates(e)) throw e;
    try {
      await collection.bulkWrite(ops, { ordered: false });
    } catch (again) {
      if (!onlyDuplicates(again)) throw again;
    }
  }
}

/**
 * Adds a delta to the rollup documents, minute and hour, once per operation id: each document's update is one
 * atomic `$inc` of its counters and sketch buckets (concurrent writers merge), conditional on the operation not
 * being among the document's `ops` yet, which it joins in the same update. The two collections are written at
 * once; an operation completed again (after a failure between them) adds to each document what it lacks.
 */
export async function applyDelta(c: Collections, delta: RollupDelta, op: string): Promise<void> {
  await Promise.all([
    bulkOnce(c.rollups as unknown as Collection<AnyRollup>, updatesOf(delta.changes(MINUTE_MS), op, 'minute')),
    bulkOnce(c.rollupHours as unknown as Collection<AnyRollup>, updatesOf(delta.changes(HOUR_MS), op, 'hour')),
  ]);
}

/**
 * Which hour documents a read may use: those of hours from `firstHour()` on. Before it, an hour document may
 * count minutes that are gone (past the retention: the TTL removes minute documents one by one, the hour's only
 * with its last minute) or miss minutes written before hour documents existed (rollup-start.ts).
 */
export type FirstHour = () => number;

/**
 * GET /metrics from the rollups of the visible projects: whole hours (rollup-plan.ts) from the hour documents on
 * (projectId, hour), the rest of the window from the minute documents on (projectId, minute): one query each, with
 * an `$or` of its runs where there are several (GET /metrics' buckets make one run of hours and at most two of
 * minutes, the window's partial first and last hours). Within `query.budgetMs` from the call (budget.ts): each
 * query with what is left of it as `maxTimeMS`, the clock checked between batches.
 */
export async function readRollups(c: Collections, access: Access, query: MetricsQuery, firstHour: FirstHour = () => 0): Promise<MetricsCell[]> {
  const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
  const projects = await access.visibleProjects(query.userId, query.projectId);
  if (projects.length === 0) return [];
  const merger = new CellMerger(query);
  const plan = planRollupRead(query, firstHour());
  const app = query.applicationId === undefined ? {} : { applicationId: query.applicationId };
  /** Hours whose document the purge marked partial: read by the minute, for that application only. */
  const partial: { applicationId: number; from: number; to: number }[] = [];
  const scan = async (collection: Collection<AnyRollup>, hint: string, filter: Document, each: (d: RawRollup) => void): Promise<void> => {
    // Raw BSON, read by readRawRollup: the driver's objects of ~300 bucket properties cost ten times as much. The
    // index is named: the planner may otherwise take the TTL index on the time alone, which reads every project's.
    const docs = collection.find({ projectId: { $in: projects }, ...filter } as Filter<AnyRollup>,
      { projection: { ops: 0 }, batchSize: 500, raw: true, hint, ...deadline.maxTime() });
    let n = 0;
    for await (const raw of docs) {
      each(readRawRollup(raw as unknown as Buffer));
      // A document costs tens of µs (its sketch merged): read whole, a batch of 2000 held the event loop ~100 ms.
      if (++n % YIELD_EVERY === 0) await nextTurn();
      if (docs.bufferedCount() === 0 && !docs.closed) deadline.check(); // a further batch to come
    }
  };
  const add = (d: RawRollup) => merger.add(d, (sketch) => sketch.mergeArray(d.sketch));
  /** The ranges as one filter: the range itself, or an `$or` of them (windows whose buckets cut hours). */
  const anyOf = (field: 'hour' | 'minute', ranges: ({ from: number; to: number; applicationId?: number })[]): Document => {
    const each = ranges.map((r) => ({ [field]: { $gte: new Date(r.from), $lt: new Date(r.to) }, ...(r.applicationId === undefined ? {} : { applicationId: r.applicationId }) }));
    return each.length === 1 ? each[0]! : { $or: each };
  };
  if (plan.hours.length > 0) {
    await scan(c.rollupHours as unknown as Collection<AnyRollup>, 'project_hour', { ...anyOf('hour', plan.hours), ...app }, (d) => {
      if (d.partialBefore === undefined) add(d);
      else partial.push({ applicationId: d.applicationId, from: d.start, to: d.start + HOUR_MS });
    });
  }
  const minutes = [...plan.minutes.map((r) => ({ ...r, ...app })), ...partial];
  if (minutes.length > 0) await scan(c.rollups as unknown as Collection<AnyRollup>, 'project_minute', anyOf('minute', minutes), add);
  return merger.result();
}

/**
 * The purge's part of the rollups, after its rounds took the purged traces' later entry spans out: the minute
 * documents before the cut-off's minute go, so do the hour documents of hours wholly before it, and the hour
 * document of the hour it falls in is marked partial (it still counts the minutes that went).
 */
export async function dropRollupsBefore(c: Collections, cutoffMs: number): Promise<void> {
  const minute = minuteOf(cutoffMs);
  const hour = hourOf(minute);
  await c.rollups.deleteMany({ minute: { $lt: new Date(minute) } });
  await c.rollupHours.deleteMany({ hour: { $lt: new Date(hour) } });
  if (minute > hour) await c.rollupHours.updateMany({ hour: new Date(hour) }, { $max: { partialBefore: new Date(minute) } });
}
