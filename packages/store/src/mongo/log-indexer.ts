import type { AnyBulkWriteOperation } from 'mongodb';
import { BLOCK_LOGS } from '../log-postings.js';
import type { Collections, LogDoc, LogSegmentDoc } from './collections.js';
import { DUPLICATE_KEY, codeOf } from './errors.js';
import { blockOf, segmentId, segmentKey, writeSegment } from './log-segments.js';
import { mergeBlocks, sweepSegments } from './log-merge.js';

/**
 * The `q` filter's index is filled after the write, as in SQLite (docs/architecture.md, "Log search"): a log is
 * written with `gramsPending: true`, and this indexer, in the process that wrote it, takes the pending logs a
 * chunk at a time (the partial index `grams_pending`) into segments of the project's postings (log-segments.ts).
 * Until then a search reads the log among the pending ones, on their own index (log-search.ts), so a search is
 * exact whatever the indexer's lag.
 *
 * A step, per project of the pending logs it found:
 * 1. reserves as many numbers (`seq`) from the project's counter, and splits them at block boundaries;
 * 2. per piece, inserts a `building` segment, then claims each log by setting its number where it is still
 *    pending and unnumbered (two indexers at once: each log goes to one of them), then reads back the logs it
 *    claimed and writes the segment (log-segments.ts writeSegment: postings, ready, pending flag removed).
 * A segment left `building` by a process that stopped is written again by the next step after its lease, from
 * the logs its range numbers; a claim that outlived half the lease leaves the segment to that, rather than race it.
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

/** How long a segment may stay `building` before another process writes it again. */
export const SEGMENT_LEASE_MS = 60_000;

/** The message of a log document: its field, or in logs written before the field existed, in `data`. */
function messageOf(doc: Pick<LogDoc, 'message' | 'data'>): string | null {
  if (doc.message !== undefined) return doc.message;
  const message = (JSON.parse(doc.data) as { message?: unknown }).message;
  return typeof message === 'string' ? message : null;
}

type Pending = Pick<LogDoc, '_id' | 'projectId' | 'ts' | 'message' | 'data'>;

/** The first of `n` new numbers of a project's logs. */
async function reserve(c: Collections, projectId: number, n: number): Promise<number> {
  const take = () => c.counters.findOneAndUpdate({ _id: `logs:${projectId}` }, { $inc: { seq: n } }, { upsert: true, returnDocument: 'after' });
  let after;
  try {
    after = await take();
  } catch (e) {
    if (codeOf(e) !== DUPLICATE_KEY) throw e;
    after = await take(); // two first uses at once: the loser's upsert retried
  }
  if (after === null) throw new Error('the log counter was not returned by its upsert');
  return after.seq - n;
}

/** Builds one segment of a project from pending logs numbered from `seq` on (all in one block). */
async function buildSegment(c: Collections, projectId: number, seq: number, logs: Pending[], now: () => number): Promise<void> {
  const started = now();
  const times = logs.map((log) => log.ts.getTime());
  const key = segmentKey(seq, seq + logs.length);
  const segment: LogSegmentDoc = {
    _id: segmentId(projectId, key), projectId, block: blockOf(seq), key, seq, end: seq + logs.length,
    minTs: new Date(Math.min(...times)), maxTs: new Date(Math.max(...times)), state: 'building', at: new Date(started),
  };
  await c.logSegments.insertOne(segment);
  const claims: AnyBulkWriteOperation<LogDoc>[] = logs.map((log, i) => ({
    updateOne: {
      filter: { _id: log._id, gramsPending: true, seq: { $exists: false } },
      // A log written before `message` existed gets it from `data`, for the search's regex.
      update: { $set: { seq: seq + i, ...(log.message === undefined ? { message: messageOf(log) } : {}) } },
    },
  }));
  await c.logs.bulkWrite(claims, { ordered: false });
  if (now() - started > SEGMENT_LEASE_MS / 2) return; // another process may be writing it again by now
  const claimed = await c.logs.find({ projectId, seq: { $gte: seq, $lt: seq + logs.length } },
    { projection: { seq: 1, message: 1, level: 1, ts: 1 }, hint: 'project_seq' }).toArray();
  await writeSegment(c, segment, claimed);
}

/** Writes again the segments whose builder has not finished them within the lease (a process that stopped). */
async function recoverSegments(c: Collections, now: () => number): Promise<void> {
  // A merge that stopped is not written again: log-merge.ts sweeps it.
  const stale = await c.logSegments.find({ state: 'building', at: { $lt: new Date(now() - SEGMENT_LEASE_MS) }, covers: { $exists: false } },
    { limit: 8, hint: 'state_at' }).toArray();
  for (const segment of stale) {
    // Taken by moving its lease: one process writes it.
    const taken = await c.logSegments.updateOne({ _id: segment._id, state: 'building', at: segment.at }, { $set: { at: new Date(now()) } });
    if (taken.modifiedCount === 0) continue;
    const logs = await c.logs.find({ projectId: segment.projectId, seq: { $gte: segment.seq, $lt: segment.end } },
      { projection: { seq: 1, message: 1, level: 1, ts: 1 }, hint: 'project_seq' }).toArray();
    await writeSegment(c, segment, logs);
  }
}

/**
 * Indexes up to `chunk` pending logs into segments; returns how many it found pending. Blocks that filled up, or
 * gathered many segments, are merged after.
 */
export async function indexLogsStep(c: Collections, chunk = MONGO_INDEX_CHUNK, now: () => number = Date.now): Promise<number> {
  await recoverSegments(c, now);
  const pending = await c.logs.find({ gramsPending: true, seq: { $exists: false } },
    { projection: { _id: 1, projectId: 1, ts: 1, message: 1, data: 1 }, limit: chunk, hint: 'grams_pending' }).toArray();
  const byProject = new Map<number, Pending[]>();
  for (const log of pending) {
    const list = byProject.get(log.projectId);
    if (list === undefined) byProject.set(log.projectId, [log]);
    else list.push(log);
  }
  const touched: Array<{ projectId: number; block: number; ended: boolean }> = [];
  for (const [projectId, logs] of byProject) {
    // Oldest first: the numbers then follow time, and a segment's parts of a merge have narrow time ranges.
    logs.sort((a, b) => a.ts.getTime() - b.ts.getTime() || (a._id < b._id ? -1 : 1));
    let seq = await reserve(c, projectId, logs.length);
    let from = 0;
    while (from < logs.length) {
      const block = blockOf(seq);
      const room = (block + 1) * BLOCK_LOGS - seq;
      const piece = logs.slice(from, from + room);
      await buildSegment(c, projectId, seq, piece, now);
      touched.push({ projectId, block, ended: piece.length === room });
      seq += piece.length;
      from += piece.length;
    }
  }
  await mergeBlocks(c, touched, now);
  await sweepSegments(c, now);
  return pending.length;
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
