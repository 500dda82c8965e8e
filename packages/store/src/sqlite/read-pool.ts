import { Worker } from 'node:worker_threads';
import { AppError, JSON_BATCHES, QuantileSketch, errors, type ErrorCode, type JsonBatches, type LogEntry, type TraceRecord } from '@lantern/domain';
import type {
  ChunkHit, ChunkSearch, LogQuery, LogVolumeCell, LogVolumeQuery, MetricsCell, MetricsQuery, RootSpanQuery, RootSpanRow, TraceQuery, VectorSearch,
} from '../port.js';
import { logReadClass, metricsReadClass, traceReadClass, type ReadClass } from './read-class.js';
import type { ReadFailure, ReadReply, ReadRequest, StreamMethod, WireCell } from './read-worker.js';
import { workerFile } from './writer-thread.js';

/**
 * The telemetry reads of the SQLite store on a pool of worker threads (read-worker.ts), each with its own
 * read-only connection, so that no read runs on the event loop that serves requests: a month of metrics or a
 * whole-set stream costs the workers' time, not every other request's (docs/architecture.md, "Read workers").
 * A stream is pinned to one worker (its iterator lives there) and comes back a batch at a time: the next batch is
 * asked for only when the consumer has taken the last one (back-pressure; memory stays at a batch per stream).
 * A stream offers its batches serialised too (JSON_BATCHES): a whole-set response is then serialised by the
 * worker, and the request thread only writes the text.
 * With two workers or more, the first serves the light reads (read-class.ts: small pages, short metrics) at the
 * normal priority and the others the heavy ones at a lower priority (nice, read-worker.ts), so that small reads
 * never queue behind a heavy reader. Among the heavy workers a user's reads share one: a read goes to the worker
 * that already runs heavy reads of the same user, else to the one with the fewest reads under way, so one user,
 * however many heavy reads they run at once, occupies one worker. A worker that dies fails its reads in flight
 * with 503 unavailable and is started again by the next read. A stream belongs to the worker that opened it: once
 * that worker is gone the stream fails (503 unavailable) at its next batch, never ends short as if complete
 * (its iterator died with the worker; a new worker would not know it, and answers an unknown stream with a failure).
 */
export interface ReadPool {
  streamTraces(query: TraceQuery): AsyncIterable<TraceRecord>;
  streamLogs(query: LogQuery): AsyncIterable<LogEntry>;
  streamRootSpans(query: RootSpanQuery): AsyncIterable<RootSpanRow>;
  readMetrics(query: MetricsQuery): Promise<MetricsCell[]>;
  /** The log volume (log-volume.ts): a short window a light read, a long one heavy, as metrics. */
  readLogVolume(query: LogVolumeQuery): Promise<LogVolumeCell[]>;
  /** AI document search (port.ts searchChunks), a heavy read: it scores every chunk of the tenant holding a word. */
  searchChunks(query: ChunkSearch): Promise<ChunkHit[]>;
  /** Nearest chunks by cosine (port.ts nearestChunks), a heavy read: it compares every vector of the tenant. */
  nearestChunks(query: VectorSearch): Promise<ChunkHit[]>;
  close(): Promise<void>;
  /** For tests: the worker threads running now (to terminate one, as if it had died). */
  workersForTest(): Worker[];
}

/** The nice value of the heavy reads' workers: on a saturated machine, the request thread and the writer go first. */
const HEAVY_NICE = 5;

/** Items per batch of a stream: a page of the readers, about what a response writes per chunk. */
const BATCH_ITEMS = 100;

/** Who asks for a read, and the signal of their going away (ReadBudget.signal). */
type Caller = { userId: string; signal?: AbortSignal };

type Unsent = ReadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

/** One worker thread and the calls it has not answered yet: a dead worker fails its own calls, no other's. */
interface Live {
  worker: Worker;
  pending: Map<number, { resolve(reply: ReadReply): void; reject(err: Error): void }>;
}

