import type { AnyBulkWriteOperation } from 'mongodb';
import { BLOCK_LOGS, hasPosition, levelKey } from '../log-postings.js';
import type { Collections, LogDoc, LogPostingDoc, LogSegmentDoc, SegmentPart } from './collections.js';
import { increment } from './counters.js';
import { blockOf, lock, postingId, segmentId, segmentKey, unlock, writeSegment } from './log-segments.js';
import { mergeBlocks, sweepSegments } from './log-merge.js';

/**
 * The `q` filter's index is filled after the write, as in SQLite (docs/architecture.md, "Log search"): a log is
 * written with `gramsPending: true`, and this indexer, in the process that wrote it, takes the pending logs a
 * chunk at a time (the partial index `pending_seq`) into segments of the project's postings (log-segments.ts).
 * Until then a search reads the log among the pending ones, on their own index (log-search.ts), so a search is
 * exact whatever the indexer's lag.
 *
 * A step takes up to a chunk of pending logs, then, per project of those logs, under the project's lock:
 * 1. reserves as many numbers (`seq`) from the project's counter, and splits them at block boundaries;
 * 2. per piece, inserts a `building` segment, numbers its logs (where still pending and unnumbered), and writes
 *    the segment (log-segments.ts writeSegment: keys, postings, ready, pending flag removed).
 * A segment left `building` by a process that stopped is written again by a later step after its lease, from the
 * logs its range numbers; a step that outlived half the lease leaves its segment to that, rather than race it.
 * Then blocks are merged (log-merge.ts) and replaced segments swept.
 */

/**
 * Logs written before this index existed (with the trigram field of the index it replaced, or no index field at
 * all) are marked pending once per database (one pass, in the background of the first processes to start, then
 * this marker in `counters`), and the indexer takes them. Until the pass has marked them, `q` does not find them.
 */
export const LEGACY_LOGS_MARKER = 'migration:log-postings';

export async function legacyLogsMarked(c: Collections): Promise<boolean> {
  return (await c.counters.findOne({ _id: LEGACY_LOGS_MARKER })) !== null;
}

export async function markLegacyLogs(c: Collections): Promise<void> {
  await c.logs.updateMany({ seq: { $exists: false }, gramsPending: { $exists: false } }, { $set: { gramsPending: true }, $unset: { grams: '' } });
  await c.counters.updateOne({ _id: LEGACY_LOGS_MARKER }, { $set: { seq: 1 } }, { upsert: true });
}

/** Logs indexed per step at most (a segment is at most this many logs, and a block's full merge 16 of them). */
export const MONGO_INDEX_CHUNK = 4096;

/** Logs in a part of a segment (collections.ts SegmentPart). */
export const PART_LOGS = 512;

/** How long a segment may stay `building` before another process writes it again. */
export const SEGMENT_LEASE_MS = 60_000;

/** The message of a log document: its field, or in logs written before the field existed, in `data`. */
function messageOf(doc: Pick<LogDoc, 'message' | 'data'>): string | null {
  if (doc.message !== undefined) return doc.message;
  const message = (JSON.parse(doc.data) as { message?: unknown }).message;
  return typeof message === 'string' ? message : null;
}

type Pending = Pick<LogDoc, '_id' | 'projectId' | 'ts' | 'message' | 'data' | 'level' | 'attrs'>;

/** The first of `n` new numbers of a project's logs. */
const reserve = async (c: Collections, projectId: number, n: number): Promise<number> => (await increment(c.counters, `logs:${projectId}`, n)) - n;

