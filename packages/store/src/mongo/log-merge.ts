import { randomBytes } from 'node:crypto';
import { Binary } from 'mongodb';
import { unionOf } from '../log-postings.js';
import type { Collections, LogPostingDoc, LogSegmentDoc, SegmentPart } from './collections.js';
import { blockOf, dropSegment, insertKept, keysOf, lock, partsOf, postingId, segmentId, segmentKey, unlock, writeKeys } from './log-segments.js';

/**
 * Merges of a block's segments (log-segments.ts). A search reads every searched segment's postings of its keys, so
 * its cost grows with the number of segments: a block's segments become one when the block is past (the
 * project's numbers beyond it), and MERGE_FANIN segments of one size tier become one before that (a slow
 * project's block fills over hours, a segment a step).
 *
 * A merge takes the block's lock (a lease in `counters`), inserts the merged segment `building` with its parts
 * (each with its time range, by which searches order their reads) and the segments it `covers`, writes its keys
 * and the union of their postings key by key, makes it ready, and only then marks the covered segments merged: a
 * search that lists the segments between the two sees both ready and skips the covered (searchedSegments). A
 * block's postings are ORed across its segments, so even two ready segments of the same logs give each log once.
 * The covered segments' postings stay for SWEEP_AFTER_MS, for the searches that listed them before, then
 * sweepSegments deletes them.
 */

/** Segments of one size tier in a block that make a merge whatever its fill. */
export const MERGE_FANIN = 16;
/** How long a merge may hold its block. */
export const MERGE_LEASE_MS = 60_000;
/** How long the postings of merged segments stay after the merge. */
export const SWEEP_AFTER_MS = 5 * 60_000;
/** Postings read per command. */
const READ_CHUNK = 1000;

/** Parts a merged segment keeps at most: neighbours are joined beyond (their time ranges widened, still true). */
export const MAX_PARTS = 64;

/** `parts` (in order of numbers) joined into at most MAX_PARTS runs of neighbours. */
export function coalesce(parts: readonly SegmentPart[]): SegmentPart[] {
  if (parts.length <= MAX_PARTS) return [...parts];
  const out: SegmentPart[] = [];
  const per = Math.ceil(parts.length / MAX_PARTS);
  for (let i = 0; i < parts.length; i += per) {
    const run = parts.slice(i, i + per);
    out.push({
      seq: run[0]!.seq, end: run.at(-1)!.end,
      minTs: new Date(Math.min(...run.map((p) => p.minTs.getTime()))), maxTs: new Date(Math.max(...run.map((p) => p.maxTs.getTime()))),
    });
  }
  return out;
}

/** The size tier of a segment: its range of numbers in powers of 16 (1-15, 16-255, ...). */
const tierOf = (s: LogSegmentDoc): number => Math.floor(Math.log2(Math.max(1, s.end - s.seq)) / 4);

/** The union of `segments`' postings as one segment of the block; false when it did not finish. */
async function merge(c: Collections, segments: LogSegmentDoc[], now: () => number): Promise<boolean> {
  const started = now();
  const { projectId, block } = segments[0]!;
  const seq = Math.min(...segments.map((s) => s.seq));
  const end = Math.max(...segments.map((s) => s.end));
  const key = segmentKey(seq, end, `m${randomBytes(4).toString('hex')}`);
  const keys = [...new Set((await Promise.all(segments.map((s) => keysOf(c, s._id)))).flat())];
  const parts = coalesce(segments.flatMap(partsOf).sort((a, b) => a.seq - b.seq));
  const merged: LogSegmentDoc = {
    _id: segmentId(projectId, key), projectId, block, key, seq, end,
    minTs: new Date(Math.min(...parts.map((p) => p.minTs.getTime()))), maxTs: new Date(Math.max(...parts.map((p) => p.maxTs.getTime()))),
    state: 'building', at: new Date(started), parts, covers: segments.map((s) => s.key),
  };
  await c.logSegments.insertOne(merged);
  await writeKeys(c, merged._id, keys);
  const perKey = Math.max(1, Math.floor(READ_CHUNK / segments.length));
  for (let i = 0; i < keys.length; i += perKey) {
    const some = keys.slice(i, i + perKey);
    const ids = some.flatMap((k) => segments.map((s) => postingId(projectId, k, block, s.key)));
    const found = new Map<string, LogPostingDoc>((await c.logPostings.find({ _id: { $in: ids } }).toArray()).map((d) => [d._id, d]));
    await insertKept(c.logPostings, some.flatMap((k) => {
      const postings = segments.flatMap((s) => {
        const doc = found.get(postingId(projectId, k, block, s.key));
        return doc === undefined ? [] : [doc.b.buffer];
      });
      return postings.length === 0 ? [] : [{ _id: postingId(projectId, k, block, key), b: new Binary(unionOf(postings)) }];
    }));
  }
  if (now() - started > MERGE_LEASE_MS / 2) return false; // left building: swept
  const made = await c.logSegments.updateOne({ _id: merged._id, state: 'building' }, { $set: { state: 'ready' } });
  if (made.modifiedCount === 0) return false; // swept meanwhile: the segments it was to cover stay as they are
  await c.logSegments.updateMany({ _id: { $in: segments.map((s) => s._id) }, state: 'ready' }, { $set: { state: 'merged', at: new Date(now()) } });
  await c.logSegments.updateOne({ _id: merged._id }, { $unset: { covers: '' } });
  return true;
}

