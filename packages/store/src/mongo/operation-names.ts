import type { AnyBulkWriteOperation, Document } from 'mongodb';
import { MAX_OPERATIONS_PER_HOUR, keptNamesOf } from '../operation-rollups.js';
import type { KeptNames, OperationHour } from '../operation-rollups.js';
import { onlyDuplicates } from './bulk.js';
import type { Collections, OperationNamesDoc } from './collections.js';
import { rollupKey } from './collections.js';

/**
 * The new names of `names` (a literal: a name may start with `$`) appended to the stored list while it holds
 * fewer than `max`, in their order: an expression of an update pipeline, evaluated by mongod on the document as
 * it is when the update applies.
 */
function appendUpTo(names: string[], max: number): Document {
  return {
    $let: {
      vars: { held: { $ifNull: ['$names', []] } },
      in: {
        $concatArrays: ['$$held', {
          $slice: [
            { $filter: { input: { $literal: names }, as: 'name', cond: { $not: [{ $in: ['$$name', '$$held'] }] } } },
            { $max: [0, { $subtract: [max, { $size: '$$held' }] }] },
          ],
        }],
      },
    },
  };
}

/**
 * Decides which operation names the (application, hour)s of a delta keep (../operation-rollups.ts): the first
 * `max` names each hour saw, kept in one document per (application, hour) (`operationNames`). Several writers
 * decide at once without transactions: each document changes by one update of a pipeline that appends the
 * delta's new names while there is room (a single-document update is atomic, so concurrent writers append one
 * after the other and the list never grows past `max`), then the lists are read back. A name, once in a list,
 * stays there until the purge takes the hour's documents out; a name refused finds the list full, which it then
 * stays: so every delta of an hour (a retry, a span taken out again) maps a name to the same cell.
 *
 * Two round trips for the whole delta, whatever the number of hours: one unordered bulk of upserts, one find;
 * none when the store already knows how each hour decides the delta's names (cacheOf). Hours of the delta without a
 * name (only OTHER_OPERATIONS) are neither written nor read.
 */
export async function keepNames(c: Collections, hours: OperationHour[], max = MAX_OPERATIONS_PER_HOUR): Promise<KeptNames> {
  const cache = cacheOf(c);
  const decided: { applicationId: number; hour: number; kept: ReadonlySet<string> }[] = [];
  const named: OperationHour[] = [];
  for (const h of hours) {
    if (h.names.size === 0) continue;
    const known = cache.known(h.applicationId, h.hour);
    // Known for good: every name kept already, or the list full (a name not in it never will be).
    if (known !== undefined && (known.full || [...h.names].every((n) => known.kept.has(n)))) decided.push({ ...h, kept: known.kept });
    else named.push(h);
  }
  if (named.length === 0) return keptNamesOf(decided);
  const ids = named.map((h) => rollupKey(h.applicationId, h.hour));
  const updates = named.map((h, i): AnyBulkWriteOperation<OperationNamesDoc> => ({ updateOne: {
    filter: { _id: ids[i]! },
    update: [{ $set: { projectId: h.projectId, applicationId: h.applicationId, hour: new Date(h.hour), names: appendUpTo([...h.names], max) } }],
    upsert: true,
  } }));
  try {
    await c.operationNames.bulkWrite(updates, { ordered: false });
  } catch (e) {
    // Two writers inserting an hour's document at once: one inserts, the other's upsert fails on the duplicate
    // key (when mongod does not retry it itself); the same updates again find the document and append to it.
    if (!onlyDuplicates(e)) throw e;
    await c.operationNames.bulkWrite(updates, { ordered: false });
  }
  const docs = await c.operationNames.find({ _id: { $in: ids } }, { projection: { names: 1 } }).toArray();
  const byId = new Map(docs.map((d) => [d._id, d.names]));
  named.forEach((h, i) => {
    // A document gone meanwhile (its hour purged): none of its names kept, and nothing remembered.
    const names = byId.get(ids[i]!);
    const kept = new Set(names ?? []);
    if (names !== undefined) cache.learn(h.applicationId, h.hour, kept, kept.size >= max);
    decided.push({ applicationId: h.applicationId, hour: h.hour, kept });
  });
  return keptNamesOf(decided);
}

/**
 * What this store's writers learnt of the hours' lists: a name seen kept stays kept, a full list stays full, so a
 * delta whose names are all known skips both round trips (after an hour's first groups, nearly every one). Per
 * store (its Collections). Only hours near now are remembered (from RECENT_MS before it to an hour after): the
 * purge, which takes an hour's list out, reaches only hours a day or more past (retention is in days), so a remembered list is the stored one; a late
 * span's hour is decided by the database. Bounded by the names held: emptied past CACHE_NAMES.
 */
const RECENT_MS = 6 * 3_600_000;
const CACHE_NAMES = 50_000;

class KnownHours {
  private readonly hours = new Map<string, { kept: Set<string>; full: boolean }>();
  private names = 0;

  private static recent(hour: number): boolean {
    const now = Date.now();
    return hour >= now - RECENT_MS && hour <= now + 3_600_000;
  }

  known(applicationId: number, hour: number): { kept: Set<string>; full: boolean } | undefined {
    return KnownHours.recent(hour) ? this.hours.get(rollupKey(applicationId, hour)) : undefined;
  }

  learn(applicationId: number, hour: number, kept: Set<string>, full: boolean): void {
    if (!KnownHours.recent(hour)) return;
    if (this.names + kept.size > CACHE_NAMES) {
      this.hours.clear();
      this.names = 0;
    }
    const key = rollupKey(applicationId, hour);
    this.names += kept.size - (this.hours.get(key)?.kept.size ?? 0);
    this.hours.set(key, { kept, full });
  }
}

const caches = new WeakMap<Collections, KnownHours>();

function cacheOf(c: Collections): KnownHours {
  let cache = caches.get(c);
  if (cache === undefined) caches.set(c, (cache = new KnownHours()));
  return cache;
}
