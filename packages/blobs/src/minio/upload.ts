import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Client } from 'minio';
import { sizeMismatch } from '../port.js';
import { mapFailure } from './failures.js';

export interface UploadTarget {
  client: Client;
  bucket: string;
  key: string;
  contentType: string;
  /** `meta.size` of the put: the body must have exactly this many bytes. */
  declaredSize: number | undefined;
  partSize: number;
}

const md5 = (bytes: Buffer): string => createHash('md5').update(bytes).digest('base64');

/**
 * Streams `body` into the object, holding at most one part (`partSize` bytes) in memory, whatever the body's
 * length and whether or not it is known: a body that fits in one part is one PUT, a longer one a multipart
 * upload sent part by part as the body arrives. (The client's own putObject reads a body of up to 64 MiB,
 * or of unknown size up to the whole of it, into memory before sending, and leaves an incomplete multipart
 * upload behind when the body fails.) S3 makes an object visible only when its PUT or its multipart upload
 * completes, so a body that fails, or is refused, stores nothing: the multipart upload is aborted and an
 * object already at the key stays as it was. Resolves with the bytes stored. The store's failures become the
 * port's errors (unavailable, ...); the body's own error is rethrown as it is: it is the caller's to explain.
 */
export async function streamUpload(target: UploadTarget, body: Readable): Promise<number> {
  const { client, bucket, key, contentType, declaredSize, partSize } = target;
  // One buffer, refilled for each part: each part's upload has completed (its request body fully sent)
  // before the next chunk is read, so memory stays at one part instead of growing with garbage parts.
  const part = Buffer.allocUnsafe(partSize);
  let filled = 0;
  let total = 0;
  let uploadId: string | undefined;
  const etags: { part: number; etag: string }[] = [];

  const sendPart = async (): Promise<void> => {
    const id = (uploadId ??= await mapFailure(() => client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType })));
    const payload = part.subarray(0, filled);
    const partNumber = etags.length + 1;
    const { etag } = await mapFailure(() =>
      client.uploadPart({ bucketName: bucket, objectName: key, uploadID: id, partNumber, headers: { 'Content-MD5': md5(payload) } }, payload),
    );
    etags.push({ part: partNumber, etag });
    filled = 0;
  };

  try {
    // for await pulls one chunk at a time, so a slow store slows the body's source (backpressure); leaving
    // the loop by an error destroys the body.
    for await (const chunk of body) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
      total += bytes.length;
      if (declaredSize !== undefined && total > declaredSize) throw sizeMismatch(declaredSize, `more than ${declaredSize}`);
      for (let offset = 0; offset < bytes.length; ) {
        const copied = bytes.copy(part, filled, offset);
        filled += copied;
        offset += copied;
        if (filled === partSize) await sendPart();
      }
    }
    if (declaredSize !== undefined && total !== declaredSize) throw sizeMismatch(declaredSize, String(total));
    if (uploadId === undefined) {
      // Fits in one part (the empty body too): a single PUT, whose checksum the server verifies.
      await mapFailure(() => client.putObject(bucket, key, part.subarray(0, filled), filled, { 'Content-Type': contentType }));
      return total;
    }
    if (filled > 0) await sendPart();
    const id = uploadId;
    await mapFailure(() => client.completeMultipartUpload(bucket, key, id, etags));
    return total;
  } catch (err) {
    if (uploadId !== undefined) {
      // Best effort: the server also drops stale incomplete uploads; the caller's error matters more.
      await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
    }
    throw err;
  }
}
