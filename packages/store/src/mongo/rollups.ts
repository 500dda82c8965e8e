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
import { callRollupKey, operationRollupKey, rollupKey } from './collections.js';
import { keepNames } from './operation-names.js';
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

/**
 * A minute or an hour rollup document, per application, per operation or per caller, as the six collections'
 * updates and reads see them (they differ in `minute`/`hour`, `operation` and `callerId` alone).
 */
type AnyRollup = RollupDoc;

/** The minute and the hour collections of the rollups per application, per operation, or of the calls. */
interface RollupCollections {
  minutes: Collection<AnyRollup>;
  hours: Collection<AnyRollup>;
}
const perApplication = (c: Collections): RollupCollections =>
  ({ minutes: c.rollups, hours: c.rollupHours as unknown as Collection<AnyRollup> });
const perOperation = (c: Collections): RollupCollections =>
  ({ minutes: c.operationRollups as unknown as Collection<AnyRollup>, hours: c.operationRollupHours as unknown as Collection<AnyRollup> });
const perCaller = (c: Collections): RollupCollections =>
  ({ minutes: c.callRollups as unknown as Collection<AnyRollup>, hours: c.callRollupHours as unknown as Collection<AnyRollup> });

/** A change of a rollup document: of a per-operation one with `operation`, of a call one with `callerId`. */
type AnyChange = RollupChange & { operation?: string; callerId?: number };

const keyOf = (ch: AnyChange): string => (ch.operation !== undefined ? operationRollupKey(ch.applicationId, ch.start, ch.operation)
  : ch.callerId !== undefined ? callRollupKey(ch.applicationId, ch.start, ch.callerId) : rollupKey(ch.applicationId, ch.start));

/**
 * The updates of one rollup collection for these changes: `$inc` once per operation id, `start` (and the
 * operation, or the caller) set on insert.
 */
