import type { Filter, FindCursor } from 'mongodb';
import { BLOCK_LOGS, bitmapOf, intersect, positionsOf } from '../log-postings.js';
import type { Deadline } from './budget.js';
import type { Collections, LogDoc, LogPostingDoc, SegmentPart } from './collections.js';
import { blockAndSegmentOf, keyRange, partsOf, searchedSegments } from './log-segments.js';

/** Candidates fetched per command. */
const FETCH = 500;
/** The parts just below a read's position that bound it as they should (late logs), and the far ones read whole. */
const NEAR = 4;
const MAX_OUTLIERS = 4;

/** One key's postings of the searched segments, newest block first: a cursor read a block at a time. */
class BlockStream {
  private head: LogPostingDoc | null | undefined;

  constructor(private readonly cursor: FindCursor<LogPostingDoc>, private readonly searched: Map<number, Set<string>>) {}

  /** The block of the next posting of a searched segment, or undefined at the end. */
  async block(): Promise<number | undefined> {
    for (;;) {
      if (this.head === undefined) this.head = await this.cursor.next();
      if (this.head === null) return undefined;
      const { block, segment } = blockAndSegmentOf(this.head._id);
      if (this.searched.get(block)?.has(segment)) return block;
      this.head = undefined; // a segment not searched: building, covered by a merge, or outside the time range
    }
  }

  /** The positions of the head block, in every searched segment of it; or, with `keep` false, past it. */
  async take(block: number, keep: boolean): Promise<Uint32Array | undefined> {
    let acc: Uint32Array | undefined;
    while ((await this.block()) === block) {
      if (keep) {
        const bits = bitmapOf(this.head!.b.buffer);
        if (acc === undefined) acc = bits;
        else for (let i = 0; i < acc.length; i++) acc[i]! |= bits[i]!;
      }
      this.head = undefined;
    }
    return acc;
  }

  close(): Promise<void> {
    return this.cursor.close();
  }
}

/** Newer first: later `ts`, then larger `_id` (the order of every read of logs). */
export const newerLog = (a: LogDoc, b: LogDoc): number => b.ts.getTime() - a.ts.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);

/**
 * The newest `limit` logs of a project that match `filter` among those whose postings hold every one of `keys`
 * (trigrams of the text, and the level's key), in the order of newerLog.
 *
 * Only segments whose time range meets [`from`, `upTo`] are read. Every key's postings are read newest block first
 * (a cursor each) and intersected block by block; a block some key lacks has no candidate. A block's candidates
 * are fetched newest number first, FETCH at a time, by `(projectId, seq)` with `filter` (the text as a regex, the
 * time window, the level, the application); found logs are kept sorted. The read ends when `limit` are kept and
 * the last of them is newer than every part (log-segments.ts) not yet fetched: numbers follow the order in which
 * the indexer took the logs, not their time, so the parts' time ranges bound what is left (a few far parts that
 * hold logs stamped ahead are read whole instead: `done`). Every read from the primary (log-search.ts).
 */