interface Slot {
  live: Live | undefined;
  /** Its thread's nice value (read-worker.ts): 0 for the light reads' worker. */
  nice: number;
  /** Reads under way on it (open streams and calls). */
  load: number;
  /** Of them, per user. */
  users: Map<string, number>;
}

function toError(failure: ReadFailure): Error {
  if ('status' in failure) return new AppError(failure.status, failure.code as ErrorCode, failure.message, failure.details, failure.retryAfter);
  return new Error(failure.message);
}

const toCell = (c: WireCell): MetricsCell => ({
  projectId: c.projectId, applicationId: c.applicationId, bucket: c.bucket, requests: c.requests, errors: c.errors,
  sketch: QuantileSketch.fromArray(c.sketch, c.alpha), ...(c.operation === undefined ? {} : { operation: c.operation }),
  ...(c.callerApplicationId === undefined ? {} : { callerApplicationId: c.callerApplicationId }),
});

export function startReadPool(file: string, size: number, pageSize: number): ReadPool {
  // One worker serves every read at the normal priority; with more, the first is the light reads' (see above).
  const count = Math.max(1, size);
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({
    live: undefined, nice: count > 1 && i > 0 ? HEAVY_NICE : 0, load: 0, users: new Map<string, number>(),
  }));
  const light = slots[0]!;
  const heavy = slots.length > 1 ? slots.slice(1) : slots;
  let nextId = 1;
  let nextStream = 1;
  let closed = false;

  function spawn(slot: Slot): Live {
    const w = new Worker(workerFile('read-worker'), { workerData: { file, pageSize, batchItems: BATCH_ITEMS, nice: slot.nice } });
    const live: Live = { worker: w, pending: new Map() };
    w.unref();
    w.on('message', (reply: ReadReply) => {
      const p = live.pending.get(reply.id);
      if (!p) return;
      live.pending.delete(reply.id);
      if (live.pending.size === 0) w.unref();
      if ('failure' in reply) p.reject(toError(reply.failure));
      else p.resolve(reply);
    });
    // 'error' then 'exit' for the same worker: the second finds nothing left to fail.
    const lost = () => {
      if (slot.live === live) slot.live = undefined;
      for (const p of live.pending.values()) p.reject(errors.unavailable('store'));
      live.pending.clear();
    };
    w.on('error', lost);
    w.on('exit', lost);
    return live;
  }

  /** The slot's worker, started if it has none (it died). */
  function liveOf(slot: Slot): Live {
    return (slot.live ??= spawn(slot));
  }

  function call(live: Live, request: Unsent): Promise<ReadReply> {
    if (closed) return Promise.reject(errors.unavailable('store'));
    const id = nextId++;
    return new Promise<ReadReply>((resolve, reject) => {
      live.pending.set(id, { resolve, reject });
      live.worker.ref();
      live.worker.postMessage({ ...request, id });
    });
  }

  // Every worker starts now, not at its first read: starting one (loading its modules) takes a moment that would
  // fall on whichever request came first.
  if (!closed) for (const slot of slots) liveOf(slot);

  /** A light read's worker; for a heavy one, the worker of the user's heavy reads under way, else the least loaded. */
  function acquire(userId: string, kind: ReadClass): Slot {
    const slot = kind === 'light' ? light
      : heavy.find((s) => (s.users.get(userId) ?? 0) > 0) ?? heavy.reduce((best, s) => (s.load < best.load ? s : best));
    slot.load += 1;
    slot.users.set(userId, (slot.users.get(userId) ?? 0) + 1);
    return slot;
  }

  function release(slot: Slot, userId: string): void {
    slot.load -= 1;
    const n = (slot.users.get(userId) ?? 1) - 1;
    if (n > 0) slot.users.set(userId, n);
    else slot.users.delete(userId);
  }

  /**
   * The stream's items, or with `json` its batches' JSON texts. Its caller gone (`query.signal` aborted), the
   * worker is told at once, even in the middle of a batch: the read stops at its next statement there, and the
   * batch under way rejects.
   */
  async function* stream<T>(method: StreamMethod, query: Caller, kind: ReadClass, json: boolean): AsyncGenerator<T> {
    const { signal, ...wire } = query; // a signal does not cross threads: the worker gets its own
    signal?.throwIfAborted();
    const slot = acquire(query.userId, kind);
    const id = nextStream++;
    let done = false;
    type Batch = { items: T[]; done: boolean } | { text: T; done: boolean };
    // The worker that holds the stream's iterator: its batches can come from no other.
    const live = liveOf(slot);
    let told = false;
    const closeOnWorker = () => {
      if (told || done || closed || slot.live !== live) return;
      told = true;
      void call(live, { kind: 'close', stream: id }).catch(() => undefined);
    };
    signal?.addEventListener('abort', closeOnWorker, { once: true });
    try {
      let reply = (await call(live, { kind: 'open', stream: id, method, query: wire, json })) as Batch;
      for (;;) {
        done = reply.done;
        if ('text' in reply) {
          if ((reply.text as string).length > 0) yield reply.text;
        } else {
          for (const item of reply.items) yield item;
        }
        if (done) return;
        // Its worker died between two batches: the stream is lost, and must not end as if it were complete.
        if (slot.live !== live) throw errors.unavailable('store');
        signal?.throwIfAborted();
        reply = (await call(live, { kind: 'next', stream: id })) as Batch;
      }
    } catch (e) {
      done = true; // a failed stream is gone from its worker
      throw e;
    } finally {
      signal?.removeEventListener('abort', closeOnWorker);
      release(slot, query.userId);
      // A consumer that stopped early (a full page, a client gone): the worker drops the iterator.
      closeOnWorker();
    }
  }

  /** A read's records, that also offers its batches serialised by the worker. */
  const readOf = <T>(method: StreamMethod, query: Caller, kind: ReadClass): AsyncIterable<T> & JsonBatches => ({
    [Symbol.asyncIterator]: () => stream<T>(method, query, kind, false),
    [JSON_BATCHES]: () => stream<string>(method, query, kind, true),
  });

  return {
    streamTraces: (query) => readOf<TraceRecord>('streamTraces', query, traceReadClass(query)),
    streamLogs: (query) => readOf<LogEntry>('streamLogs', query, logReadClass(query)),
    streamRootSpans: (query) => readOf<RootSpanRow>('streamRootSpans', query, 'heavy'),
    async readMetrics(query) {
      const slot = acquire(query.userId, metricsReadClass(query));
      try {
        const { signal, ...wire } = query; // see stream(); a metrics read is not stopped midway (its read budget bounds it)
        signal?.throwIfAborted();
        const reply = (await call(liveOf(slot), { kind: 'metrics', query: wire })) as { cells: WireCell[] };
        return reply.cells.map(toCell);
      } finally {
        release(slot, query.userId);
      }
    },
    async readLogVolume(query) {
      const slot = acquire(query.userId, metricsReadClass(query));
      try {
        const { signal, ...wire } = query; // as readMetrics: bounded by its read budget, not stopped midway
        signal?.throwIfAborted();
        return ((await call(liveOf(slot), { kind: 'volume', query: wire })) as { volume: LogVolumeCell[] }).volume;
      } finally {
        release(slot, query.userId);
      }
    },
    async searchChunks(query) {
      const slot = acquire(query.userId, 'heavy');
      try {
        return ((await call(liveOf(slot), { kind: 'search', query })) as { hits: ChunkHit[] }).hits;
      } finally {
        release(slot, query.userId);
      }
    },
    async nearestChunks(query) {
      const slot = acquire(query.userId, 'heavy');
      try {
        return ((await call(liveOf(slot), { kind: 'nearest', query })) as { hits: ChunkHit[] }).hits;
      } finally {
        release(slot, query.userId);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(slots.map(async (slot) => {
        const w = slot.live?.worker;
        if (!w) return;
        const exited = new Promise((resolve) => w.once('exit', resolve));
        w.ref();
        w.postMessage('shutdown');
        await exited;
      }));
    },
    workersForTest: () => slots.flatMap((slot) => (slot.live ? [slot.live.worker] : [])),
  };
}