function updatesOf(changes: AnyChange[], op: string, startField: 'minute' | 'hour'): AnyBulkWriteOperation<AnyRollup>[] {
  return changes.map((ch) => {
    const inc: Record<string, number> = { requests: ch.requests, errors: ch.errors };
    const [zeros, ...buckets] = ch.sketch.toArray();
    inc['zeros'] = zeros ?? 0;
    for (let i = 0; i + 1 < buckets.length; i += 2) inc[`b.${buckets[i]}`] = buckets[i + 1]!;
    const operation = ch.operation === undefined ? {} : { operation: ch.operation };
    const caller = ch.callerId === undefined ? {} : { callerId: ch.callerId };
    return { updateOne: {
      filter: { _id: keyOf(ch), ops: { $ne: op } },
      update: {
        $inc: inc,
        $setOnInsert: { projectId: ch.projectId, applicationId: ch.applicationId, [startField]: new Date(ch.start), ...operation, ...caller },
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
 * Adds a delta to the rollup documents, minute and hour, per application, per operation and of the calls, once
 * per operation id: each document's update is one atomic `$inc` of its counters and sketch buckets (concurrent
 * writers merge), conditional on the operation not being among the document's `ops` yet, which it joins in the
 * same update. The names the delta's hours keep are decided first (operation-names.ts), then the collections are
 * written at once; an operation completed again (after a failure between them) finds the same names kept, and
 * adds to each document what it lacks.
 */
export async function applyDelta(c: Collections, delta: RollupDelta, op: string): Promise<void> {
  const kept = delta.operations.empty ? undefined : await keepNames(c, delta.operations.hours());
  const [app, ops, calls] = [perApplication(c), perOperation(c), perCaller(c)];
  await Promise.all([
    bulkOnce(app.minutes, updatesOf(delta.changes(MINUTE_MS), op, 'minute')),
    bulkOnce(app.hours, updatesOf(delta.changes(HOUR_MS), op, 'hour')),
    ...(kept === undefined ? [] : [
      bulkOnce(ops.minutes, updatesOf(delta.operations.changes(MINUTE_MS, kept), op, 'minute')),
      bulkOnce(ops.hours, updatesOf(delta.operations.changes(HOUR_MS, kept), op, 'hour')),
    ]),
    ...(delta.calls.empty ? [] : [
      bulkOnce(calls.minutes, updatesOf(delta.calls.changes(MINUTE_MS), op, 'minute')),
      bulkOnce(calls.hours, updatesOf(delta.calls.changes(HOUR_MS), op, 'hour')),
    ]),
  ]);
}

/**
 * Which hour documents a read may use: those of hours from `firstHour()` on. Before it, an hour document may
 * count minutes that are gone (past the retention: the TTL removes minute documents one by one, the hour's only
 * with its last minute) or miss minutes written before hour documents existed (rollup-start.ts).
 */
export type FirstHour = () => number;

/**
 * GET /metrics from the rollups of the visible projects (GET /metrics/operations, `byOperation`: from the
 * per-operation rollups; the service map's calls, `byCaller`: from the call rollups): whole hours (rollup-plan.ts) from the hour documents on (projectId, hour), the rest of
 * the window from the minute documents on (projectId, minute): one query each, with an `$or` of its runs where
 * there are several (GET /metrics' buckets make one run of hours and at most two of minutes, the window's partial
 * first and last hours). Within `query.budgetMs` from the call (budget.ts): each query with what is left of it
 * as `maxTimeMS`, the clock checked between batches.
 */
export async function readRollups(c: Collections, access: Access, query: MetricsQuery, firstHour: FirstHour = () => 0): Promise<MetricsCell[]> {
  const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
  const projects = await access.visibleProjects(query.userId, query.projectId);
  if (projects.length === 0) return [];
  const merger = new CellMerger(query);
  const plan = planRollupRead(query, firstHour());
  const app = query.applicationId === undefined ? {} : { applicationId: query.applicationId };
  const { minutes: minuteDocs, hours: hourDocs } = query.byOperation ? perOperation(c) : query.byCaller ? perCaller(c) : perApplication(c);
  /**
   * Hours whose document the purge marked partial: read by the minute, for that application only, and for the
   * operations (or callers) whose document is marked (one written after the purge, of a name or a caller new in the
   * hour, counts only minutes that are there: it is read whole, not again by the minute).
   */
  const partial = new Map<string, PartialRange>();
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
  const anyOf = (field: 'hour' | 'minute', ranges: PartialRange[]): Document => {
    const each = ranges.map((r) => ({
      [field]: { $gte: new Date(r.from), $lt: new Date(r.to) },
      ...(r.applicationId === undefined ? {} : { applicationId: r.applicationId }),
      ...(r.operations === undefined ? {} : { operation: { $in: r.operations } }),
      ...(r.callers === undefined ? {} : { callerId: { $in: r.callers } }),
    }));
    return each.length === 1 ? each[0]! : { $or: each };
  };
  if (plan.hours.length > 0) {
    await scan(hourDocs, 'project_hour', { ...anyOf('hour', plan.hours), ...app }, (d) => {
      if (d.partialBefore === undefined) return add(d);
      const key = `${d.applicationId}:${d.start}`;
      let range = partial.get(key);
      if (range === undefined) partial.set(key, (range = { applicationId: d.applicationId, from: d.start, to: d.start + HOUR_MS }));
      if (d.operation !== undefined) (range.operations ??= []).push(d.operation);
      if (d.callerId !== undefined) (range.callers ??= []).push(d.callerId);
    });
  }
  const minutes = [...plan.minutes.map((r) => ({ ...r, ...app })), ...partial.values()];
  if (minutes.length > 0) await scan(minuteDocs, 'project_minute', anyOf('minute', minutes), add);
  return merger.result();
}

/** A range of minutes or hours to read, of one application or of the query's. */
interface Range {
  from: number;
  to: number;
  applicationId?: number;
}

/** A range of minutes read for an hour marked partial: of its marked operations, or callers, only. */
interface PartialRange extends Range {
  operations?: string[];
  callers?: number[];
}

/**
 * The purge's part of the rollups, after its rounds took the purged traces' later entry spans (and calls) out: the minute
 * documents before the cut-off's minute go, so do the hour documents of hours wholly before it, and the hour
 * documents of the hour it falls in are marked partial (they still count the minutes that went); per
 * application, per operation, then of the calls. The names of the hours gone go with them; the cut-off hour keeps its names
 * (its cells stay, and a name must keep going to the same cell).
 */
export async function dropRollupsBefore(c: Collections, cutoffMs: number): Promise<void> {
  const minute = minuteOf(cutoffMs);
  const hour = hourOf(minute);
  for (const { minutes, hours } of [perApplication(c), perOperation(c), perCaller(c)]) {
    await minutes.deleteMany({ minute: { $lt: new Date(minute) } });
    await hours.deleteMany({ hour: { $lt: new Date(hour) } } as Filter<AnyRollup>);
    if (minute > hour) await hours.updateMany({ hour: new Date(hour) } as Filter<AnyRollup>, { $max: { partialBefore: new Date(minute) } });
  }
  await c.operationNames.deleteMany({ hour: { $lt: new Date(hour) } });
}
