import type { Database } from 'better-sqlite3';
import { attrsIndexStep } from './log-attrs.js';

/**
 * The log search index (`logs_fts`, docs/architecture.md "Log search") is filled after the write, not in it:
 * trigram-indexing a log costs several times what storing it does, so the ingest transaction stores logs only,
 * and this indexer adds the logs above the watermark `logs_fts_state.indexed_upto` (a rowid) in chunks, each in
 * a transaction of its own that also moves the watermark. Readers take the index for rowids up to the
 * watermark and scan the few logs above it (log-search.ts), so a search is exact whatever the index's lag.
 *
 * Rowids of `logs` are assigned max + 1, so the logs above the watermark are the ones not indexed yet. A rowid
 * can be reused only when the newest log is deleted: the migration's delete trigger then lowers the watermark to
 * the largest rowid left, so the reused one lands above it too. (There is no insert trigger: even one that never
 * fires slowed INSERT OR IGNORE into logs 2.5-5x.)
 */

/** Logs indexed per step: ~15-60 ms of the writer's time on the 2-core test machine. */
export const INDEX_CHUNK = 500;

export interface LogIndexer {
  /** Indexes up to `INDEX_CHUNK` logs above the watermark in one transaction; returns how many rowids it covered. */
  step(): number;
  /** How many rowids lie above the watermark (logs stored and not indexed yet, or fewer if some were deleted). */
  backlog(): number;
}

export function createLogIndexer(db: Database, chunk = INDEX_CHUNK): LogIndexer {
  const watermark = db.prepare('SELECT indexed_upto FROM logs_fts_state WHERE id = 1').pluck();
  const attrsWatermark = db.prepare('SELECT indexed_upto FROM logs_attrs_state WHERE id = 1').pluck();
  const attrsStep = attrsIndexStep(db, chunk);
  const newest = db.prepare('SELECT max(rowid) FROM logs').pluck();
  const fill = db.prepare(`INSERT INTO logs_fts (rowid, message)
    SELECT rowid, json_extract(data, '$.message') FROM logs WHERE rowid > ? AND rowid <= ?`);
  const move = db.prepare('UPDATE logs_fts_state SET indexed_upto = ? WHERE id = 1');

  // The lower of the two watermarks: the attribute index (log-attrs.ts) has its own, and starts at 0 on a database
  // that had logs before it existed.
  const backlogNow = (): number => Math.max(0, ((newest.get() as number | null) ?? 0)
    - Math.min(watermark.get() as number, attrsWatermark.get() as number));

  // IMMEDIATE: the watermark is read under the write lock, so two connections (the server and a CLI on the
  // same file) never index the same rowids twice. A step moves each index by up to `chunk` rowids.
  const stepTx = db.transaction((): number => {
    const from = watermark.get() as number;
    const top = (newest.get() as number | null) ?? 0;
    let covered = 0;
    if (top > from) {
      const upto = Math.min(top, from + chunk);
      fill.run(from, upto);
      move.run(upto);
      covered = upto - from;
    }
    return Math.max(covered, attrsStep());
  });

  return {
    step: () => (stepTx.immediate as () => number)(),
    backlog: backlogNow,
  };
}

/** How long the indexer may be kept waiting by a busy writer: at least one step this often. */
export const INDEX_FLOOR_MS = 500;

/**
 * Runs the indexer in the turns its thread leaves free: a step, then a turn of the event loop (where writes come
 * first: `busy()` says whether any wait), until no backlog is left. The writer calls `afterWrite()` after each
 * commit: it restarts the loop after logs were written or after a turn gave way to a write, and, when no step ran
 * for `INDEX_FLOOR_MS`, runs one itself, so that under a load that never leaves a turn free the index still moves.
 */
export interface IndexLoop {
  /** There may be logs to index: start the loop if it is not running. */
  kick(): void;
  /** After a commit (`wroteLogs`: it stored logs). */
  afterWrite(wroteLogs: boolean): void;
  stop(): void;
}

export function startIndexLoop(indexer: LogIndexer, busy: () => boolean, onError: (e: unknown) => void = () => undefined): IndexLoop {
  let timer: NodeJS.Timeout | undefined;
  let lastStep = Date.now();
  let stopped = false;
  let failing = false;
  /** A turn gave way to a write, or logs were written since the last step that found nothing: work may wait. */
  let pending = false;

  function stepNow(): void {
    if (stopped) return;
    lastStep = Date.now();
    try {
      const covered = indexer.step();
      failing = false;
      pending = covered > 0;
      if (covered > 0) kick();
    } catch (e) {
      // A busy database or a full disk: the logs stay above the watermark (scanned by readers) until a later kick.
      if (!failing) onError(e);
      failing = true;
    }
  }

  function turn(): void {
    timer = undefined;
    if (stopped) return;
    // Looked at in the check phase, after the poll phase has read the messages that arrived: a write waiting then
    // goes first, and its commit calls afterWrite, which kicks again.
    setImmediate(() => {
      if (stopped) return;
      if (busy()) {
        pending = true;
        return;
      }
      stepNow();
    });
  }

  function kick(): void {
    pending = true;
    if (stopped || timer !== undefined) return;
    // A timer, not an immediate: an unreferenced immediate waits for other I/O to wake the loop; an unreferenced
    // timer fires on its own while the thread lives, and does not keep it alive.
    timer = setTimeout(turn, 0);
    timer.unref();
  }

  return {
    kick,
    afterWrite(wroteLogs) {
      if (stopped || !(wroteLogs || pending)) return;
      if (Date.now() - lastStep >= INDEX_FLOOR_MS) stepNow();
      kick();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
