import type { Client } from 'minio';
import { errorCode, toBlobError } from './failures.js';

/** What makeBucket answers when the bucket is there already: made by us earlier, or by a concurrent start-up. */
const ALREADY_THERE = new Set(['BucketAlreadyOwnedByYou', 'BucketAlreadyExists']);
const REFUSED_CREDENTIALS = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch']);

/**
 * Makes `bucket` if it is missing. Safe to run from many processes starting at once: losing the race to
 * create it is success. Credentials the server refuses are a configuration error, said as such (without them).
 */
export async function ensureBucket(client: Client, bucket: string, region: string, where: string): Promise<void> {
  try {
    if (await client.bucketExists(bucket)) return;
    await client.makeBucket(bucket, region);
  } catch (err) {
    const code = errorCode(err);
    if (code !== undefined && ALREADY_THERE.has(code)) return;
    if (code !== undefined && REFUSED_CREDENTIALS.has(code)) {
      throw new Error(`MinIO blob store: ${where} refused the access key or secret key (${code}) while checking bucket "${bucket}"`);
    }
    throw toBlobError(err);
  }
}
