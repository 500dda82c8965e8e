import type { Database } from 'better-sqlite3';
import { codeOf, type ConstraintMessages, toStoreError } from './errors.js';
import { BUSY_TIMEOUT_MS } from './schema.js';

/** The longest pause between two tries for the write lock. */
const MAX_PAUSE_MS = 16;

const isBusy = (e: unknown): boolean => codeOf(e).startsWith('SQLITE_BUSY');

/**
 * A write on the connection that serves requests, without blocking its event loop while another connection holds
 * the write lock (on the embedded server, the writer thread: span and log commits, a document's chunks). SQLite's
 * busy handler waits inside the call, sleeping 1, 2, 5, 10... ms between tries, and the event loop with it: a
 * claim or a lease renewal during a 10 MB PDF's chunks held ingest for 50-70 ms (docs/benchmarks.md, "The
 * completion on the writer thread"). Here a try that finds the lock taken fails at once (busy_timeout 0 for that
 * try only: nothing else runs on this connection meanwhile), and the next comes after a timer of 1, 2, 4... up to
 * 16 ms, until BUSY_TIMEOUT_MS have passed: then the store's 503, as the busy handler's timeout gives.
 * `write` is one statement or one transaction (`.immediate`): a try that fails wrote nothing. What else it throws
 * is translated as `guard` does, with `messages` for its constraints.
 */
export async function writeUnblocked<T>(db: Database, write: () => T, messages?: ConstraintMessages): Promise<T> {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    // A connection closed while this waited (the store closing) throws here: the 503 toStoreError makes of it.
    try {
      db.pragma('busy_timeout = 0');
      return write();
    } catch (e) {
      if (!isBusy(e) || performance.now() >= deadline) throw toStoreError(e, messages);
    } finally {
      if (db.open) db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
