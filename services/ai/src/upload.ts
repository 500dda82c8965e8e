import type { Readable } from 'node:stream';
import type { BlobStore } from '@lantern/blobs';
import { AppError, errors, limits, newId, toIso } from '@lantern/domain';
import type { StoredDocument } from '@lantern/store';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { createUploadInspector, decideDocumentType, sanitizeFilename, type InspectionResult } from './detect/index.js';

/** What the storage engine leaves on `req.file` once the bytes are in object storage. */
export interface StoredUpload {
  documentId: string;
  objectKey: string;
  size: number;
  inspection: InspectionResult;
}

/**
 * A multer storage engine that streams the part straight into the blob store while the inspector hashes
 * it, measures it and keeps its head and tail for the type decision: memory does not grow with the file.
 * The object key is made here (`tenants/{tenantId}/documents/{documentId}`), never from the filename.
 */
function blobStorage(blobs: BlobStore): multer.StorageEngine {
  return {
    _handleFile(req, file, cb) {
      const tenantId = (req as Request).res!.locals['tenantId'] as string;
      const documentId = newId();
      const objectKey = `tenants/${tenantId}/documents/${documentId}`;
      const inspector = createUploadInspector();
      const source = file.stream as Readable;
      source.on('error', (err) => inspector.destroy(err));
      // A part cut off without an error (busboy destroys it) must fail the put too, or it would wait forever.
      source.on('close', () => {
        if (!source.readableEnded) inspector.destroy(new Error('the file part was cut off'));
      });
      source.pipe(inspector);
      const put = blobs.put(objectKey, inspector, { contentType: 'application/octet-stream' });
      // multer answers some refusals (a body cut short) without waiting for this callback: uploadMiddleware waits
      // for the put to settle, so the blob store has removed what it wrote before the client hears 400.
      (req as Request).res!.locals[PENDING_PUT] = put.then(
        () => undefined,
        () => undefined,
      );
      put.then(
        ({ size }) => cb(null, { documentId, objectKey, size, inspection: inspector.result() } as Partial<Express.Multer.File>),
        (err: unknown) => cb(err instanceof AppError ? err : errors.unavailable('object storage')),
      );
    },
    _removeFile(_req, file, cb) {
      const { objectKey } = file as unknown as StoredUpload;
      blobs.delete(objectKey).then(() => cb(null), cb);
    },
  };
}

/**
 * multer for one part named `file` of at most 10 MB (10,485,760 bytes; one byte more is 413).
 * `preservePath`: busboy's own base-name step turns a filename such as `..` or `dir/` into '', which multer
 * then treats as "no file" (a misleading 400). The whole name goes to `sanitizeFilename` instead, which
 * takes the base name itself and falls back to "document"; the name is never used as a path or key.
 */
export function uploadMiddleware(blobs: BlobStore): RequestHandler {
  const receive = multer({
    storage: blobStorage(blobs),
    // fieldSize in bytes: 1,024 characters of up to 4 bytes each; the character count is checked by the route.
    limits: { fileSize: limits.maxUploadBytes, files: 1, fields: 10, parts: 12, fieldSize: 4096, headerPairs: 50 },
    defParamCharset: 'utf8',
    preservePath: true,
  }).single('file');
  return (req, res, next) =>
    receive(req, res, (err?: unknown) => {
      const pending = res.locals[PENDING_PUT] as Promise<void> | undefined;
      if (err === undefined || pending === undefined) return next(err);
      // A refusal while the part was still being stored: answer once the store has cleaned up (bounded).
      const bound = new Promise<void>((resolve) => setTimeout(resolve, CLEANUP_WAIT_MS).unref());
      void Promise.race([pending, bound]).then(() => next(err));
    });
}

/** Where _handleFile leaves the put in flight (res.locals), for the error path above. */
const PENDING_PUT = 'lanternPendingPut';
/** The longest a refusal waits for the blob store to remove a partial upload. */
const CLEANUP_WAIT_MS = 5_000;

/**
 * Decides the stored file's type from its content. Unsupported or empty: the object is deleted and the
 * error thrown, so nothing is kept. Returns the document record to store.
 */
export async function acceptUpload(blobs: BlobStore, tenantId: string, upload: StoredUpload, originalName: string): Promise<StoredDocument> {
  const decision = decideDocumentType(upload.inspection, originalName);
  if (!decision.ok) {
    await blobs.delete(upload.objectKey);
    throw decision.status === 400 ? errors.validation(decision.message) : errors.unsupportedMedia(decision.message);
  }
  return {
    id: upload.documentId,
    tenantId,
    filename: sanitizeFilename(originalName),
    contentType: decision.contentType,
    size: upload.size,
    sha256: upload.inspection.sha256,
    status: 'stored',
    createdAt: toIso(Date.now()),
    objectKey: upload.objectKey,
  };
}
