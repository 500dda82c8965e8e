import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { accountOutcome, reportFailure, type Counts, type KindStats } from './outcomes.js';
import { SpoolOverflow } from './overflow.js';
import { batchBody, BoundedQueue, type Batch } from './queue.js';
import { LanternError, type DropReason, type Kind, type Reporter } from './report.js';
import type { RetryPolicy } from './retry.js';
import { SendLoop, type Attempt, type AttemptOutcome } from './send-loop.js';
import type { Spool, SpoolFile } from './spool.js';
import type { Transport } from './transport.js';

export interface ExporterSettings extends RetryPolicy {
  maxBatchSize: number;
  maxBatchBytes: number;
  maxQueueSize: number;
  maxConcurrentBatches: number;
}

/** Room kept for the envelope `{"timestamp":…,"traces":[…]}` when a batch is measured. */
const ENVELOPE_BYTES = 64;

/**
 * Delivery of one kind (spans or logs): a bounded queue whose bound counts every batch in flight, the send loop
 * (up to `maxConcurrentBatches` batches at once, see SendLoop and Pacing; a fatal log may add its own request),
 * what an attempt's outcome does to its batch, overflow to the spool, the drain of close() and the process exit.
 */
export class KindExporter {
  private readonly queue: BoundedQueue;
  private readonly counts: Counts = { sent: 0, dropped: 0, retried: 0, failed: 0, rejected: 0, spooled: 0 };
  private readonly overflow: SpoolOverflow | undefined;
  /** Internal work runs in the context where the client was made, never in a request's. */
  private readonly scope = new AsyncResource('lantern.exporter');
  private readonly maxBytes: number;
  private readonly loop: SendLoop;
  /** Batches from memory being sent (what exitNow() must still save). */
  private readonly inFlight = new Set<Batch>();
  /** At most one spooled batch is in flight: it is read back into memory outside the queue's bound. */
  private spoolSending = false;
  private readonly fatalSends = new Set<Promise<void>>();
  /** Aborted at close()'s deadline: every request then in flight, also those started before close(). */
  private readonly abort = new AbortController();

  constructor(
    readonly kind: Kind,
    private readonly transport: Transport,
    private readonly reporter: Reporter,
    private readonly spool: Spool | undefined,
    private readonly settings: ExporterSettings,
  ) {
    this.queue = new BoundedQueue(settings.maxQueueSize);
    this.maxBytes = settings.maxBatchBytes - ENVELOPE_BYTES;
    // One listener per request in flight (fatal logs included): no "possible leak" warning in the host's output.
    setMaxListeners(0, this.abort.signal);
    const source = { next: (all: boolean) => this.next(all), ready: (all: boolean) => (all ? this.queue.waiting > 0 : this.fullBatchReady()), readingSpool: () => this.spoolSending };
    const crash = (what: string, error: unknown) => this.reporter.error(new LanternError('internal', `${what}: ${(error as Error)?.message ?? String(error)}`, { kind }));
    this.loop = new SendLoop(source, settings, (run) => this.scope.runInAsyncScope(run), crash);
    if (spool) {
      this.overflow = new SpoolOverflow(kind, spool, reporter, settings, (n) => (this.counts.spooled += n), (n, reason, sync) => this.drop(n, reason, sync));
    }
  }

  stats(): KindStats {
    return {
      queued: this.queue.waiting + (this.overflow?.size ?? 0),
      inFlight: this.queue.inFlight,
      ...this.counts,
      spoolPending: this.spool?.pending(this.kind) ?? 0,
    };
  }

  /** Anything in memory (waiting, in flight or on its way to the spool). */
  get busy(): boolean {
    return this.queue.waiting + this.queue.inFlight + (this.overflow?.size ?? 0) > 0;
  }

  drop(count: number, reason: DropReason, sync = false): void {
    this.counts.dropped += count;
    this.reporter.drop(this.kind, count, reason, sync);
  }

  /** Buffers one serialised item; a full batch starts a flush. Overflow goes to the spool, else is dropped. */
  record(json: string): void {
    const bytes = Buffer.byteLength(json);
    if (bytes > this.maxBytes) return this.drop(1, 'too_large');
    if (this.queue.push(json, bytes)) {
      if (this.queue.waiting >= this.settings.maxBatchSize) this.loop.kick(false);
    } else if (this.overflow) {
      this.overflow.add(json, bytes);
    } else {
      this.drop(1, 'queue_full');
    }
  }

  /** The interval (`all`: everything goes), or a full batch (full batches go, the rest waits for the interval). */
  kick(all = true): void {
    this.loop.kick(all);
  }

  /** Sends now (a backoff wait is cut short); resolves when the queue is empty or an attempt failed. */
  flush(): Promise<void> {
    return this.loop.flush();
  }

