import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { AppError, errors } from '@lantern/domain';
import type { ChunkHit, ChunkSearch, LogVolumeCell, LogVolumeQuery, MetricsQuery, VectorSearch } from '../port.js';
import { chunkSearcher } from './ai-search.js';
import { nearestSearcher } from './ai-nearest.js';
import { toStoreError } from './errors.js';
import { registerLogAttrs } from './log-attrs.js';
import { createLogReader } from './logs.js';
import { createLogVolumeReader } from './log-volume.js';
import { createRollupReader } from './rollup-reader.js';
import { BUSY_TIMEOUT_MS, SCHEMA_VERSION } from './schema.js';
import { createTraceReader } from './traces.js';

/**
 * A read worker of read-pool.ts: its own read-only connection to the database file (WAL lets it read beside the
 * writer thread and the main connection), the same readers as the main thread, and the streams it has open. A
 * stream answers one batch at a time, when asked: the main thread asks for the next batch only when its consumer
 * wants more, so memory stays at a batch per stream however large the set. Several streams share the worker,
 * batch by batch (each batch is a few bounded statements: paging.ts), so one long read does not hold the others.
 */

export type StreamMethod = 'streamTraces' | 'streamLogs' | 'streamRootSpans';

export type ReadRequest =
  | { id: number; kind: 'open'; stream: number; method: StreamMethod; query: object; json: boolean }
  | { id: number; kind: 'next'; stream: number }
  | { id: number; kind: 'close'; stream: number }
  | { id: number; kind: 'metrics'; query: MetricsQuery }
  | { id: number; kind: 'volume'; query: LogVolumeQuery }
  | { id: number; kind: 'search'; query: ChunkSearch }
  | { id: number; kind: 'nearest'; query: VectorSearch };

/** An AppError's fields (503 read_timeout or unavailable above all), or the message of anything else. */
export type ReadFailure = { status: number; code: string; message: string; details?: unknown[]; retryAfter?: number } | { message: string };

/** A metrics cell as it crosses the thread: its sketch as counts (QuantileSketch.toArray). */
export interface WireCell {
  projectId: number;
  applicationId: number;
  bucket: number;
  requests: number;
  errors: number;
  sketch: number[];
  alpha: number;
  /** A per-operation cell's operation (MetricsCell). */
  operation?: string | null;
  /** A call cell's caller (MetricsCell). */
  callerApplicationId?: number;
}

/** A stream's batch: its items, or with `json` their JSON joined by commas (serialised here, not on the request thread). */
export type ReadReply =
  | { id: number; items: unknown[]; done: boolean }
  | { id: number; text: string; done: boolean }
  | { id: number; cells: WireCell[] }
  | { id: number; volume: LogVolumeCell[] }
  | { id: number; hits: ChunkHit[] }
  | { id: number; failure: ReadFailure }
  | { id: number };

const port = parentPort!;
const { file, pageSize, batchItems, nice } = workerData as { file: string; pageSize: number; batchItems: number; nice: number };

/**
 * The nice value of this worker's thread (Linux: a thread is its own scheduling entity, named by its id in
 * /proc/thread-self): the heavy reads' workers run at a lower priority, so that on a saturated machine the request
 * thread, the writer and the light reads go first and a heavy read slows its own reader. Elsewhere (or if
 * refused) the process's priority.
 */
if (nice !== 0) {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not allowed
  }
}
const db = new Database(file, { readonly: true, fileMustExist: true });
registerLogAttrs(db);
db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
db.pragma('temp_store = MEMORY');
db.pragma('cache_size = -32768');
const version = db.pragma('user_version', { simple: true }) as number;
if (version !== SCHEMA_VERSION) throw new Error(`The database is at schema version ${version}, the read worker expects ${SCHEMA_VERSION}.`);

const readers = { ...createTraceReader(db, pageSize), ...createLogReader(db, pageSize) };
const readMetrics = createRollupReader(db);
const readLogVolume = createLogVolumeReader(db);
// Document search (FTS5 BM25 scores every match: off the request thread, as the heavy reads).
const searchChunks = chunkSearcher(db);
// Nearest chunks by cosine, brute force over the tenant's vectors: a heavy read too.
const nearestChunks = nearestSearcher(db);
/** The open streams; `abort` stops a stream's read at its next statement (ReadBudget.signal), even mid-batch. */
const streams = new Map<number, { it: AsyncIterator<unknown>; json: boolean; abort: AbortController }>();

function failureOf(e: unknown): ReadFailure {
  const err = toStoreError(e);
  if (err instanceof AppError) {
    return { status: err.status, code: err.code, message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }), ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }) };
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

/** The stream's next batch: up to `batchItems` items (or their JSON), and whether the stream has ended. */
async function batch(stream: number): Promise<{ items: unknown[]; done: boolean } | { text: string; done: boolean }> {
  const open = streams.get(stream);
  // Not a stream of this worker (it was opened on one that died): a failure, never an empty last batch, which
  // would end the client's array short as if it were complete.
  if (open === undefined) throw errors.unavailable('store');
  const items: unknown[] = [];
  let done = false;
  try {
    while (items.length < batchItems) {
      const next = await open.it.next();
      if (next.done) {
        streams.delete(stream);
        done = true;
        break;
      }
      items.push(next.value);
    }
  } catch (e) {
    streams.delete(stream);
    throw e;
  }
  return open.json ? { text: items.map((item) => JSON.stringify(item)).join(','), done } : { items, done };
}

async function handle(request: ReadRequest): Promise<ReadReply> {
  switch (request.kind) {
    case 'open': {
      const read = readers[request.method] as (query: object) => AsyncIterable<unknown>;
      const abort = new AbortController();
      const it = read({ ...request.query, signal: abort.signal })[Symbol.asyncIterator]();
      streams.set(request.stream, { it, json: request.json, abort });
      return { id: request.id, ...(await batch(request.stream)) };
    }
    case 'next':
      return { id: request.id, ...(await batch(request.stream)) };
    case 'close': {
      // Its consumer stopped early or went away, maybe while a batch is under way: that batch fails at its next
      // statement, and the iterator is dropped.
      const open = streams.get(request.stream);
      streams.delete(request.stream);
      open?.abort.abort(new Error('The stream was closed by its consumer.'));
      await open?.it.return?.();
      return { id: request.id };
    }
    case 'metrics': {
      const cells = await readMetrics(request.query);
      return { id: request.id, cells: cells.map((c) => ({ ...c, sketch: c.sketch.toArray(), alpha: c.sketch.alpha })) };
    }
    case 'volume':
      return { id: request.id, volume: await readLogVolume(request.query) };
    case 'search':
      return { id: request.id, hits: searchChunks(request.query) };
    case 'nearest':
      return { id: request.id, hits: nearestChunks(request.query) };
  }
}

port.on('message', (request: ReadRequest | 'shutdown') => {
  if (request === 'shutdown') {
    streams.clear();
    db.close();
    port.close();
    return;
  }
  handle(request).then(
    (reply) => port.postMessage(reply),
    (e: unknown) => port.postMessage({ id: request.id, failure: failureOf(e) } satisfies ReadReply),
  );
});
