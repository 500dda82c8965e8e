import { newId } from '@lantern/domain';
import type { AnyBulkWriteOperation, Filter } from 'mongodb';
import type { Collections, RootRank, SpanDoc, TraceDoc } from './collections.js';
import { spanKey, traceKey } from './collections.js';
import { onlyDuplicates } from './bulk.js';

/** What the spans of one trace in a batch bring to its trace record. */
interface TraceUpdate {
  ts: number;
  rootRank: RootRank;
  rootTs: number | null;
  duration: number | null;
  status: number | null;
  url: string | null;
}

type RootCandidate = Pick<TraceUpdate, 'rootRank' | 'rootTs' | 'duration'>;

/**
 * Whether a root candidate replaces the current one (the SQLite store's rule): a higher rank wins; between two
 * rank-1 candidates (entry spans called from another application) the earlier, then the longer, since an entry
 * span encloses the controller spans nested in it, which may arrive first. Between two spans without parent the
 * first stays.
 */
function outranks(c: RootCandidate, current: RootCandidate): boolean {
  if (c.rootRank !== current.rootRank) return c.rootRank > current.rootRank;
  if (c.rootRank !== 1 || c.rootTs === null || current.rootTs === null) return false;
  return c.rootTs < current.rootTs || (c.rootTs === current.rootTs && (c.duration ?? 0) > (current.duration ?? 0));
}

/** `outranks(c, stored record)` as a filter: the record matches when the candidate should replace its root. */
function outrankedBy(c: TraceUpdate): Filter<TraceDoc> {
  if (c.rootRank === 2) return { rootRank: { $lt: 2 } };
  const rootTs = new Date(c.rootTs!);
  const duration = c.duration ?? 0;
  // coalesce(stored duration, 0) < duration: a missing duration counts as 0.
  const shorter: Filter<TraceDoc>[] = [{ rootDurationMs: { $lt: duration } }, ...(duration > 0 ? [{ rootDurationMs: null }] : [])];
  return { $or: [{ rootRank: 0 }, { rootRank: 1, rootTs: { $gt: rootTs } }, { rootRank: 1, rootTs, $or: shorter }] };
}

interface BatchOrigin {
  applicationId: number;
  projectId: number;
  /** The span ids of the whole batch (a parent in the batch is in the same application). */
  spanIds: Set<string>;
}

/** The `requestURL` of a stored span (kept in its JSON text), or null. */
function urlOf(s: SpanDoc): string | null {
  const url = (JSON.parse(s.data) as { requestURL?: unknown }).requestURL;
  return typeof url === 'string' ? url : null;
}

/** What the batch's spans bring to each trace record: the earliest time and the best root candidate. */
async function updatesOf(c: Collections, batch: BatchOrigin, stored: SpanDoc[]): Promise<Map<string, TraceUpdate>> {
  const { applicationId } = batch;
  // A controller span whose parent is neither in this batch nor stored comes from another application.
  const parentKeys = stored
    .filter((s) => s.controller && s.parentSpanId !== null && !batch.spanIds.has(s.parentSpanId))
    .map((s) => spanKey(applicationId, s.traceId, s.parentSpanId!));
  const parentsStored = new Set(parentKeys.length === 0 ? [] : (await c.spans
    .find({ _id: { $in: parentKeys } }, { projection: { _id: 1 } }).toArray()).map((s) => s._id));
  const rankOf = (s: SpanDoc): RootRank => {
    if (s.parentSpanId === null) return 2;
    if (!s.controller || batch.spanIds.has(s.parentSpanId)) return 0;
    return parentsStored.has(spanKey(applicationId, s.traceId, s.parentSpanId)) ? 0 : 1;
  };
  const updates = new Map<string, TraceUpdate>();
  for (const s of stored) {
    const ts = s.ts.getTime();
    const rootRank = rankOf(s);
    const candidate = rootRank
      ? { rootRank, rootTs: ts, duration: s.durationMs, status: s.status, url: urlOf(s) }
      : { rootRank, rootTs: null, duration: null, status: null, url: null };
    const update = updates.get(s.traceId);
    if (update === undefined) {
      updates.set(s.traceId, { ts, ...candidate });
      continue;
    }
    if (ts < update.ts) update.ts = ts;
    if (outranks(candidate, update)) Object.assign(update, candidate);
  }
  return updates;
}

