import type { AnyBulkWriteOperation } from 'mongodb';
import { asciiLower } from '../text.js';
import { trigramsOf } from '../trigrams.js';
import type { Collections, LogDoc } from './collections.js';

/**
 * The `q` filter's index is filled after the write, as in SQLite (docs/architecture.md, "Log search"): every
 * distinct trigram of a message is one entry of the multikey index (projectId, grams, ts, _id), ~70 per log,
 * which cost the write 6x when it carried them. So a log is written with `gramsPending: true` and no `grams`,
 * and this indexer, in the process that wrote it, sets `grams` a chunk of logs at a time.
 *
 * A search reads three ranges merged newest first (logs.ts): the trigram's range of that index, its null key
 * (logs without `grams`), and the logs flagged `gramsPending` (the partial index `project_pending_ts`). A log moves
 * from the null key to the trigram's range when it is indexed, and MongoDB reads no snapshot across two cursors:
 * a log indexed between the moments the two cursors pass it would be in neither. So the flag outlives the move:
 * indexing sets `grams` and turns the flag into the time it did so, and the flag goes only `SETTLE_MS` later
 * (`expireLogFlags`), so every read shorter than that finds the log in the flagged range while it moves.
 *
 * Several writers may index the same logs at once: each update matches only a log still pending, and the
 * trigrams of a message are the same whoever computes them.
 */

/** How long a log stays flagged once indexed: longer than any search lasts. */
export const SETTLE_MS = 30_000;

/**
 * Logs written before `grams` existed carry neither field. Once per database they are marked pending (one pass over
 * the collection, in the background of the first processes to start, then this marker in `counters`), so the
 * indexer takes them too. Readers never depend on it: a log without `grams` is always a candidate (logs.ts), so
 * one written by a process of the previous version during a rolling upgrade is found all the same.
 */
export const LEGACY_LOGS_MARKER = 'migration:log-grams';

export async function legacyLogsMarked(c: Collections): Promise<boolean> {
  return (await c.counters.findOne({ _id: LEGACY_LOGS_MARKER })) !== null;
}

export async function markLegacyLogs(c: Collections): Promise<void> {
  await c.logs.updateMany({ grams: { $exists: false }, gramsPending: { $exists: false } }, { $set: { gramsPending: true } });
  await c.counters.updateOne({ _id: LEGACY_LOGS_MARKER }, { $set: { seq: 1 } }, { upsert: true });
}

/** Logs indexed per step. */
export const MONGO_INDEX_CHUNK = 500;

/** The message of a log document: its field, or in logs written before the field existed, in `data`. */
function messageOf(doc: Pick<LogDoc, 'message' | 'data'>): string | null {
  if (doc.message !== undefined) return doc.message;
  const message = (JSON.parse(doc.data) as { message?: unknown }).message;
  return typeof message === 'string' ? message : null;
}

/**
 * Indexes up to `chunk` pending logs; returns how many it found pending. A log written before `message` existed
 * gets it too (from `data`), so that the trigram read can test it.
 */
export async function indexLogsStep(c: Collections, now: () => number, chunk = MONGO_INDEX_CHUNK): Promise<number> {
  const pending = await c.logs.find({ gramsPending: true }, { projection: { _id: 1, message: 1, data: 1 }, limit: chunk, hint: 'pending_since' }).toArray();
  if (pending.length === 0) return 0;
  const at = new Date(now());
  const ops: AnyBulkWriteOperation<LogDoc>[] = pending.map((doc) => {
    const message = messageOf(doc);
    return {
      updateOne: {
        filter: { _id: doc._id, gramsPending: true },
        update: { $set: { message, grams: message === null ? [] : trigramsOf(asciiLower(message)), gramsPending: at } },
      },
    };
  });
  await c.logs.bulkWrite(ops, { ordered: false });
  return pending.length;
}

/** Removes the flag of the logs indexed more than `SETTLE_MS` ago. */
export async function expireLogFlags(c: Collections, now: () => number): Promise<void> {
  await c.logs.updateMany({ gramsPending: { $lt: new Date(now() - SETTLE_MS) } }, { $unset: { gramsPending: '' } }, { hint: 'pending_since' });
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
