import type { BlobStore } from '@lantern/blobs';
import { errors } from '@lantern/domain';
import type { Logger } from '@lantern/logging';
import type { Store, StoredDocument } from '@lantern/store';
import type { RequestHandler } from 'express';
import { deleteDocument } from './delete.js';

export type AdmitStore = Pick<Store, 'createDocument' | 'withdrawDocument' | 'removeDocument' | 'findDocumentBySha256' | 'organizationStoredBytes'>;

export interface AdmitDeps {
  store: AdmitStore;
  blobs: BlobStore;
  logger: Logger;
  /** Bytes of documents one organization may keep (STORAGE_QUOTA_BYTES). */
  quotaBytes: number;
}

/**
 * The most a multipart upload's body carries besides the file: up to 12 part headers of at most 16 KiB each
 * (busboy's bound), 10 fields of at most 1 KiB (uploadMiddleware's limits), boundaries, with room to spare.
 */
const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

/**
 * Before the body is read: refused at once when the organization is at its quota (no byte would fit), or when
 * the declared Content-Length, less the most a form carries besides the file, cannot fit.
 */
export function quotaNotReached({ store, quotaBytes }: Pick<AdmitDeps, 'store' | 'quotaBytes'>): RequestHandler {
  return async (req, res, next) => {
    const used = await store.organizationStoredBytes(res.locals['organizationId'] as number);
    const declared = Number(req.headers['content-length']);
    const fileAtLeast = Number.isSafeInteger(declared) ? Math.max(0, declared - MULTIPART_OVERHEAD_BYTES) : 0;
    if (used >= quotaBytes || used + fileAtLeast > quotaBytes) throw errors.quotaExceeded(quotaBytes, used);
    next();
  };
}

/**
 * Keeps a document whose bytes are in the blob store, or answers with the one already kept. In order:
 *  - the same bytes (sha256) already in the tenant: the new blob is deleted and the existing record returned;
 *  - the organization's stored bytes plus this file over the quota: the blob is deleted, 413 `quota_exceeded`;
 *  - else the record is stored, then both checked again, since concurrent uploads each passed them alone: if
 *    an identical upload got in first, this one gives way to it; if together they overflow the quota, this one
 *    is removed and refused (several may be refused at once: the quota is never exceeded for long, and never
 *    left exceeded).
 */
export async function admitDocument(
  { store, blobs, logger, quotaBytes }: AdmitDeps,
  organizationId: number,
  record: StoredDocument,
): Promise<{ document: StoredDocument; existing: boolean }> {
  const discard = async () => {
    await blobs.delete(record.objectKey).catch((err: unknown) =>
      logger.warn('could not delete a discarded upload', { objectKey: record.objectKey, error: (err as Error).message }));
  };
  // A record stored, then given up: deleted as any document is; if its object cannot go now, a worker finishes it.
  const withdraw = async (doc: StoredDocument) => {
    await deleteDocument(store, blobs, doc).catch((err: unknown) =>
      logger.warn('could not delete a discarded upload', { objectKey: record.objectKey, error: (err as Error).message }));
  };
  const same = await store.findDocumentBySha256(record.tenantId, record.sha256);
  if (same) {
    await discard();
    return { document: same, existing: true };
  }
  const used = await store.organizationStoredBytes(organizationId);
  if (used + record.size > quotaBytes) {
    await discard();
    throw errors.quotaExceeded(quotaBytes, used);
  }
  let stored: StoredDocument;
  try {
    stored = await store.createDocument(record);
  } catch (err) {
    await discard();
    throw err;
  }
  const first = await store.findDocumentBySha256(record.tenantId, record.sha256);
  if (first && first.id !== stored.id) {
    await withdraw(stored);
    return { document: first, existing: true };
  }
  const after = await store.organizationStoredBytes(organizationId);
  if (after > quotaBytes) {
    await withdraw(stored);
    throw errors.quotaExceeded(quotaBytes, after - record.size);
  }
  return { document: stored, existing: false };
}