/**
 * The trace records' part of a span batch. `stored` holds the batch's spans as they are stored (the first
 * version of each, `data` included), whether this batch or an earlier one stored them: applying a span to its
 * trace record twice changes nothing (`ts` only moves earlier, a root only to a candidate that outranks it), so a batch retried
 * after a failure half-way completes the records, and a repeated batch leaves them as they were.
 */
export async function updateTraceRecords(c: Collections, batch: BatchOrigin, stored: SpanDoc[]): Promise<void> {
  const { applicationId, projectId } = batch;
  const updates = await updatesOf(c, batch, stored);
  if (updates.size === 0) return;

  // The records as they are now (by _id): a new record gets its root with its insert, and an existing one a
  // conditional update only when the candidate outranks the root read here (roots only ever move up that order,
  // so a root changed since cannot be one the candidate would outrank).
  const keyOf = (traceId: string) => traceKey(applicationId, traceId);
  const current = new Map((await c.traces.find({ _id: { $in: [...updates.keys()].map(keyOf) } },
    { projection: { ts: 1, rootRank: 1, rootTs: 1, rootDurationMs: 1 } }).toArray()).map((t) => [t._id, t]));
  const entries = [...updates];
  const upserts: AnyBulkWriteOperation<TraceDoc>[] = [];
  const upserted: string[] = [];
  for (const [traceId, u] of entries) {
    const record = current.get(keyOf(traceId));
    if (record !== undefined && record.ts.getTime() <= u.ts) continue;
    upserted.push(traceId);
    upserts.push({ updateOne: {
      filter: { _id: keyOf(traceId) },
      update: {
        $min: { ts: new Date(u.ts) },
        $setOnInsert: {
          id: newId(), projectId, applicationId, traceId, rootRank: u.rootRank, rootTs: u.rootTs === null ? null : new Date(u.rootTs),
          rootDurationMs: u.duration, rootStatus: u.status, rootUrl: u.url,
        },
      },
      upsert: true,
    } });
  }
  const inserted = await upsertAll(c, upserts, upserted);

  // Each comparison is one atomic conditional update, so concurrent writers of a trace end with the root the
  // rule picks, whatever their order.
  const roots: AnyBulkWriteOperation<TraceDoc>[] = [];
  for (const [traceId, u] of entries) {
    if (u.rootRank === 0 || inserted.has(traceId)) continue;
    const record = current.get(keyOf(traceId));
    if (record !== undefined && !outranks(u, { rootRank: record.rootRank, rootTs: record.rootTs?.getTime() ?? null, duration: record.rootDurationMs })) continue;
    roots.push({ updateOne: {
      filter: { _id: keyOf(traceId), ...outrankedBy(u) },
      update: { $set: { rootRank: u.rootRank, rootTs: new Date(u.rootTs!), rootDurationMs: u.duration, rootStatus: u.status, rootUrl: u.url } },
    } });
  }
  if (roots.length > 0) await c.traces.bulkWrite(roots, { ordered: false });
}

/**
 * Runs the record upserts; returns the trace ids whose record this call inserted. A record another writer
 * inserted between our lookup and our insert is a duplicate key: that upsert runs again, and then updates.
 */
async function upsertAll(c: Collections, ops: AnyBulkWriteOperation<TraceDoc>[], traceIds: string[]): Promise<Set<string>> {
  if (ops.length === 0) return new Set();
  const insertedOf = (upsertedIds: Record<number, unknown> | undefined) =>
    new Set(Object.keys(upsertedIds ?? {}).map((i) => traceIds[Number(i)]!));
  try {
    return insertedOf((await c.traces.bulkWrite(ops, { ordered: false })).upsertedIds);
  } catch (e) {
    if (!onlyDuplicates(e)) throw e;
    const first = insertedOf(e.result?.upsertedIds);
    const retried = await c.traces.bulkWrite(ops, { ordered: false });
    for (const traceId of insertedOf(retried.upsertedIds)) first.add(traceId);
    return first;
  }
}
