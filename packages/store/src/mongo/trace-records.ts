import { newId, operationOf, serviceOf } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { AnyBulkWriteOperation, Filter, UpdateFilter } from 'mongodb';
import type { Collections, RootRank, SpanDoc, TraceDoc } from './collections.js';
import { spanKey } from './collections.js';
import { onlyDuplicates } from './bulk.js';
import { MAX_RECORD_PAIRS, isKeyHash } from '../attribute-pairs.js';

/** What the spans of one trace in a batch bring to its trace record. */
interface TraceUpdate {
  projectId: number;
  applicationId: number;
  traceId: string;
  ts: number;
  rootRank: RootRank;
  rootTs: number | null;
  duration: number | null;
  status: number | null;
  url: string | null;
  service: string | null;
  operation: string | null;
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

/** The group of spans written together, as the trace records need it (see span-group.ts). */
export interface RecordsInput {
  /** The group's spans as they are stored (the first version of each, `data` included), whoever stored them. */
  stored: SpanDoc[];
  /** `spanKey` of every span of the group: a parent in the group is no root's parent from elsewhere. */
  inGroup: Set<string>;
  /** `spanKey` of the parents of the group's controller spans, outside the group, that are stored. */
  parentsStored: Set<string>;
  /** The attribute hashes the group's spans bring, by `traceKey` (../attribute-pairs.ts). */
  pairs: Map<string, number[]>;
}

/**
 * What a group adds to a record's attribute hashes (those it does not hold yet, within MAX_RECORD_PAIRS), as an
 * update: the pairs' to `attrs`, the keys' to `attrKeys`; {} when nothing is new.
 */
export function addedHashes(held: Pick<TraceDoc, 'attrs' | 'attrKeys'> | undefined, brought: readonly number[] | undefined): UpdateFilter<TraceDoc> {
  if (brought === undefined || brought.length === 0) return {};
  const known = new Set([...(held?.attrs ?? []), ...(held?.attrKeys ?? [])]);
  const added = brought.filter((h) => !known.has(h)).slice(0, Math.max(0, MAX_RECORD_PAIRS - known.size));
  const pairs = added.filter((h) => !isKeyHash(h));
  const keys = added.filter(isKeyHash);
  if (added.length === 0) return {};
  return { $addToSet: { ...(pairs.length ? { attrs: { $each: pairs } } : {}), ...(keys.length ? { attrKeys: { $each: keys } } : {}) } };
}

/** What a root span gives its record besides its columns: `requestURL`, service and operation (from its JSON text). */
function rootFieldsOf(s: SpanDoc): Pick<TraceUpdate, 'url' | 'service' | 'operation'> {
  const span = JSON.parse(s.data) as Span;
  return { url: typeof span.requestURL === 'string' ? span.requestURL : null, service: serviceOf(span) ?? null, operation: operationOf(span) ?? null };
}

/** What the group's spans bring to each trace record (by `traceKey`): the earliest time and the best root candidate. */
function updatesOf({ stored, inGroup, parentsStored }: RecordsInput): Map<string, TraceUpdate> {
  // A controller span whose parent is neither in the group nor stored comes from another application.
  const rankOf = (s: SpanDoc): RootRank => {
    if (s.parentSpanId === null) return 2;
    const parent = spanKey(s.applicationId, s.traceId, s.parentSpanId);
    return !s.controller || inGroup.has(parent) || parentsStored.has(parent) ? 0 : 1;
  };
  const updates = new Map<string, TraceUpdate>();
  for (const s of stored) {
    const ts = s.ts.getTime();
    const rootRank = rankOf(s);
    const candidate = rootRank
      ? { rootRank, rootTs: ts, duration: s.durationMs, status: s.status, ...rootFieldsOf(s) }
      : { rootRank, rootTs: null, duration: null, status: null, url: null, service: null, operation: null };
    const update = updates.get(s.traceKey);
    if (update === undefined) {
      updates.set(s.traceKey, { ts, projectId: s.projectId, applicationId: s.applicationId, traceId: s.traceId, ...candidate });
      continue;
    }
    if (ts < update.ts) update.ts = ts;
    if (outranks(candidate, update)) Object.assign(update, candidate);
  }
  return updates;
}

/**
 * The trace records' part of a group of span batches, whatever their applications: one read of the records,
 * one bulk of upserts, and one bulk of root changes where a candidate outranks a root. `stored` holds the
 * group's spans as they are stored, whether this call or an earlier one stored them: applying a span to its
 * trace record twice changes nothing (`ts` only moves earlier, a root only to a candidate that outranks it), so
 * a group retried after a failure half-way completes the records, and a repeated group leaves them as they were.
 */
export async function updateTraceRecords(c: Collections, input: RecordsInput): Promise<void> {
  const updates = updatesOf(input);
  if (updates.size === 0) return;

  // The records as they are now (by _id): a new record gets its root with its insert, and an existing one a
  // conditional update only when the candidate outranks the root read here (roots only ever move up that order,
  // so a root changed since cannot be one the candidate would outrank).
  const current = new Map((await c.traces.find({ _id: { $in: [...updates.keys()] } },
    { projection: { ts: 1, rootRank: 1, rootTs: 1, rootDurationMs: 1, attrs: 1, attrKeys: 1 } }).toArray()).map((t) => [t._id, t]));
  const entries = [...updates];
  const upserts: AnyBulkWriteOperation<TraceDoc>[] = [];
  const upserted: string[] = [];
  const attrs: AnyBulkWriteOperation<TraceDoc>[] = [];
  for (const [key, u] of entries) {
    const record = current.get(key);
    const addAttrs = addedHashes(record, input.pairs.get(key));
    if (record !== undefined && record.ts.getTime() <= u.ts) {
      if (addAttrs.$addToSet) attrs.push({ updateOne: { filter: { _id: key }, update: addAttrs } });
      continue;
    }
    upserted.push(key);
    upserts.push({ updateOne: {
      filter: { _id: key },
      update: {
        ...addAttrs,
        $min: { ts: new Date(u.ts) },
        $setOnInsert: {
          // Written since attribute search: its hashes are every span's (trace-attrs.ts backfills the others).
          attrsComplete: true,
          id: newId(), projectId: u.projectId, applicationId: u.applicationId, traceId: u.traceId, rootRank: u.rootRank,
          rootTs: u.rootTs === null ? null : new Date(u.rootTs), rootDurationMs: u.duration, rootStatus: u.status, rootUrl: u.url,
          rootService: u.service, rootOperation: u.operation,
        },
      },
      upsert: true,
    } });
  }
  const inserted = await upsertAll(c, upserts, upserted);
  if (attrs.length > 0) await c.traces.bulkWrite(attrs, { ordered: false });

  // Each comparison is one atomic conditional update, so concurrent writers of a trace end with the root the
  // rule picks, whatever their order.
  const roots: AnyBulkWriteOperation<TraceDoc>[] = [];
  for (const [key, u] of entries) {
    if (u.rootRank === 0 || inserted.has(key)) continue;
    const record = current.get(key);
    if (record !== undefined && !outranks(u, { rootRank: record.rootRank, rootTs: record.rootTs?.getTime() ?? null, duration: record.rootDurationMs })) continue;
    roots.push({ updateOne: {
      filter: { _id: key, ...outrankedBy(u) },
      update: { $set: {
        rootRank: u.rootRank, rootTs: new Date(u.rootTs!), rootDurationMs: u.duration, rootStatus: u.status, rootUrl: u.url,
        rootService: u.service, rootOperation: u.operation,
      } },
    } });
  }
  if (roots.length > 0) await c.traces.bulkWrite(roots, { ordered: false });
}

/**
 * Runs the record upserts; returns the keys of the records this call inserted. A record another writer
 * inserted between our lookup and our insert is a duplicate key: that upsert runs again, and then updates.
 */
async function upsertAll(c: Collections, ops: AnyBulkWriteOperation<TraceDoc>[], keys: string[]): Promise<Set<string>> {
  if (ops.length === 0) return new Set();
  const insertedOf = (upsertedIds: Record<number, unknown> | undefined) =>
    new Set(Object.keys(upsertedIds ?? {}).map((i) => keys[Number(i)]!));
  try {
    return insertedOf((await c.traces.bulkWrite(ops, { ordered: false })).upsertedIds);
  } catch (e) {
    if (!onlyDuplicates(e)) throw e;
    const first = insertedOf(e.result?.upsertedIds);
    const retried = await c.traces.bulkWrite(ops, { ordered: false });
    for (const key of insertedOf(retried.upsertedIds)) first.add(key);
    return first;
  }
}
