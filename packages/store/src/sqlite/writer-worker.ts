import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { AppError, type LogBatchMessage } from '@lantern/domain';
import type { ChunkInput } from '../port.js';
import { chunkStatements, type ChunkSelection, type Completion } from './chunk-sweep.js';
import { toStoreError } from './errors.js';
import { createIngestTransactions } from './ingest.js';
import { createLogIndexer, startIndexLoop } from './log-indexer.js';
import { SCHEMA_VERSION, configure } from './schema.js';
import type { SpanRows } from './span-rows.js';

/**
 * The writer thread's side of writer-thread.ts: its own connection to the database file (WAL lets the main
 * thread's connection read beside it), the ingest transactions, and a queue. Jobs that arrive while a commit
 * runs wait in the port; the next turn takes every one of them into one transaction (a group commit), then
 * answers each. A failed group is retried job by job, so one job's failure is that job's alone.
 */

/** The writer's backstop checkpoint, in 4 KiB pages: only if the checkpointer thread falls far behind. */
const WRITER_AUTOCHECKPOINT_PAGES = 100_000;

/**
 * `chunks` and `unchunk`: a batch of a document's chunks written or removed (chunk-sweep.ts), answered with a value;
 * `finish`: the flip to ready, sent once all of a document's chunks are answered (a transaction after theirs).
 */
export type Job =
  | { id: number; kind: 'spans'; batches: SpanRows[] }
  | { id: number; kind: 'logs'; batches: LogBatchMessage[] }
  | { id: number; kind: 'chunks'; documentId: string; claim: string; chunks: ChunkInput[] }
  | { id: number; kind: 'unchunk'; documentId: string; which: ChunkSelection; limit: number }
  | { id: number; kind: 'finish'; documentId: string; claim: string; completion: Completion };
/** `index`: start indexing logs if any wait (the store was opened on a backlog); answered at once. */
export type Request = Job | { id: number; kind: 'close' } | { id: number; kind: 'index' };
/** An AppError's fields (the port's 503 above all), or the message of anything else. */
export type Failure = { status: number; code: string; message: string; retryAfter?: number } | { message: string };
/** `value`: what a chunks or finish job returns (whether the claim held) or an unchunk job (how many it removed). */
export type Reply = { id: number; failure?: Failure; value?: boolean | number };

const port = parentPort!;
/** `waiting`: span and log jobs posted and not yet taken (writer-thread.ts counts them up, this thread down). */
const { file, waiting } = workerData as { file: string; waiting: Int32Array };
/**
 * A document's chunks are seconds of FTS5 work: a chunks or unchunk job stops after the chunk under way (a removal:
 * its step of a few) when a span or log job waits in the port, which cannot be seen before the job returns. A
 * chunks job that stopped commits what it wrote and keeps the rest here, at the head of the queue, behind the
 * commits that wait; an unchunk job answers how many it removed (its caller asks again until none are left).
 */
const ingestWaits = () => Atomics.load(waiting, 0) > 0;
const db = new Database(file);
configure(db);
// The checkpointer thread (checkpoint-worker.ts) checkpoints; this connection only when the WAL passes ~400 MB.
db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
const version = db.pragma('user_version', { simple: true }) as number;
if (version !== SCHEMA_VERSION) throw new Error(`The database is at schema version ${version}, the writer expects ${SCHEMA_VERSION}.`);
const tx = createIngestTransactions(db, Date.now);
const chunks = chunkStatements(db);

/** A chunks job's chunks written (all, unless it stopped early), or false if the claim no longer holds. */
function run(job: Job): boolean | number | undefined {
  switch (job.kind) {
    case 'spans': return void tx.spans(job.batches);
    case 'logs': return void tx.logs(job.batches);
    case 'chunks': return chunks.insert(job.documentId, job.claim, job.chunks, ingestWaits);
    case 'unchunk': return chunks.remove(job.documentId, job.which, job.limit, ingestWaits);
    case 'finish': return chunks.finish(job.documentId, job.claim, job.completion);
  }
}

const group = db.transaction((jobs: Job[]) => jobs.map(run));

const reply = (job: Job, value: boolean | number | undefined): Reply => (value === undefined ? { id: job.id } : { id: job.id, value });

function failureOf(e: unknown): Failure {
  const err = toStoreError(e);
  if (err instanceof AppError) return { status: err.status, code: err.code, message: err.message, ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }) };
  return { message: err instanceof Error ? err.message : String(err) };
}

let queue: Job[] = [];
let scheduled = false;
// The log search index is filled in the turns this thread has free, and at least every INDEX_FLOOR_MS under a
// load that leaves none (log-indexer.ts): ingest comes first, the index catches up.
const indexing = startIndexLoop(createLogIndexer(db), () => scheduled || queue.length > 0);
// A worker started again after a failure, as the first one, looks for logs left to index.
indexing.kick();

/** Chunks jobs that stopped early, with the chunks they have left: the next turn goes on with them. */
let resumed: Job[] = [];

/**
 * A job's answer once its transaction committed: a chunks job that stopped early keeps its remaining chunks (cut
 * only now: a transaction that failed wrote none of them) and waits for the next turn instead.
 */
function answer(job: Job, value: boolean | number | undefined): void {
  if (job.kind === 'chunks' && typeof value === 'number') {
    if (value < job.chunks.length) {
      resumed.push({ ...job, chunks: job.chunks.slice(value) });
      return;
    }
    value = true;
  }
  port.postMessage(reply(job, value) satisfies Reply);
}

/** One transaction for the jobs (a group commit), answered each; a failed group is retried job by job. */
function commit(jobs: Job[]): void {
  if (jobs.length === 0) return;
  try {
    const values = (group.immediate as (j: Job[]) => Array<boolean | number | undefined>)(jobs);
    jobs.forEach((job, i) => answer(job, values[i]));
  } catch {
    for (const job of jobs) {
      try {
        const [value] = (group.immediate as (j: Job[]) => Array<boolean | number | undefined>)([job]);
        answer(job, value);
      } catch (e) {
        port.postMessage({ id: job.id, failure: failureOf(e) } satisfies Reply);
      }
    }
  }
}

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    setImmediate(drain);
  }
}

function drain(): void {
  scheduled = false;
  const jobs = queue;
  queue = [];
  if (jobs.length === 0) return;
  // Spans and logs first, in their own commit: a request's batch never waits behind a document's jobs (chunks, their
  // removals, the flip to ready) queued with it (chunks are tens of ms of FTS5 work), only behind one already running.
  const documents = (job: Job) => job.kind === 'chunks' || job.kind === 'unchunk' || job.kind === 'finish';
  commit(jobs.filter((job) => !documents(job)));
  commit(jobs.filter(documents));
  indexing.afterWrite(jobs.some((job) => job.kind === 'logs'));
  if (resumed.length > 0) {
    // Taken up at the next turn, after the messages that came meanwhile (the span and log jobs it stopped for).
    queue.unshift(...resumed);
    resumed = [];
    schedule();
  }
}

port.on('message', (request: Request) => {
  if (request.kind === 'index') {
    indexing.kick();
    port.postMessage({ id: request.id } satisfies Reply);
    return;
  }
  if (request.kind === 'close') {
    indexing.stop();
    // Every job to its end, chunk jobs that stopped early included: their callers wait for them.
    do drain();
    while (queue.length > 0);
    db.close();
    port.postMessage({ id: request.id } satisfies Reply);
    port.close();
    return;
  }
  if (request.kind === 'spans' || request.kind === 'logs') Atomics.sub(waiting, 0, 1);
  queue.push(request);
  schedule();
});
