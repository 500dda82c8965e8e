import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { accountOutcome, reportFailure, type Counts, type KindStats } from './outcomes.js';
import { SpoolOverflow } from './overflow.js';
import { BoundedQueue, type Batch } from './queue.js';
import { LanternError, type DropReason, type Kind, type Reporter } from './report.js';
import { Pause, retryDelayMs, type RetryPolicy } from './retry.js';
import type { Spool, SpoolFile } from './spool.js';
import type { Transport } from './transport.js';

export interface ExporterSettings extends RetryPolicy {
  maxBatchSize: number;
  maxBatchBytes: number;
  maxQueueSize: number;
}

/** Room kept for the envelope `{"timestamp":…,"traces":[…]}` when a batch is measured. */
const ENVELOPE_BYTES = 64;

/**
 * Delivery of one kind (spans or logs): a bounded queue, one send loop (one batch in flight; a fatal log may
 * add its own request), retries with backoff, overflow to the spool, the drain of close() and the process exit.
 */
export class KindExporter {
  private readonly queue: BoundedQueue;
  private readonly counts: Counts = { sent: 0, dropped: 0, retried: 0, failed: 0, rejected: 0, spooled: 0 };
  private readonly overflow: SpoolOverflow | undefined;
  /** Internal work runs in the context where the client was made, never in a request's. */
  private readonly scope = new AsyncResource('lantern.exporter');
  private readonly maxBytes: number;
  private loop: Promise<void> | undefined;
  /** False while the loop was started by a full batch: it then sends full batches only, the rest waits for the interval. */
  private sendAll = false;
  private failures = 0;
  private readonly pause = new Pause();
  private idleWaiters: Array<() => void> = [];
  private readonly inFlight = new Set<Batch>();
  private readonly fatalSends = new Set<Promise<void>>();
  private deadline: number | undefined;
  private abort: AbortController | undefined;

  constructor(
    readonly kind: Kind,
    private readonly transport: Transport,
    private readonly reporter: Reporter,
    private readonly spool: Spool | undefined,
    private readonly settings: ExporterSettings,
  ) {
    this.queue = new BoundedQueue(settings.maxQueueSize);
    this.maxBytes = settings.maxBatchBytes - ENVELOPE_BYTES;
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
      if (this.queue.waiting >= this.settings.maxBatchSize) this.kick(false);
    } else if (this.overflow) {
      this.overflow.add(json, bytes);
    } else {
      this.drop(1, 'queue_full');
    }
  }

  /**
   * Starts the send loop unless it runs (or waits out a backoff). The interval sends everything (`all`);
   * a full batch starts a loop that sends full batches only.
   */
  kick(all = true): void {
    if (all) this.sendAll = true;
    if (!this.loop) this.startLoop();
  }

  /** Sends now (a backoff wait is cut short); resolves when the queue is empty or an attempt failed. */
  flush(): Promise<void> {
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.sendAll = true;
    if (this.loop) this.wake();
    else this.startLoop();
    return idle;
  }

  private startLoop(): void {
    let failed = false;
    this.loop = this.scope
      .runInAsyncScope(() => this.run())
      .catch((error: unknown) => {
        failed = true;
        this.reporter.error(new LanternError('internal', `send loop failed: ${(error as Error)?.message ?? String(error)}`, { kind: this.kind }));
      })
      .finally(() => {
        this.loop = undefined;
        // A flush asked for while the loop was ending, with items that came meanwhile: go on.
        if (!failed && this.sendAll && this.queue.waiting > 0 && this.deadline === undefined) return this.startLoop();
        this.sendAll = false;
        this.settleIdle();
      });
  }

  private settleIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private wake(): void {
    this.pause.end();
  }

  private sleep(ms: number): Promise<void> {
    this.settleIdle();
    return this.pause.wait(ms);
  }

  private pastDeadline(): boolean {
    return this.deadline !== undefined && Date.now() >= this.deadline;
  }

  /** The request: the envelope's flush time is fixed at the first attempt, so a retry is the same request. */
  private send(batch: Batch) {
    batch.sentAt ??= new Date().toISOString();
    const body = `{"timestamp":"${batch.sentAt}","${this.kind}":[${batch.items.join(',')}]}`;
    return this.transport.send(`/ingest/${this.kind}`, body, batch.key, this.abort?.signal);
  }

  /** The next batch: memory first, then spooled files (not while closing: those stay for the next start). */
  private async next(): Promise<{ batch: Batch; file?: SpoolFile } | undefined> {
    const all = this.sendAll || this.deadline !== undefined;
    const batch = all || this.queue.fullBatchReady(this.settings.maxBatchSize) ? this.queue.take(this.settings.maxBatchSize, this.maxBytes) : undefined;
    if (batch) return { batch };
    if (!all || !this.spool || this.deadline !== undefined) return undefined;
    return this.spool.next(this.kind, (name) => this.reporter.error(new LanternError('spool', `unreadable spool file ${name} removed`, { kind: this.kind })));
  }

  private async run(): Promise<void> {
    while (!this.pastDeadline()) {
      const next = await this.next();
      if (!next) return;
      const { batch, file } = next;
      if (!file) this.inFlight.add(batch);
      const result = await this.send(batch);
      this.inFlight.delete(batch);
      if (result.outcome === 'retry') {
        if (!file) this.queue.putBack(batch);
        this.counts.retried++;
        this.failures++;
        reportFailure(this.reporter, this.kind, result, batch.items.length, true);
        const delay = retryDelayMs(this.failures, result.retryAfterMs, this.settings);
        await this.sleep(this.deadline === undefined ? delay : Math.max(0, Math.min(delay, this.deadline - Date.now())));
        continue;
      }
      this.failures = 0;
      if (file) await this.spool?.remove(file);
      else this.queue.settle(batch);
      accountOutcome(this.reporter, this.kind, this.counts, result, batch.items.length);
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
        return this.kick(false);
      }
      this.queue.settle(batch);
      accountOutcome(this.reporter, this.kind, this.counts, result, 1);
      if (result.outcome === 'ok') this.wake(); // the service is back: no need to wait out a backoff
    });
    const tracked = sent.catch(() => undefined).finally(() => this.fatalSends.delete(tracked));
    this.fatalSends.add(tracked);
    return tracked;
  }

  /**
   * close(): send what is in memory until the deadline (a backoff wait is cut short, the request in flight at
   * the deadline is aborted); what is left then is spooled, else dropped.
   */
  async drain(deadline: number): Promise<void> {
    this.deadline = deadline;
    this.failures = 0;
    const abort = (this.abort = new AbortController());
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<void>((resolve) => {
      timer = setTimeout(() => (abort.abort(), this.wake(), resolve()), Math.max(0, deadline - Date.now()));
      timer.unref();
    });
    while (!this.pastDeadline()) {
      if (this.queue.waiting > 0 || this.loop) {
        if (this.loop) this.wake();
        else this.startLoop();
        await this.loop;
      } else if (this.fatalSends.size > 0) {
        await Promise.race([...this.fatalSends, reached]);
      } else break;
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
