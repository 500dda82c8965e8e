import type { BlobStore } from '@lantern/blobs';
import type { ChunkSettings, ProcessingPool } from '@lantern/extract';
import type { Logger } from '@lantern/logging';
import type { ChunkInput, DocumentClaim, ProcessingSettings, ProcessingStore } from '@lantern/store';
import { type DeleteStore, finishAbandonedDeletes } from '../delete.js';
import { EmbeddingError, type Embedder } from '../search/embeddings.js';

/**
 * The AI worker's loop (issue 15): claims a waiting document, reads its bytes from object storage, has the
 * processing pool extract and chunk it off the event loop, and stores the result under its claim, renewing the
 * lease meanwhile. It looks for work when woken (an upload, a reprocess: `wake()`) and every `pollMs` besides
 * (documents left by a worker that died, wakes from other processes). A result the pool could not give (its thread
 * died) is no verdict on the document: the lease is dropped, and the document is taken again, its attempts
 * counted, until they are used up. With semantic search on, the chunks are embedded after chunking (HTTP calls
 * from this thread, in batches); a provider that cannot embed them after its retries costs the document an attempt,
 * and on its last attempt the document fails (`timeout`, saying the embeddings failed and why).
 */
export interface DocumentWorkerOptions {
  /** With the steps of a delete: the worker also finishes the deletes that stopped half-way (delete.ts). */
  store: ProcessingStore & DeleteStore;
  blobs: Pick<BlobStore, 'get' | 'delete'>;
  pool: ProcessingPool;
  logger: Logger;
  chunking: ChunkSettings;
  /** Semantic search's client; absent: chunks are stored without vectors. */
  embedder?: Embedder;
  /** What the chunks are recorded as made with (default: settingsOf the chunking and the embedder's model). */
  settings?: ProcessingSettings;
  /** Documents processed at once (the pool's threads). */
  concurrency: number;
  leaseMs?: number;
  maxAttempts?: number;
  pollMs?: number;
  downloadTimeoutMs?: number;
  retryAfterMs?: number;
}

export interface DocumentWorker {
  /** Looks for work now. */
  wake(): void;
  /** Takes and processes one document, if one waits; true if it did. */
  runOnce(): Promise<boolean>;
  /** Stops taking work and waits for the documents under way (a document whose processing then fails is given back at once). */
  stop(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 60_000;
export const MAX_ATTEMPTS = 3;

/** How long reading a document from object storage may take (a stalled download is no verdict: tried again). */
export const DOWNLOAD_TIMEOUT_MS = 60_000;
/** The lease of a document given back: already over (claims take leases that ended before now), so the next claim takes it. */
const GIVEN_BACK = -1;
/** After a failure that gave no verdict: the document waits this long before it is taken again, and the lane too. */
export const RETRY_AFTER_MS = 10_000;

/** The chunking and embedding model a document processed with these is recorded as made with. */
export function settingsOf(chunking: ChunkSettings, embeddingModel?: string): ProcessingSettings {
  return { chunkTokens: chunking.maxTokens, chunkOverlap: chunking.overlapTokens, ...(embeddingModel ? { embeddingModel } : {}) };
}


/** The object's bytes, or a rejection once `timeoutMs` has passed (the stream then destroyed). */
async function bytesOf(blobs: Pick<BlobStore, 'get'>, key: string, timeoutMs: number): Promise<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  let stream: NodeJS.ReadableStream & { destroy?: (err?: Error) => void } | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new Error(`reading the document from object storage took longer than ${timeoutMs} ms`);
      stream?.destroy?.(err);
      reject(err);
    }, timeoutMs);
  });
  const read = (async () => {
    stream = await blobs.get(key);
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
  })();
  try {
    return await Promise.race([read, expired]);
  } finally {
    clearTimeout(timer);
    read.catch(() => undefined);
  }
}

