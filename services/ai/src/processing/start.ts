import type { BlobStore } from '@lantern/blobs';
import { checkChunkSettings, createProcessingPool, DEFAULT_CHUNKING } from '@lantern/extract';
import type { Logger } from '@lantern/logging';
import type { ProcessingStore } from '@lantern/store';
import { createDocumentWorker, settingsOf } from './document-worker.js';
import type { ProcessingSetup } from './setup.js';

/**
 * Document processing for a process that serves the AI routes (the embedded server, or an `ai` service process):
 * the thread pool and the worker loop, with the defaults of docs/api.md ("AI documents: processing"). Several
 * processes may run it on one store: the claims keep each document to one of them.
 */
export const PROCESSING_DEFAULTS = {
  /** Threads that extract and chunk, each one document at a time (a 2-core machine keeps a core for requests). */
  threads: 1,
  /** Time one document may take. */
  timeoutMs: 120_000,
  /** Heap one processing thread may use (the o200k tokenizer alone takes about 200 MB). */
  maxHeapMb: 1024,
  /** How often the queue is looked at without a wake (documents left by a worker that stopped, other processes' uploads). */
  pollMs: 5_000,
};

export interface DocumentProcessing {
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Starts the worker; the ready documents made with other settings (the chunking, the embedding model) are queued
 * again first, out of search until they are ready again (only ready documents are searched).
 */
export function startDocumentProcessing(deps: { store: ProcessingStore; blobs: Pick<BlobStore, 'get'>; logger: Logger }, options: Partial<typeof PROCESSING_DEFAULTS> & ProcessingSetup = {}): DocumentProcessing {
  const { chunking = DEFAULT_CHUNKING, semantic, ...rest } = options;
  const o = { ...PROCESSING_DEFAULTS, ...rest };
  checkChunkSettings(chunking);
  const settings = settingsOf(chunking, semantic?.model);
  const pool = createProcessingPool({ size: o.threads, timeoutMs: o.timeoutMs, maxHeapMb: o.maxHeapMb });
  const worker = createDocumentWorker({ ...deps, pool, chunking, settings, ...(semantic ? { embedder: semantic.documents } : {}), concurrency: o.threads, pollMs: o.pollMs });
  deps.store.requeueOutdated(settings).then((queued) => {
    if (queued > 0) deps.logger.info('documents queued again: the processing settings changed', { queued, ...settings });
    worker.wake();
  }, (err: unknown) => deps.logger.warn('could not queue the documents made with other settings', { error: (err as Error).message }));
  return {
    wake: () => worker.wake(),
    // The threads go first: the documents under way are given back (their leases dropped) rather than waited for.
    async stop() {
      const lanes = worker.stop();
      await pool.close();
      await lanes;
    },
  };
}
