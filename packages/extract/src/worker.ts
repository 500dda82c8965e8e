import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { Chunk } from './chunks.js';
import { PART_CHUNKS, type ProcessJob, processDocument, type ProcessResult } from './job.js';
import { o200kCounter } from './tokens.js';

/**
 * What the pool sends a processing thread (a job, or its go-ahead for the next part of a result), and what it answers
 * (pool.ts): a result of more than PART_CHUNKS chunks comes in parts of PART_CHUNKS, each sent once the pool has
 * taken the one before, then the result with the rest.
 */
export type WorkerRequest = (ProcessJob & { id: number }) | { next: number };
export type WorkerReply = { ready: true } | { id: number; part: Chunk[] } | { id: number; result: ProcessResult } | { id: number; error: string };

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
let goAhead: { id: number; resolve: () => void } | undefined;

async function run(job: ProcessJob & { id: number }): Promise<WorkerReply> {
  const result = await processDocument(job, count);
  if (!result.ok || result.chunks.length <= PART_CHUNKS) return { id: job.id, result };
  const { chunks } = result;
  let from = 0;
  for (; chunks.length - from > PART_CHUNKS; from += PART_CHUNKS) {
    const taken = new Promise<void>((resolve) => { goAhead = { id: job.id, resolve }; });
    port.postMessage({ id: job.id, part: chunks.slice(from, from + PART_CHUNKS) } satisfies WorkerReply);
    await taken;
  }
  return { id: job.id, result: { ...result, chunks: chunks.slice(from) } };
}

port.on('message', (message: WorkerRequest) => {
  if ('next' in message) {
    if (goAhead?.id === message.next) goAhead.resolve();
    return;
  }
  run(message).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => port.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
  );
});
port.postMessage({ ready: true } satisfies WorkerReply);
