import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Chunk, ChunkSettings } from './chunks.js';
import type { ProcessJob, ProcessResult } from './job.js';
import type { WorkerReply, WorkerRequest } from './worker.js';

/** The worker's compiled file: beside this one in dist/, or dist/'s copy when this runs from src/ (ts-jest). */
function workerFile(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts') ? here.replace(/\/src\/pool\.ts$/, '/dist/worker.js') : here.replace(/pool\.js$/, 'worker.js');
}

export interface PoolOptions {
  /** Threads, each one document at a time. */
  size: number;
  /** Time one document may take: the extraction stops itself between PDF pages past it; see killAfterMs. */
  timeoutMs: number;
  /** Past timeoutMs, how much longer a thread may run before it is stopped (a step that cannot stop half-way). */
  graceMs?: number;
  /** The heap one thread may use (its old generation, MB): past it the thread is stopped, the document too_large. */
  maxHeapMb: number;
  /** How long a new thread may take to be ready (its tokenizer built, about 1.5 s). */
  startTimeoutMs?: number;
}

/** Starts of a thread that may fail in a row before the queued jobs are rejected. */
export const START_ATTEMPTS = 3;

export interface ProcessingPool {
  /**
   * Extracts and chunks a document off the caller's event loop. Rejects when its thread died or failed in a way
   * that is no verdict on the document (count an attempt and retry), or when no thread could start.
   */
  process(bytes: Uint8Array, contentType: string, chunking: ChunkSettings): Promise<ProcessResult>;
  close(): Promise<void>;
}

interface Job {
  request: ProcessJob;
  resolve: (result: ProcessResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  startTimer?: NodeJS.Timeout;
  job?: { id: number; job: Job; timer?: NodeJS.Timeout; parts: Chunk[][] };
}

/**
 * Document processing on threads of its own (worker.ts), so that extraction never runs on an event loop that serves
 * requests. Jobs wait in order for a free thread; a thread takes its next job once its tokenizer is built. A job's
 * clock starts when its thread takes it: past timeoutMs + graceMs the thread is terminated and the document is
 * `timeout`; a thread past its heap limit is stopped by V8 and the document is `too_large`; a thread that dies of
 * anything else rejects its job. A stopped thread is replaced when the next job needs it. Idle threads do not keep
 * the process alive.
 */
export function createProcessingPool(options: PoolOptions): ProcessingPool {
  const { size, timeoutMs, graceMs = 2_000, maxHeapMb, startTimeoutMs = 30_000 } = options;
  const slots: Array<Slot | undefined> = new Array<Slot | undefined>(size).fill(undefined);
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;

  const finish = (slot: Slot, settle: (job: Job) => void): void => {
    const current = slot.job;
    if (!current) return;
    clearTimeout(current.timer);
    slot.job = undefined;
    slot.worker.unref();
    settle(current.job);
  };

  /**
   * A thread that dies or hangs before it is ready (its tokenizer did not fit the heap, its file is missing) has no
   * job to fail: the queued jobs wait for the next thread. After START_ATTEMPTS such starts in a row they are
   * rejected with the reason, rather than left waiting while threads are started over and over.
   */
  let failedStarts = 0;
  const startFailed = (reason: string): void => {
    if (++failedStarts < START_ATTEMPTS) return;
    failedStarts = 0;
    for (const job of queue.splice(0)) job.reject(new Error(`the document processing thread could not start ${START_ATTEMPTS} times: ${reason}`));
  };

  const stop = (slot: Slot, settle: (job: Job) => void, reason: string): void => {
    const index = slots.indexOf(slot);
    if (index < 0) return; // stopped already (an error, then its exit)
    slots[index] = undefined;
    clearTimeout(slot.startTimer);
    if (!slot.ready) startFailed(reason);
    finish(slot, settle);
    void slot.worker.terminate();
    dispatch();
  };

  const start = (index: number): Slot => {
    const worker = new Worker(workerFile(), { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } });
    const slot: Slot = { worker, ready: false };
    slot.startTimer = setTimeout(() => stop(slot, () => {}, `it was not ready within ${startTimeoutMs} ms`), startTimeoutMs);
    worker.on('message', (reply: WorkerReply) => {
      if ('ready' in reply) {
        slot.ready = true;
        failedStarts = 0;
        clearTimeout(slot.startTimer);
      } else if (slot.job?.id === reply.id) {
        if ('part' in reply) {
          // The next part once the loop has had a turn (its requests, its timers) since this one.
          slot.job.parts.push(reply.part);
          setImmediate(() => slot.worker.postMessage({ next: reply.id } satisfies WorkerRequest));
          return;
        }
        const { parts } = slot.job;
        finish(slot, (job) => ('error' in reply ? job.reject(new Error(reply.error))
          : job.resolve(reply.result.ok && parts.length > 0 ? { ...reply.result, chunks: [...parts.flat(), ...reply.result.chunks] } : reply.result)));
      }
      dispatch();
    });
    worker.on('error', (err: Error & { code?: string }) => stop(slot, (job) => (err.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? job.resolve({ ok: false, code: 'too_large', message: `Processing the document needed more than the ${maxHeapMb} MB of memory one document may use.` })
      : job.reject(err)), err.message));
    worker.on('exit', (code) => stop(slot, (job) => job.reject(new Error(`the document processing thread exited (${code})`)), `it exited (${code})`));
    slots[index] = slot;
    return slot;
  };

  function dispatch(): void {
    if (closed) return;
    for (let i = 0; i < size && queue.length > 0; i++) {
      const slot = slots[i] ?? start(i);
      if (!slot.ready || slot.job) continue;
      const job = queue.shift()!;
      const id = nextId++;
      const timer = setTimeout(() => stop(slot, (j) => j.resolve({ ok: false, code: 'timeout', message: `Processing took longer than the ${timeoutMs} ms one document may take.` }), 'timeout'), timeoutMs + graceMs);
      slot.job = { id, job, timer, parts: [] };
      slot.worker.ref();
      // A copy the thread owns (transferred, not cloned): the caller's buffer may be a slice of a larger one.
      const bytes = new Uint8Array(job.request.bytes);
      slot.worker.postMessage({ ...job.request, bytes, id } satisfies WorkerRequest, [bytes.buffer]);
    }
    // Threads still building their tokenizer keep the process alive only while there is work for them.
    for (const slot of slots) if (slot && !slot.job) slot.worker[queue.length > 0 ? 'ref' : 'unref']();
  }

  return {
    process(bytes, contentType, chunking) {
      if (closed) return Promise.reject(new Error('the processing pool is closed'));
      return new Promise<ProcessResult>((resolve, reject) => {
        queue.push({ request: { bytes, contentType, chunking, timeoutMs }, resolve, reject });
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new Error('the processing pool is closed'));
      await Promise.all(slots.map((slot) => slot?.worker.terminate()));
    },
  };
}
