import type { Database } from 'better-sqlite3';
import { guard } from './errors.js';
import { turn } from './paging.js';

/** Chunks written or removed per transaction: the event loop is held about 30 ms at a time, not a second. */
export const CHUNK_BATCH = 200;

/** Which of a document's chunks to remove: all, all but one claim's, or one claim's. */
export type ChunkSelection = { all: true } | { but: string } | { only: string };

/**
 * Removes a document's chunks a batch per transaction, with a turn of the event loop between (the FTS5 triggers
 * make each removal cost about as much as an insert).
 */
export function chunkRemover(db: Database): (id: string, which: ChunkSelection) => Promise<void> {
  const pick = (where: string) => db.prepare(`DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE document_id = @id ${where} LIMIT @limit)`);
  const all = pick('');
  const but = pick('AND claim <> @claim');
  const only = pick('AND claim = @claim');
  return async (id, which) => {
    const run = () => ('all' in which ? all.run({ id, limit: CHUNK_BATCH })
      : 'but' in which ? but.run({ id, claim: which.but, limit: CHUNK_BATCH }) : only.run({ id, claim: which.only, limit: CHUNK_BATCH }));
    while (guard(run).changes === CHUNK_BATCH) await turn();
  };
}