/**
 * Merges the touched blocks that call for it: a past block (the project's numbers beyond it) with two or more
 * segments and none building, all of them; else MERGE_FANIN segments of one size tier, those. By tiers, a log's
 * postings are written again at most four times however slowly its block fills.
 */
export async function mergeBlocks(c: Collections, touched: ReadonlyArray<{ projectId: number; block: number }>, now: () => number): Promise<void> {
  const seen = new Set<string>();
  for (const { projectId, block } of touched) {
    const id = `logmerge:${projectId}|${block}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const segments = await c.logSegments.find({ projectId, block, state: { $in: ['building', 'ready'] } }, { hint: 'project_state' }).toArray();
    const covered = new Set(segments.flatMap((s) => (s.state === 'ready' ? s.covers ?? [] : [])));
    const ready = segments.filter((s) => s.state === 'ready' && !covered.has(s.key));
    const building = segments.some((s) => s.state === 'building');
    if (ready.length < 2) continue;
    const counter = await c.counters.findOne({ _id: `logs:${projectId}` });
    const past = counter !== null && blockOf(counter.seq) > block;
    let chosen: LogSegmentDoc[] = [];
    if (past && !building) chosen = ready;
    else {
      const tiers = new Map<number, LogSegmentDoc[]>();
      for (const s of ready) tiers.set(tierOf(s), [...(tiers.get(tierOf(s)) ?? []), s]);
      chosen = [...tiers.values()].find((list) => list.length >= MERGE_FANIN) ?? [];
    }
    if (chosen.length < 2) continue;
    const at = now();
    if (!(await lock(c, id, at + MERGE_LEASE_MS, at))) continue;
    try {
      await merge(c, chosen, now);
    } finally {
      await unlock(c, id, at + MERGE_LEASE_MS);
    }
  }
}

/** Segments swept per round. */
const SWEEP_CHUNK = 16;

/** Deletes what merges left: covered segments past SWEEP_AFTER_MS, and merges that stopped before their end. */
export async function sweepSegments(c: Collections, now: () => number): Promise<void> {
  for (let round = 0; round < 64; round++) {
    const old = await c.logSegments.find({ state: 'merged', at: { $lt: new Date(now() - SWEEP_AFTER_MS) } }, { limit: SWEEP_CHUNK, hint: 'state_at' }).toArray();
    const stopped = await c.logSegments.find({ state: 'building', at: { $lt: new Date(now() - MERGE_LEASE_MS) }, covers: { $exists: true } },
      { limit: SWEEP_CHUNK, hint: 'state_at' }).toArray();
    for (const segment of [...old, ...stopped]) await dropSegment(c, segment);
    if (old.length < SWEEP_CHUNK && stopped.length < SWEEP_CHUNK) return;
  }
}

/**
 * Retention: deletes the segments whose logs are all older than the cut-off (their postings first); not one being
 * built (its builder still has to clear its logs' pending flag).
 */
export async function dropSegmentsBefore(c: Collections, cutoff: Date): Promise<void> {
  for (;;) {
    const old = await c.logSegments.find({ maxTs: { $lt: cutoff }, state: { $ne: 'building' } }, { limit: 100, hint: 'max_ts' }).toArray();
    for (const segment of old) await dropSegment(c, segment);
    if (old.length < 100) return;
  }
}
