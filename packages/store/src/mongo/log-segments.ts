import { Binary } from 'mongodb';
import { BLOCK_LOGS, encodePositions, postingsAt } from '../log-postings.js';
import { onlyDuplicates } from './bulk.js';
import { DUPLICATE_KEY, codeOf } from './errors.js';
import type { Collection, OptionalUnlessRequiredId } from 'mongodb';
import type { Collections, LogDoc, LogSegmentDoc, SegmentPart } from './collections.js';

/**
 * The `q` filter's index on MongoDB (docs/architecture.md, "Log search"): postings per (posting key, segment).
 *
 * - The log indexer numbers a project's logs as it takes them (`seq`, log-indexer.ts); BLOCK_LOGS consecutive
 *   numbers are a block, and a log's position in its block is the rest of its number.
 * - A segment is the logs of one project in one indexer step (at most one block's): a `logSegments` document
 *   with its range of numbers and the time its logs span, its posting keys in `logSegmentKeys` (chunks: a block
 *   of varied text has many), and one `logPostings` document per trigram and level of its logs, the positions in
 *   the block of the logs that have it (log-postings.ts: a uint16 list, or a bitmap when dense).
 * - A posting's `_id` is `<projectId>|<key>|<block, 8 digits>|<segment key>`, so one key's postings of a project
 *   are one range of the `_id` index, newest block last: a search reads it backwards, a cursor per key, and
 *   intersects the keys block by block (log-candidates.ts). Merges and deletions name postings by `_id` (`$in`).
 *   A trigram is three code points and a level key `\u0001<level>`, neither ends in `|` + digit, so a key's
 *   prefix matches only its own postings.
 * - Segments of a block are merged into one as the block fills (log-merge.ts); the merged segment lists the ones
 *   it `covers`, which searches then skip, and their postings are deleted a while later.
 */

export const pad = (n: number, width: number): string => String(n).padStart(width, '0');
/** A segment's key: its first and end numbers, and a tag that tells two merges of the same range apart. */
export const segmentKey = (seq: number, end: number, tag = ''): string => `${pad(seq, 12)}-${pad(end, 12)}${tag}`;
export const segmentId = (projectId: number, key: string): string => `${projectId}|${key}`;
export const postingId = (projectId: number, key: string, block: number, segment: string): string =>
  `${projectId}|${key}|${pad(block, 8)}|${segment}`;
/** The `_id` range of one key's postings in a project from block `from` to block `to - 1`. */
export const keyRange = (projectId: number, key: string, from: number, to: number): { $gte: string; $lt: string } =>
  ({ $gte: `${projectId}|${key}|${pad(from, 8)}`, $lt: `${projectId}|${key}|${pad(to, 8)}` });
/** The block of a posting `_id`, and its segment key. */
export function blockAndSegmentOf(id: string): { block: number; segment: string } {
  const end = id.lastIndexOf('|');
  return { block: Number(id.slice(id.lastIndexOf('|', end - 1) + 1, end)), segment: id.slice(end + 1) };
}

export const blockOf = (seq: number): number => Math.floor(seq / BLOCK_LOGS);

/** Postings inserted per command, and keys per chunk document. */
const INSERT_CHUNK = 1000;
const KEYS_CHUNK = 20_000;

/** The leaf parts of a segment: a merge's, or itself. */
export const partsOf = (s: LogSegmentDoc): SegmentPart[] => s.parts ?? [{ seq: s.seq, end: s.end, minTs: s.minTs, maxTs: s.maxTs }];

/** Inserts documents, keeping those already there (a segment written again writes the same). */
export async function insertKept<T extends { _id: string }>(collection: Collection<T>, docs: readonly T[]): Promise<void> {
  for (let i = 0; i < docs.length; i += INSERT_CHUNK) {
    try {
      await collection.insertMany(docs.slice(i, i + INSERT_CHUNK) as OptionalUnlessRequiredId<T>[], { ordered: false });
    } catch (e) {
      if (!onlyDuplicates(e)) throw e;
    }
  }
}

/** Records the posting keys of a segment (before its postings: whoever deletes the segment reads them). */
export async function writeKeys(c: Collections, segment: string, keys: readonly string[]): Promise<void> {
  const docs = [];
  for (let i = 0; i < keys.length; i += KEYS_CHUNK) docs.push({ _id: `${segment}|${pad(i / KEYS_CHUNK, 6)}`, keys: keys.slice(i, i + KEYS_CHUNK) });
  await insertKept(c.logSegmentKeys, docs);
}

