import type { BlobStore } from '@lantern/blobs';
import type { Bus, Subscription } from '@lantern/bus';
import { checkChunkSettings, createProcessingPool, DEFAULT_CHUNKING } from '@lantern/extract';
import type { Logger } from '@lantern/logging';
import type { ProcessingStore } from '@lantern/store';
import type { DeleteStore } from '../delete.js';
import { createDocumentWorker, type DocumentWorker, settingsOf } from './document-worker.js';
import { listenForDocuments } from './events.js';
import type { ProcessingSetup } from './setup.js';

/**
 * Document processing for the process that runs it (the embedded server, or a `lantern ai-worker` process): the
 * thread pool and the worker loop, with the defaults of docs/api.md ("AI documents: processing"). Several processes
 * may run it on one store: the claims keep each document to one of them. Work reaches it through `wake()`, which the
 * bus's document announcements call (events.ts), and through its poll of the store.
 */
export const PROCESSING_DEFAULTS = {
  /** Threads that extract and chunk, each one document at a time (a 2-core machine keeps a core for requests). */
  threads: 1,
  /** Time one document may take. */
  timeoutMs: 120_000,
  /** Heap one processing thread may use (the o200k tokenizer alone takes about 200 MB). */
  maxHeapMb: 1024,
  /** How often the queue is looked at without a wake (documents left by a worker that died, announcements lost). */
  pollMs: 5_000,
  /** How long a claim holds without renewal (renewed every third of it): a worker killed mid-document loses it then. */
  leaseMs: 60_000,
};

export interface DocumentProcessing {
  /** Looks at the queue now (what an announcement on the bus does). */
  wake(): void;
  /** Stops hearing announcements, then stops the threads: documents under way are given back. */
  stop(): Promise<void>;
}

export interface ProcessingDeps {
  store: ProcessingStore & DeleteStore;
  blobs: Pick<BlobStore, 'get' | 'delete'>;
  logger: Logger;
  /** Where the document announcements are heard (events.ts), in the group of the document workers. */
  bus: Pick<Bus, 'subscribe'>;
}

/**
 * Starts the worker; the ready documents made with other settings (the chunking, the embedding model) are queued
 * again first, out of search until they are ready again (only ready documents are searched).
 */
export async function startDocumentProcessing(deps: ProcessingDeps, options: Partial<typeof PROCESSING_DEFAULTS> & ProcessingSetup = {}): Promise<DocumentProcessing> {
  const { chunking = DEFAULT_CHUNKING, semantic, ...rest } = options;
  const o = { ...PROCESSING_DEFAULTS, ...rest };
  checkChunkSettings(chunking);
  const settings = settingsOf(chunking, semantic?.model);
  // Subscribed before the worker claims anything: a process that cannot reach the bus fails its start without
  // having taken (and counted an attempt of) a document, however often it is restarted.
  let worker: DocumentWorker | undefined;
  const subscription: Subscription = await listenForDocuments(deps.bus, () => worker?.wake(), deps.logger);
  const pool = createProcessingPool({ size: o.threads, timeoutMs: o.timeoutMs, maxHeapMb: o.maxHeapMb });
  const running = createDocumentWorker({ ...deps, pool, chunking, settings, ...(semantic ? { embedder: semantic.documents } : {}), concurrency: o.threads, pollMs: o.pollMs, leaseMs: o.leaseMs });
  worker = running;
  deps.store.requeueOutdated(settings).then((queued) => {
    if (queued > 0) deps.logger.info('documents queued again: the processing settings changed', { queued, ...settings });
    running.wake();
  }, (err: unknown) => deps.logger.warn('could not queue the documents made with other settings', { error: (err as Error).message }));
  return {
    wake: () => running.wake(),
    // The threads first: the documents under way are given back (their leases ended at once) rather than waited
    // for, and before the bus is left (a slow or unreachable Kafka cannot hold them past the grace period).
    async stop() {
      const lanes = running.stop();
      await pool.close();
      await lanes;
      await subscription.stop();
    },
  };
}