export async function searchProject(c: Collections, projectId: number, keys: readonly string[], filter: Filter<LogDoc>,
  window: { from?: number; upTo?: number }, limit: number, deadline: Deadline): Promise<LogDoc[]> {
  const parts: Array<SegmentPart & { block: number }> = [];
  const searched = new Map<number, Set<string>>();
  for (const segment of await searchedSegments(c, projectId, deadline.maxTime())) {
    const useful = partsOf(segment).filter((p) => (window.from === undefined || p.maxTs.getTime() >= window.from)
      && (window.upTo === undefined || p.minTs.getTime() <= window.upTo));
    if (useful.length === 0) continue;
    parts.push(...useful.map((p) => ({ ...p, block: segment.block })));
    const set = searched.get(segment.block) ?? new Set<string>();
    searched.set(segment.block, set.add(segment.key));
  }
  if (parts.length === 0) return [];
  // The newest time of any part from a number down: what is still to fetch below that number.
  parts.sort((a, b) => a.seq - b.seq);
  const below = parts.map((p) => p.maxTs.getTime());
  for (let i = 1; i < below.length; i++) below[i] = Math.max(below[i]!, below[i - 1]!);
  /** How many parts start before `seq`. */
  const startingBefore = (seq: number): number => {
    let lo = 0;
    let hi = parts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (parts[mid]!.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  // Parts read whole (far outliers, below): no longer bounding what is left.
  const read = new Set<number>();
  const newestBelow = (seq: number): number => {
    const n = startingBefore(seq);
    if (read.size === 0) return n === 0 ? Number.NEGATIVE_INFINITY : below[n - 1]!;
    let newest = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) if (!read.has(i)) newest = Math.max(newest, parts[i]!.maxTs.getTime());
    return newest;
  };
  // A candidate in a part outside the window (a block's postings span all its parts) is not fetched.
  const inWindow = (seq: number): boolean => {
    const n = startingBefore(seq + 1);
    return n > 0 && seq < parts[n - 1]!.end;
  };

  const blocks = [...searched.keys()];
  const [first, last] = [Math.min(...blocks), Math.max(...blocks)];
  const streams = keys.map((key) => new BlockStream(c.logPostings.find({ _id: keyRange(projectId, key, first, last + 1) },
    { sort: { _id: -1 }, batchSize: 256, readPreference: 'primary', ...deadline.maxTime() }), searched));
  const kept: LogDoc[] = [];
  const keptIds = new Set<string>();
  const keep = (docs: LogDoc[]) => {
    for (const doc of docs) {
      if (keptIds.has(doc._id)) continue;
      keptIds.add(doc._id);
      kept.push(doc);
    }
    kept.sort(newerLog);
    for (const doc of kept.splice(limit)) keptIds.delete(doc._id);
  };
  /**
   * Whether nothing below `seq` can enter the page. A part far below that holds logs newer than the page's last
   * (a client whose clock ran ahead stamped one in the future) would keep every read going down to it: when at
   * most MAX_OUTLIERS such parts lie beyond the NEAR parts just below, those are read whole, then left out.
   */
  const done = async (seq: number): Promise<boolean> => {
    if (kept.length < limit) return false;
    const last = kept[limit - 1]!.ts.getTime();
    if (last > newestBelow(seq)) return true;
    const n = startingBefore(seq);
    const far: number[] = [];
    for (let i = 0; i < n - NEAR; i++) if (!read.has(i) && parts[i]!.maxTs.getTime() >= last) far.push(i);
    if (far.length === 0 || far.length > MAX_OUTLIERS) return false;
    for (const i of far) {
      keep(await c.logs.find({ $and: [{ projectId, seq: { $gte: parts[i]!.seq, $lt: parts[i]!.end } }, filter] },
        { sort: { ts: -1, _id: -1 }, limit, hint: 'project_seq', readPreference: 'primary', ...deadline.maxTime() }).toArray());
      read.add(i);
    }
    return kept.length >= limit && kept[limit - 1]!.ts.getTime() > newestBelow(seq);
  };
  try {
    for (;;) {
      deadline.check();
      const heads = await Promise.all(streams.map((s) => s.block()));
      if (heads.some((h) => h === undefined)) return kept;
      const target = Math.min(...(heads as number[]));
      const together = heads.every((h) => h === target);
      const bits = await Promise.all(streams.map((s, k) => (together || heads[k]! > target ? s.take(heads[k]!, together) : undefined)));
      if (!together) {
        // Blocks above `target` lack a key: none of theirs is a candidate.
        if (await done((target + 1) * BLOCK_LOGS)) return kept;
        continue;
      }
      const acc = bits[0]!;
      for (const other of bits.slice(1)) intersect(acc, other!);
      const seqs = positionsOf(acc).map((p) => target * BLOCK_LOGS + p).filter(inWindow);
      for (let i = 0; i < seqs.length; i += FETCH) {
        if (await done(seqs[i]! + 1)) return kept;
        const some = seqs.slice(i, i + FETCH);
        keep(await c.logs.find({ $and: [{ projectId, seq: { $in: some } }, filter] },
          { sort: { ts: -1, _id: -1 }, limit, hint: 'project_seq', readPreference: 'primary', ...deadline.maxTime() }).toArray());
      }
      if (await done(target * BLOCK_LOGS)) return kept;
    }
  } finally {
    await Promise.all(streams.map((s) => s.close()));
  }
}
