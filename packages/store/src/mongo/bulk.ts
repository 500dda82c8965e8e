import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { DUPLICATE_KEY, codeOf } from './errors.js';

interface BulkFailure {
  writeErrors?: unknown;
  writeConcernError?: unknown;
  result?: { upsertedIds?: Record<number, unknown> };
}

function isBulkFailure(e: unknown): e is BulkFailure {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'MongoBulkWriteError';
}

/** True when every write of a failed bulk failed on a duplicate key (and the write concern was met). */
export function onlyDuplicates(e: unknown): e is BulkFailure {
  if (!isBulkFailure(e) || e.writeConcernError) return false;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors === undefined ? [] : [e.writeErrors];
  return writeErrors.length > 0 && writeErrors.every((w) => codeOf(w) === DUPLICATE_KEY);
}

/** The positions (in the bulk) of the writes that failed. */
function failedIndexes(e: BulkFailure): Set<number> {
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : e.writeErrors === undefined ? [] : [e.writeErrors];
  return new Set(writeErrors.map((w) => (w as { index?: unknown }).index).filter((i): i is number => typeof i === 'number'));
}

/**
 * "Insert if absent" for many documents at once, keyed by `_id`: one unordered bulk insert in which a document
 * already stored fails on its duplicate key and stays as it was (the first version wins), so a repeat stores
 * nothing. Returns the indexes (in `docs`) of the documents this call inserted.
 *
 * The same as an unordered bulk of `$setOnInsert` upserts, without an upsert's query per document. Two writers inserting the same `_id` at once: one
 * inserts, the other gets the duplicate key, which is what it wanted anyway.
 */
export async function insertIfAbsent<T extends Document & { _id: string }>(collection: Collection<T>, docs: readonly T[]): Promise<Set<number>> {
  const all = new Set(docs.map((_, i) => i));
  if (docs.length === 0) return all;
  try {
    // Typed for the generic T by assertion: the driver's conditional types cannot see that a T is insertable.
    await collection.insertMany(docs as unknown as OptionalUnlessRequiredId<T>[], { ordered: false });
    return all;
  } catch (e) {
    if (!onlyDuplicates(e)) throw e;
    const failed = failedIndexes(e);
    return new Set([...all].filter((i) => !failed.has(i)));
  }
}

/** The first of each `key`, in order: a batch that repeats an item stores its first version, as a repeat batch would. */
export function firstOfEach<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