  private fullBatchReady(): boolean {
    return this.queue.fullBatchReady(this.settings.maxBatchSize);
  }

  /** The request: the envelope's flush time is fixed at the first attempt, so a retry is the same request. */
  private send(batch: Batch) {
    batch.sentAt ??= new Date().toISOString();
    return this.transport.send(`/ingest/${this.kind}`, batchBody(this.kind, batch.sentAt, batch), batch.key, this.abort.signal);
  }

  /** The next batch: memory first, then spooled files (one at a time; not while closing: those stay for the next start). */
  private async next(all: boolean): Promise<Attempt | undefined> {
    const batch = all || this.fullBatchReady() ? this.queue.take(this.settings.maxBatchSize, this.maxBytes) : undefined;
    if (batch) {
      this.inFlight.add(batch);
      return () => this.deliver(batch);
    }
    if (!all || !this.spool || this.loop.closing || this.spoolSending) return undefined;
    this.spoolSending = true;
    const found = await this.spool.next(this.kind, (name) => this.reporter.error(new LanternError('spool', `unreadable spool file ${name} removed`, { kind: this.kind })));
    if (!found) this.spoolSending = false;
    return found && (() => this.deliver(found.batch, found.file));
  }

  /** One attempt and what it does to the batch: back to the front (or left in the spool) for a retry, or settled. */
  private async deliver(batch: Batch, file?: SpoolFile): Promise<AttemptOutcome> {
    try {
      const result = await this.send(batch);
      if (!file) this.inFlight.delete(batch);
      if (result.outcome === 'retry') {
        if (!file) this.queue.putBack(batch);
        this.counts.retried++;
        reportFailure(this.reporter, this.kind, result, batch.items.length, true);
        return { retry: true, retryAfterMs: result.retryAfterMs };
      }
      if (file) await this.spool?.remove(file);
      else this.queue.settle(batch);
      accountOutcome(this.reporter, this.kind, this.counts, result, batch.items.length);
      return { retry: false };
    } catch (error) {
      // Not expected (the transport never rejects): the items are kept rather than lost.
      if (this.inFlight.delete(batch)) this.queue.putBack(batch);
      throw error;
    } finally {
      if (file) this.spoolSending = false;
    }
  }

  /** A fatal log: its own request at once; if that fails it waits at the front of the queue for the retries. */
  sendNow(json: string): Promise<void> {
    const bytes = Buffer.byteLength(json);
    const batch: Batch = { key: randomUUID(), items: [json], bytes };
    if (bytes > this.maxBytes || !this.queue.reserve(batch)) {
      this.record(json);
      return Promise.resolve();
    }
    this.inFlight.add(batch);
    const sent = this.scope.runInAsyncScope(async () => {
      const result = await this.send(batch);
      this.inFlight.delete(batch);
      if (result.outcome === 'retry') {
        this.queue.putBack(batch);
        this.counts.retried++;
        reportFailure(this.reporter, this.kind, result, 1, true);
        return this.loop.kick(false);
      }
      this.queue.settle(batch);
      accountOutcome(this.reporter, this.kind, this.counts, result, 1);
      if (result.outcome === 'ok') this.loop.wake(); // the service is back: no need to wait out a backoff
    });
    const tracked = sent.catch(() => undefined).finally(() => this.fatalSends.delete(tracked));
    this.fatalSends.add(tracked);
    return tracked;
  }

  /**
   * close(): send what is in memory until the deadline (a backoff wait is cut short, the requests in flight at
   * the deadline are aborted and their batches come back); what is left then is spooled, else dropped.
   */
  async drain(deadline: number): Promise<void> {
    this.loop.closeBy(deadline);
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<void>((resolve) => {
      timer = setTimeout(() => (this.abort.abort(), this.loop.wake(), resolve()), Math.max(0, deadline - Date.now()));
      timer.unref();
    });
    while (Date.now() < deadline) {
      const running = this.loop.runOnce();
      if (running) await running;
      else if (this.fatalSends.size > 0) await Promise.race([...this.fatalSends, reached]);
      else break;
    }
    clearTimeout(timer);
    this.scope.emitDestroy();
    const left = this.queue.drain(this.settings.maxBatchSize, this.maxBytes);
    if (this.overflow) {
      for (const batch of left) await this.overflow.write(batch);
      await this.overflow.settle();
    } else {
      for (const batch of left) this.drop(batch.items.length, 'close_timeout');
    }
  }

  /** The process is exiting (nothing asynchronous runs any more): spool synchronously, else report the loss. */
  exitNow(): void {
    const batches = [...this.queue.drain(this.settings.maxBatchSize, this.maxBytes), ...this.inFlight];
    this.inFlight.clear();
    if (this.overflow) return this.overflow.writeAllSync(batches);
    for (const batch of batches) this.drop(batch.items.length, 'exit', true);
  }
}