/** Builds one segment of a project from pending logs, numbered from `seq` on (all in one block), under the project's lock. */
async function buildSegment(c: Collections, projectId: number, seq: number, logs: Pending[], started: number, now: () => number): Promise<void> {
  const times = logs.map((log) => log.ts.getTime());
  const key = segmentKey(seq, seq + logs.length);
  // Parts of PART_LOGS logs (oldest first), each with its time range: a search fetches no candidate of a part
  // outside its window, and stops on their bounds.
  const parts: SegmentPart[] = [];
  for (let i = 0; i < logs.length; i += PART_LOGS) {
    const some = times.slice(i, i + PART_LOGS);
    parts.push({ seq: seq + i, end: seq + i + some.length, minTs: new Date(Math.min(...some)), maxTs: new Date(Math.max(...some)) });
  }
  const segment: LogSegmentDoc = {
    _id: segmentId(projectId, key), projectId, block: blockOf(seq), key, seq, end: seq + logs.length,
    minTs: new Date(Math.min(...times)), maxTs: new Date(Math.max(...times)), state: 'building', at: new Date(now()),
    ...(parts.length > 1 ? { parts } : {}),
  };
  await c.logSegments.insertOne(segment);
  const messages = logs.map(messageOf);
  const numbers: AnyBulkWriteOperation<LogDoc>[] = logs.map((log, i) => ({
    updateOne: {
      filter: { _id: log._id, gramsPending: true, seq: { $exists: false } },
      // A log written before `message` existed gets it from `data`, for the search's regex.
      update: { $set: { seq: seq + i, ...(log.message === undefined ? { message: messages[i] } : {}) } },
    },
  }));
  await c.logs.bulkWrite(numbers, { ordered: false });
  if (now() - started > SEGMENT_LEASE_MS / 2) return; // another step may hold the project's lock, or write the segment, by now
  await writeSegment(c, segment, logs.map((log, i) => ({ ...log, seq: seq + i, message: messages[i] })));
}

/**
 * Writes again the segments whose builder has not finished them within the lease (a process that stopped), from
 * the logs numbered in their range; returns their blocks.
 */
async function recoverSegments(c: Collections, now: () => number): Promise<Array<{ projectId: number; block: number }>> {
  // A merge that stopped is not written again: log-merge.ts sweeps it.
  const stale = await c.logSegments.find({ state: 'building', at: { $lt: new Date(now() - SEGMENT_LEASE_MS) }, covers: { $exists: false } },
    { limit: 8, hint: 'state_at' }).toArray();
  const recovered = [];
  for (const segment of stale) {
    // Taken by moving its lease: one process writes it.
    const taken = await c.logSegments.updateOne({ _id: segment._id, state: 'building', at: segment.at }, { $set: { at: new Date(now()) } });
    if (taken.modifiedCount === 0) continue;
    const logs = await c.logs.find({ projectId: segment.projectId, seq: { $gte: segment.seq, $lt: segment.end } },
      { projection: { seq: 1, message: 1, level: 1, ts: 1, attrs: 1 }, hint: 'project_seq' }).toArray();
    await writeSegment(c, segment, logs);
    recovered.push({ projectId: segment.projectId, block: segment.block });
  }
  return recovered;
}

/**
 * Logs left pending although numbered: their step made the segment ready, then failed to clear them (or is about
 * to). Each is cleared once the level posting of a ready segment holding its number has its position (every log
 * has a level posting); a log that posting lacks stays pending, read by every search. Looked for when a step
 * finds the indexer caught up.
 */
async function clearStuck(c: Collections): Promise<void> {
  // `seq: {$gte: 0}`, not `$exists`: a range of the index, past its null key (the many unnumbered logs of a burst).
  const stuck = await c.logs.find({ gramsPending: true, seq: { $gte: 0 } },
    { projection: { _id: 1, projectId: 1, seq: 1, level: 1 }, limit: 100, hint: 'pending_seq' }).toArray();
  const segmentsOf = new Map<string, Promise<LogSegmentDoc[]>>();
  const postings = new Map<string, Promise<LogPostingDoc | null>>();
  const cleared: string[] = [];
  for (const log of stuck) {
    const seq = log.seq!;
    const at = `${log.projectId}|${blockOf(seq)}`;
    if (!segmentsOf.has(at)) segmentsOf.set(at, c.logSegments.find({ projectId: log.projectId, state: 'ready', block: blockOf(seq) }, { hint: 'project_state' }).toArray());
    for (const segment of (await segmentsOf.get(at)!).filter((s) => s.seq <= seq && seq < s.end)) {
      const id = postingId(log.projectId, levelKey(log.level), segment.block, segment.key);
      if (!postings.has(id)) postings.set(id, c.logPostings.findOne({ _id: id }));
      const posting = await postings.get(id)!;
      if (posting === null || !hasPosition(posting.b.buffer, seq % BLOCK_LOGS)) continue;
      cleared.push(log._id);
      break;
    }
  }
  if (cleared.length > 0) await c.logs.updateMany({ _id: { $in: cleared }, gramsPending: true }, { $unset: { gramsPending: '' } });
}

