import type { Readable } from 'node:stream';

/**
 * The blob-store port: objects by key, streamed in and out. Keys are made by the service
 * (`tenants/{tenantId}/documents/{documentId}`), never from client input.
 */
export interface BlobStore {
  /** Streams `body` into the object `key`; resolves with the bytes written. Replaces an existing object. */
  put(key: string, body: Readable, meta: { contentType: string; size?: number }): Promise<{ size: number }>;
  /** A stream of the object; rejects with AppError not_found if there is none. */
  get(key: string): Promise<Readable>;
  /** Whether the object exists. */
  exists(key: string): Promise<boolean>;
  /** Removes the object; no error if it is already gone. */
  delete(key: string): Promise<void>;
  /** Throws if the store cannot answer (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
