import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type ProcessJob, processDocument, type ProcessResult } from './job.js';
import { o200kCounter } from './tokens.js';

/** What the pool sends a processing thread, and what it answers (pool.ts). */
export type WorkerRequest = ProcessJob & { id: number };
export type WorkerReply = { ready: true } | { id: number; result: ProcessResult } | { id: number; error: string };

/**
 * A processing thread runs at nice 10 (Linux: a thread is its own scheduling entity, named in /proc/thread-self):
 * on a busy machine the threads that serve requests and write spans go first, and extraction takes what is left.
 * bench/ai/knowledge measured ingest p99 during a 10 MB PDF's extraction. Elsewhere (or if refused) the process's.
 */
const EXTRACTION_NICE = 10;
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), EXTRACTION_NICE);
} catch {
  // not Linux, or not allowed
}

// A processing thread: the tokenizer is built once (about 1.5 s), then `ready`, then one job at a time.
const port = parentPort!;
const count = o200kCounter();
port.on('message', (job: WorkerRequest) => {
  processDocument(job, count).then(
    (result) => port.postMessage({ id: job.id, result } satisfies WorkerReply),
    (err: unknown) => port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