export function createDocumentWorker(options: DocumentWorkerOptions): DocumentWorker {
  const {
    store, blobs, pool, logger, chunking, embedder, settings = settingsOf(chunking, embedder?.model), concurrency, leaseMs = DEFAULT_LEASE_MS, maxAttempts = MAX_ATTEMPTS, pollMs = 5_000,
    downloadTimeoutMs = DOWNLOAD_TIMEOUT_MS, retryAfterMs = RETRY_AFTER_MS,
  } = options;
  const running = new Set<Promise<void>>();
  let stopped = false;

  /**
   * Deletes that stopped half-way (delete.ts): looked for at most every half poll interval, by one lane, without holding
   * back any claim (an object store that hangs must not stop the processing).
   */
  let finishing: Promise<void> | undefined;
  let finishedAt = -Infinity;
  function finishDeletes(): void {
    // Half a poll interval: a poll tick that comes a little early still looks.
    if (finishing || performance.now() - finishedAt < pollMs / 2) return;
    finishedAt = performance.now();
    finishing = finishAbandonedDeletes({ store, blobs, logger }).then(() => undefined, (err: unknown) => {
      logger.warn('could not look for interrupted deletes', { error: (err as Error).message });
    }).finally(() => { finishing = undefined; });
  }

  async function process(taken: DocumentClaim): Promise<void> {
    const { document, claim } = taken;
    // One renewal at a time (a store that waits for its write lock can take longer than the interval): `renewing`
    // is then the only one that can still land.
    let renewing: Promise<unknown> | undefined;
    const renew = setInterval(() => {
      renewing ??= store.renewClaim(document.id, claim, leaseMs)
        .catch((err: unknown) => logger.warn('lease renewal failed', { documentId: document.id, error: (err as Error).message }))
        .finally(() => { renewing = undefined; });
    }, Math.max(1000, Math.floor(leaseMs / 3)));
    try {
      const result = await pool.process(await bytesOf(blobs, document.objectKey, downloadTimeoutMs), document.contentType, chunking);
      if (!result.ok) {
        const kept = await store.failDocument(document.id, claim, { code: result.code, message: result.message });
        logger.info('document processed', { documentId: document.id, attempt: taken.attempt, outcome: result.code, kept });
        return;
      }
      let chunks: ChunkInput[] = result.chunks;
      let made = settings;
      if (embedder && chunks.length > 0) {
        try {
          const vectors = await embedder.embed(chunks.map((c) => c.text));
          chunks = chunks.map((c, i) => ({ ...c, vector: vectors[i]! }));
        } catch (err) {
          if (!(err instanceof EmbeddingError) || taken.attempt < maxAttempts) throw err;
          // The provider still cannot embed them on the last attempt: the document is made ready without vectors
          // (lexical search finds it), recorded as made without a model, so the next start queues it again.
          made = settingsOf(chunking);
          logger.warn('document ready without vectors: its chunks could not be embedded', { documentId: document.id, attempt: taken.attempt, error: err.message });
        }
      }
      const kept = await store.completeDocument(document.id, claim, { characters: result.characters, ...(result.pages === undefined ? {} : { pages: result.pages }), chunks, settings: made });
      logger.info('document processed', { documentId: document.id, attempt: taken.attempt, outcome: 'ready', chunks: chunks.length, kept });
    } catch (err) {
      // No verdict (the thread died, the object store or the store failed, a stalled download, the embeddings
      // provider did not answer before this document's last attempt): taken again once
      // its lease, shortened to RETRY_AFTER_MS, runs out (an outage of a few seconds does not use up the attempts),
      // and this lane rests as long. A worker that stops gives the document back at once, for another to take.
      logger.warn(stopped ? 'document given back: the worker stops' : 'document processing failed, to be tried again', { documentId: document.id, attempt: taken.attempt, error: (err as Error).message });
      // No renewal may land after this one (it would push the lease a full term back).
      clearInterval(renew);
      await renewing;
      await store.renewClaim(document.id, claim, stopped ? GIVEN_BACK : retryAfterMs).catch(() => undefined);
      throw err;
    } finally {
      clearInterval(renew);
    }
  }

  async function runOnce(): Promise<boolean> {
    finishDeletes();
    const taken = await store.claimDocument({ leaseMs, maxAttempts });
    if (!taken) return false;
    logger.info('document taken', { documentId: taken.document.id, attempt: taken.attempt });
    await process(taken);
    return true;
  }

  /** A lane takes documents one after the other until none waits. */
  async function lane(): Promise<void> {
    while (!stopped) {
      const did = await runOnce().catch((err: unknown) => {
        logger.warn('the document lane stopped after a failure; the poll starts it again', { error: (err as Error).message });
        return false;
      });
      if (!did) return;
    }
  }

  /** Up to `concurrency` lanes at once. */
  function fill(): void {
    while (!stopped && running.size < concurrency) {
      const job: Promise<void> = lane().finally(() => running.delete(job));
      running.add(job);
    }
  }

  const poll = setInterval(fill, pollMs);
  poll.unref();
  fill();

  return {
    wake: fill,
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await Promise.all([...running, finishing]);
    },
  };
}
