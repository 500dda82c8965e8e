import type { Readable } from 'node:stream';
import { type AppError, errors } from '@lantern/domain';

/**
 * The blob-store port: objects by key, streamed in and out. Keys are made by the service
 * (`tenants/{tenantId}/documents/{documentId}`), never from client input.
 */
export interface BlobStore {
  /**
   * Streams `body` into the object `key`; resolves with the bytes written. Replaces an existing object. When
   * `meta.size` is given, a body of another length is refused. A refused or failed put stores nothing (an
   * object already at `key` stays as it was).
   */
  put(key: string, body: Readable, meta: { contentType: string; size?: number }): Promise<{ size: number }>;
  /** A stream of the object; rejects with AppError not_found if there is none. */
  get(key: string): Promise<Readable>;
  /** Whether the object exists. */
  exists(key: string): Promise<boolean>;
  /**
   * A short-lived link (valid `ttlSeconds`, an integer from 1 to DOWNLOAD_TTL_MAX_SECONDS) that downloads the
   * object's exact bytes without the service in the path, or `undefined` when the store has no such links
   * (the service then streams the object itself). Rejects with AppError not_found if there is no object.
   */
  downloadUrl(key: string, ttlSeconds: number): Promise<string | undefined>;
  /** Removes the object; no error if it is already gone. */
  delete(key: string): Promise<void>;
  /** Throws if the store cannot answer (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Seven days: the longest a presigned S3 (SigV4) link can live. */
export const DOWNLOAD_TTL_MAX_SECONDS = 7 * 24 * 60 * 60;

/** Throws (a plain Error: the ttl is chosen by the service, so a bad one is a programming error) unless valid. */
export function assertValidDownloadTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > DOWNLOAD_TTL_MAX_SECONDS) {
    throw new RangeError(`A download link lives 1 to ${DOWNLOAD_TTL_MAX_SECONDS} whole seconds (got ${String(ttlSeconds)})`);
  }
}

/** The AppError for a body whose length is not the `meta.size` it was announced with. */
export const sizeMismatch = (declared: number, actual: string): AppError =>
  errors.validation(`The body has ${actual} bytes, not the ${declared} announced.`);
