import { Client } from 'minio';
import { errors } from '@lantern/domain';
import { assertValidKey } from '../fs.js';
import { assertValidDownloadTtl, type BlobStore } from '../port.js';
import { ensureBucket } from './bucket.js';
import { isMissingObject, mapFailure, toBlobError } from './failures.js';
import { downloadAddress, type MinioBlobStoreOptions, validateMinioOptions } from './options.js';
import { createTimedTransport } from './transport.js';
import { streamUpload } from './upload.js';

/**
 * The blob store on MinIO (or any S3 API): the object `key` in one bucket, made at start-up if missing.
 * Uploads stream with at most one part in memory (see upload.ts); a failed upload stores nothing. Downloads
 * are the server's response streamed through, or a presigned GET link that bypasses the service. The server
 * down or hung answers errors.unavailable('blob store') (503); the minio client stays inside this folder.
 */
export async function createMinioBlobStore(options: MinioBlobStoreOptions): Promise<BlobStore> {
  const config = validateMinioOptions(options);
  const { bucket } = config;
  const { transport, agent } = createTimedTransport({ useSSL: config.useSSL, timeoutMs: config.requestTimeoutMs });
  const client = new Client({
    endPoint: config.endPoint,
    port: config.port,
    useSSL: config.useSSL,
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    // Known up front, so the client never asks the server for the bucket's location.
    region: config.region,
    pathStyle: true,
    transport,
    transportAgent: agent,
    // Its retries print to the console and hold a caller for a second; the service answers 503 with
    // Retry-After instead, and the caller decides.
    retryOptions: { disableRetry: true },
  });
  // Signing is local (the region is known), so a second client for the readers' address sends no request.
  const signer =
    config.downloadBaseUrl === undefined
      ? client
      : new Client({ ...downloadAddress(config.downloadBaseUrl), accessKey: config.accessKey, secretKey: config.secretKey, region: config.region, pathStyle: true });
  try {
    await ensureBucket(client, bucket, config.region, `${config.endPoint}:${config.port}`);
  } catch (err) {
    agent.destroy();
    throw err;
  }

  return {
    async put(key, body, meta) {
      assertValidKey(key);
      const size = await streamUpload(
        { client, bucket, key, contentType: meta.contentType, declaredSize: meta.size, partSize: config.partSizeBytes },
        body,
      );
      return { size };
    },

    async get(key) {
      assertValidKey(key);
      return mapFailure(() => client.getObject(bucket, key));
    },

    async exists(key) {
      assertValidKey(key);
      try {
        await client.statObject(bucket, key);
        return true;
      } catch (err) {
        if (isMissingObject(err)) return false;
        throw toBlobError(err);
      }
    },

    async downloadUrl(key, ttlSeconds) {
      assertValidDownloadTtl(ttlSeconds);
      assertValidKey(key);
      // A link to nothing would only fail later, at the reader: say not_found now.
      await mapFailure(() => client.statObject(bucket, key));
      return signer.presignedGetObject(bucket, key, ttlSeconds);
    },

    async delete(key) {
      assertValidKey(key);
      await mapFailure(() => client.removeObject(bucket, key));
    },

    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(errors.unavailable('blob store')), config.pingTimeoutMs);
      });
      try {
        const found = await Promise.race([client.bucketExists(bucket), timeout]);
        if (!found) throw errors.unavailable('blob store'); // removed since start-up: nothing can be stored
      } catch {
        throw errors.unavailable('blob store');
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      agent.destroy();
    },
  };
}
