import type { AnyBulkWriteOperation } from 'mongodb';
import { asciiLower } from '../text.js';
import { trigramsOf } from '../trigrams.js';
import type { Collections, LogDoc } from './collections.js';

/**
 * The `q` filter's index is filled after the write, as in SQLite (docs/architecture.md, "Log search"): every
 * distinct trigram of a message is one entry of the multikey index (projectId, grams, ts, _id), ~70 per log,
 * which cost the write 6x when it carried them. So a log is written with `gramsPending: true` and no `grams`,
 * and this indexer, in the process that wrote it, sets `grams` and removes the flag, a chunk of logs at a time
 * (found by the partial index `grams_pending`). Until then the log sits at the null key of the trigram index,
 * which every search reads before the trigram's range (log-search.ts), so a search is exact whatever the
 * indexer's lag.
 *
 * Several writers may index the same logs at once: each update matches only a log still pending, and the
 * trigrams of a message are the same whoever computes them.
 */

/**
 * Logs written before `grams` existed carry neither field. Once per database they are marked pending (one pass over
 * the collection, in the background of the first processes to start, then this marker in `counters`), so the
 * indexer takes them too. Readers never depend on it: a log without `grams` is always read (log-search.ts), so
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

/** The most distinct trigrams a log is indexed by (a message of ~2,000 characters); longer ones are read by every search. */
export const MAX_GRAMS = 2000;

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
export async function indexLogsStep(c: Collections, chunk = MONGO_INDEX_CHUNK): Promise<number> {
  const pending = await c.logs.find({ gramsPending: true }, { projection: { _id: 1, message: 1, data: 1 }, limit: chunk, hint: 'grams_pending' }).toArray();
  if (pending.length === 0) return 0;
  const ops: AnyBulkWriteOperation<LogDoc>[] = pending.map((doc) => {
    const message = messageOf(doc);
    const grams = message === null ? [] : trigramsOf(asciiLower(message));
    // A message of more distinct trigrams than MAX_GRAMS stays without `grams`: every search reads and tests it
    // (the null key), rather than one log adding tens of thousands of index entries.
    const indexed = grams.length <= MAX_GRAMS ? { $set: { message, grams } } : { $set: { message } };
    return { updateOne: { filter: { _id: doc._id, gramsPending: true }, update: { ...indexed, $unset: { gramsPending: '' } } } };
  });
  await c.logs.bulkWrite(ops, { ordered: false });
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