/** The posting keys of a segment. */
export async function keysOf(c: Collections, segment: string): Promise<string[]> {
  const chunks = await c.logSegmentKeys.find({ _id: { $gte: `${segment}|`, $lt: `${segment}|~` } }, { sort: { _id: 1 } }).toArray();
  return chunks.flatMap((chunk) => chunk.keys);
}

/**
 * Writes the keys and postings of a building segment from its logs (those numbered in its range), then makes it
 * ready, then takes those logs out of the pending ones; in that order, so that a log is always in the pending
 * read or in a ready segment (a search reads both: log-search.ts). Idempotent: what is already written is kept
 * (the same logs give the same postings), so a segment whose builder stopped can be written again
 * (log-indexer.ts). The logs stay pending unless the segment is ready (one dropped meanwhile leaves them there).
 */
export async function writeSegment(c: Collections, segment: LogSegmentDoc, logs: ReadonlyArray<Pick<LogDoc, '_id' | 'seq' | 'message' | 'level' | 'ts' | 'attrs'>>): Promise<void> {
  const start = segment.block * BLOCK_LOGS;
  const postings = postingsAt(logs.map((log) => ({ position: log.seq! - start, message: log.message, level: log.level, attrs: log.attrs })));
  await writeKeys(c, segment._id, [...postings.keys()]);
  await insertKept(c.logPostings, [...postings].map(([key, positions]) => ({ _id: postingId(segment.projectId, key, segment.block, segment.key), b: new Binary(encodePositions(positions)) })));
  const times = logs.map((log) => log.ts.getTime());
  const span = times.length === 0 ? {} : { minTs: new Date(Math.min(...times)), maxTs: new Date(Math.max(...times)) };
  const made = await c.logSegments.updateOne({ _id: segment._id, state: 'building' }, { $set: { state: 'ready', ...span } });
  if (made.modifiedCount === 0 && (await c.logSegments.findOne({ _id: segment._id, state: { $ne: 'building' } })) === null) return;
  // Only those numbered in its range: a log another step numbered meanwhile waits for that step's segment.
  const ids = logs.map((log) => log._id);
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
    await c.logs.updateMany({ _id: { $in: ids.slice(i, i + INSERT_CHUNK) }, gramsPending: true, seq: { $gte: segment.seq, $lt: segment.end } },
      { $unset: { gramsPending: '' } });
  }
}

/** Deletes a segment's postings, then its keys, then the segment. */
export async function dropSegment(c: Collections, segment: Pick<LogSegmentDoc, '_id' | 'projectId' | 'block' | 'key'>): Promise<void> {
  const ids = (await keysOf(c, segment._id)).map((key) => postingId(segment.projectId, key, segment.block, segment.key));
  for (let i = 0; i < ids.length; i += INSERT_CHUNK) await c.logPostings.deleteMany({ _id: { $in: ids.slice(i, i + INSERT_CHUNK) } });
  await c.logSegmentKeys.deleteMany({ _id: { $gte: `${segment._id}|`, $lt: `${segment._id}|~` } });
  await c.logSegments.deleteOne({ _id: segment._id });
}

/**
 * The segments a search of a project reads: the ready ones not covered by another ready one (a merge is ready
 * before the segments it replaces are marked merged). From the primary, as every read of a search (log-search.ts).
 */
export async function searchedSegments(c: Collections, projectId: number, maxTimeMS: { maxTimeMS?: number }): Promise<LogSegmentDoc[]> {
  const ready = await c.logSegments.find({ projectId, state: 'ready' }, { hint: 'project_state', readPreference: 'primary', ...maxTimeMS }).toArray();
  const covered = new Set(ready.flatMap((s) => s.covers ?? []));
  return ready.filter((s) => !covered.has(s.key));
}

/**
 * Takes a lock of the indexer (a project's numbering, a block's merge): a document of `counters` whose value is
 * the end of its lease. False when another process holds it; a lease past its end is free.
 */
export async function lock(c: Collections, id: string, until: number, now: number): Promise<boolean> {
  try {
    const taken = await c.counters.updateOne({ _id: id, seq: { $lt: now } }, { $set: { seq: until } }, { upsert: true });
    return taken.modifiedCount + taken.upsertedCount === 1;
  } catch (e) {
    if (codeOf(e) === DUPLICATE_KEY) return false; // held: the upsert found no free lock and the `_id` taken
    throw e;
  }
}

/** Gives a lock back, if it is still the one taken (the same lease end). */
export async function unlock(c: Collections, id: string, until: number): Promise<void> {
  await c.counters.updateOne({ _id: id, seq: until }, { $set: { seq: 0 } });
}
