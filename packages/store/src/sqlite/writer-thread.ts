import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, errors, type ErrorCode } from '@lantern/domain';
import type { ChunkWriter } from './chunk-sweep.js';
import type { IngestWriter } from './ingest.js';
import { spanRowsOf } from './span-rows.js';
import type { Failure, Reply, Request } from './writer-worker.js';

/**
 * The SQLite ingest writer on a thread of its own (writer-worker.ts), so that one core parses and validates
 * requests while the other commits: the event loop that serves requests never waits on an insert. Each call
 * resolves once its batches are committed (a 200 still means durable) and rejects with the port's errors.
 * Calls that arrive while a commit runs share the next one (group commit).
 *
 * A worker that dies (it should not) fails the calls in flight as 503 (the clients retry; writes are idempotent)
 * and is started again by the next call.
 */
export interface WriterThread extends IngestWriter, ChunkWriter {
  /** Starts the worker's log indexer (log-indexer.ts) on the logs stored before this process: writes of logs start it too. */
  startIndexing(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The worker's compiled file beside this one. Under jest this module runs from its TypeScript source, and the
 * worker from the build (`pnpm test` builds first): a worker thread has no TypeScript loader.
 */
export function workerFile(name: 'writer-worker' | 'checkpoint-worker' | 'read-worker'): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? here.replace(/\/src\/sqlite\/writer-thread\.ts$/, `/dist/sqlite/${name}.js`)
    : here.replace(/writer-thread\.js$/, `${name}.js`);
}

/**
 * Chunks per job on the writer thread: a job waits its turn among the span and log commits, and stops after the
 * chunk under way when one of those is posted (writer-worker.ts: it goes on after them), so ingest waits for about
 * one chunk (800 tokens, 1-2 ms of FTS5 work), however many a job holds, and the job's merge step if it has one
 * (chunk-sweep.ts: 6-10 ms at most for the 64 pages of 8 chunks).
 */
export const THREAD_CHUNK_BATCH = 64;

/** How often the checkpointer thread copies the WAL into the database file. */
const CHECKPOINT_INTERVAL_MS = 200;

/** The checkpointer thread (checkpoint-worker.ts); `close` stops it after its current checkpoint. */
function startCheckpointer(file: string): { close(): Promise<void> } {
  const worker = new Worker(workerFile('checkpoint-worker'), { workerData: { file, intervalMs: CHECKPOINT_INTERVAL_MS } });
  worker.unref();
  // A checkpointer that died leaves the checkpoints to the writer's backstop; nothing is lost.
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let closing = false;
  return {
    async close() {
      if (!closing) {
        closing = true;
        worker.ref(); // an unreferenced worker would let the process end before it has closed
        worker.postMessage('close');
      }
      await exited;
    },
  };
}

function toError(failure: Failure): Error {
  if ('status' in failure) return new AppError(failure.status, failure.code as ErrorCode, failure.message, undefined, failure.retryAfter);
  return new Error(failure.message);
}

/** A request before it has its id. */
type Unsent = Request extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(value: boolean | number | undefined): void;
  reject(err: Error): void;
}

export function startWriterThread(file: string): WriterThread {
  const pending = new Map<number, Pending>();
  /** Span and log jobs posted that the worker has not taken yet: its chunk jobs stop early while there are any. */
  const waiting = new Int32Array(new SharedArrayBuffer(4));
  let nextId = 1;
  let worker: Worker | undefined;
  let closed = false;
  /** Once closing, the worker stays referenced until it has exited: the process must wait for it. */
  let closing = false;
  const checkpointer = startCheckpointer(file);

  function spawn(): Worker {
    // The jobs posted to a worker that died were failed with it: none waits any more.
    Atomics.store(waiting, 0, 0);
    const w = new Worker(workerFile('writer-worker'), { workerData: { file, waiting } });
    w.unref();
    w.on('message', (reply: Reply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      if (pending.size === 0 && !closing) w.unref();
      if (reply.failure) p.reject(toError(reply.failure));
      else p.resolve(reply.value);
    });
    // A worker that fails to start or throws outside a job: everything in flight failed; the next call restarts it.
    const lost = () => {
      if (worker === w) worker = undefined;
      for (const p of pending.values()) p.reject(errors.unavailable('store'));
      pending.clear();
    };
    w.on('error', lost);
    w.on('exit', lost);
    return w;
  }

  function send(request: Unsent): Promise<boolean | number | undefined> {
    if (closed) return Promise.reject(errors.unavailable('store'));
    const w = (worker ??= spawn());
    const id = nextId++;
    return new Promise<boolean | number | undefined>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.ref();
      if (request.kind === 'spans' || request.kind === 'logs') Atomics.add(waiting, 0, 1);
      w.postMessage({ ...request, id });
    });
  }

  return {
    // Made here, on the thread that posts them (span-rows.ts): the writer thread only binds and inserts.
    writeSpanBatches: async (batches) => void (batches.length > 0 ? await send({ kind: 'spans', batches: spanRowsOf(batches) }) : undefined),
    writeLogBatches: async (batches) => void (batches.length > 0 ? await send({ kind: 'logs', batches: [...batches] }) : undefined),
    writeSpans: async (batch) => void (await send({ kind: 'spans', batches: spanRowsOf([batch]) })),
    writeLogs: async (batch) => void (await send({ kind: 'logs', batches: [batch] })),
    startIndexing: async () => void (await send({ kind: 'index' })),
    batch: THREAD_CHUNK_BATCH,
    // A job that stops early for ingest's sake goes on in the worker, from where it stopped: answered once all are written.
    insert: async (documentId, claim, chunks) => (await send({ kind: 'chunks', documentId, claim, chunks })) === true,
    remove: async (documentId, which, limit) => Number(await send({ kind: 'unchunk', documentId, which, limit })),
    finish: async (documentId, claim, completion) => (await send({ kind: 'finish', documentId, claim, completion })) === true,
    async close() {
      if (closed) return;
      closing = true;
      await checkpointer.close();
      const w = worker;
      if (w) {
        w.ref();
        // The worker commits what it holds, closes its connection and answers; then it is gone.
        const exited = new Promise((resolve) => w.once('exit', resolve));
        await send({ kind: 'close' }).catch(() => undefined);
        closed = true;
        await exited;
      }
      closed = true;
    },
  };
}
