import type { BlobStore } from '@lantern/blobs';
import { AppError } from '@lantern/domain';
import type { Logger } from '@lantern/logging';
import type { Store, StoredDocument } from '@lantern/store';

/**
 * A document's delete, in the order issue 15 asks for, each step safe to run again:
 *  1. the mark (`deleting`): from then on no list, lookup, dedupe, quota or search sees it, and a worker
 *     processing it loses its claim;
 *  2. its chunks and their index entries;
 *  3. its object;
 *  4. its record.
 * A delete that stops after the mark (the object store failed, the process stopped) leaves a withdrawn document:
 * a retried DELETE finds it and goes on, and once its grace has run out a worker finishes it (finishAbandonedDeletes).
 */
export type DeleteStore = Pick<Store, 'withdrawDocument' | 'removeDocument'>;

/** How long a withdrawn document is left to its own DELETE before a worker may finish it. */
export const DELETE_GRACE_MS = 60_000;

/** Seconds a client waits before it repeats a DELETE whose object could not go. */
const RETRY_AFTER_S = 5;

/**
 * Runs the four steps; true if this call removed the record (of concurrent deletes, exactly one), false if the
 * document was gone before. An object store that fails is 503 `unavailable`, the document withdrawn.
 */
export async function deleteDocument(store: DeleteStore, blobs: Pick<BlobStore, 'delete'>, doc: Pick<StoredDocument, 'id' | 'objectKey'>): Promise<boolean> {
  if (!(await store.withdrawDocument(doc.id, DELETE_GRACE_MS))) return false;
  try {
    await blobs.delete(doc.objectKey);
  } catch {
    // Not the usual 503's "nothing was written": the document is withdrawn already, and a retry finishes it.
    throw new AppError(503, 'unavailable', `The object storage is unavailable: the document is withdrawn (no list or search shows it), its file and record not yet removed. Repeat the DELETE in ${RETRY_AFTER_S} s to finish it; if nobody does, Lantern finishes it within minutes.`, undefined, RETRY_AFTER_S);
  }
  return store.removeDocument(doc.id);
}

/** Finishes up to `limit` deletes that stopped after their mark; how many it finished. Failures wait for the next turn. */
export async function finishAbandonedDeletes(
  { store, blobs, logger }: { store: DeleteStore & Pick<Store, 'abandonedDeletes'>; blobs: Pick<BlobStore, 'delete'>; logger: Logger },
  limit = 20,
): Promise<number> {
  let finished = 0;
  for (const doc of await store.abandonedDeletes(limit)) {
    try {
      if (await deleteDocument(store, blobs, doc)) finished++;
    } catch (err) {
      logger.warn('an interrupted delete could not be finished yet', { documentId: doc.id, error: (err as Error).message });
    }
  }
  if (finished > 0) logger.info('interrupted deletes finished', { documents: finished });
  return finished;
}