/**
 * Indexes up to `chunk` pending logs into segments; returns how many it indexed (those of projects another
 * process holds are not counted: its loop goes on with them, this one stops until the next kick). A project's logs are
 * numbered under its lock (log-segments.ts lock: a lease in `counters`), so that two indexers never number the
 * same logs (no number is spent on a log another one took) while several projects are indexed at once; the logs
 * of a project whose lock another process holds are left to it. Blocks that filled up, or gathered many
 * segments, are merged after, and what merges left is swept.
 */
export async function indexLogsStep(c: Collections, chunk = MONGO_INDEX_CHUNK, now: () => number = Date.now): Promise<number> {
  const touched: Array<{ projectId: number; block: number }> = await recoverSegments(c, now);
  const started = now();
  const found = await c.logs.find({ gramsPending: true, seq: { $exists: false } },
    { projection: { _id: 1, projectId: 1, ts: 1, message: 1, data: 1, level: 1, attrs: 1 }, limit: chunk, hint: 'pending_seq' }).toArray();
  const byProject = new Map<number, Pending[]>();
  for (const log of found) {
    const list = byProject.get(log.projectId);
    if (list === undefined) byProject.set(log.projectId, [log]);
    else list.push(log);
  }
  let indexed = 0;
  for (const [projectId, logs] of byProject) {
    const id = `logindex:${projectId}`;
    const until = started + SEGMENT_LEASE_MS;
    if (!(await lock(c, id, until, started))) continue;
    indexed += logs.length;
    try {
      // Oldest first: the numbers then follow time, and a segment's parts have narrow time ranges.
      logs.sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a._id < b._id ? -1 : 1));
      let seq = await reserve(c, projectId, logs.length);
      let from = 0;
      while (from < logs.length) {
        const block = blockOf(seq);
        const piece = logs.slice(from, from + (block + 1) * BLOCK_LOGS - seq);
        await buildSegment(c, projectId, seq, piece, started, now);
        touched.push({ projectId, block });
        seq += piece.length;
        from += piece.length;
      }
    } finally {
      await unlock(c, id, until);
    }
  }
  if (found.length < chunk) await clearStuck(c);
  await mergeBlocks(c, touched, now);
  await sweepSegments(c, now);
  return indexed;
}

/**
 * Runs `step` until it finds fewer than a chunk, whenever `kick()` says logs were written (a kick during a run
 * makes it go on). One run at a time; a failed step ends the run (`onError` hears it) and the logs stay pending,
 * candidates of every search, until the next kick. `stop()` waits for the step under way.
 */
export interface MongoIndexLoop {
  kick(): void;
  stop(): Promise<void>;
}

export function startMongoIndexLoop(step: () => Promise<number>, chunk = MONGO_INDEX_CHUNK, onError: (e: unknown) => void = () => undefined): MongoIndexLoop {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  async function run(): Promise<void> {
    try {
      for (;;) {
        again = false;
        if (stopped) return;
        const found = await step();
        if (found < chunk && !again) return;
      }
    } catch (e) {
      again = false;
      if (!stopped) onError(e);
    }
  }

  function launch(): void {
    running = run().finally(() => {
      running = undefined;
      // A kick that came after the run's last look: go on.
      if (again && !stopped) launch();
    });
  }

  return {
    kick() {
      if (stopped) return;
      if (running) again = true;
      else launch();
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
