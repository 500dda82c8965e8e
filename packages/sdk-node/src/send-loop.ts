import { Pacing } from './pacing.js';
import { Pause, type RetryPolicy } from './retry.js';

/** What one attempt says about the service: answered (delivered or refused for good), or to be retried. */
export type AttemptOutcome = { retry: false } | { retry: true; retryAfterMs: number | undefined };

/** One batch ready to go: calling it sends the batch and settles it (delivered, refused, or kept for a retry). */
export type Attempt = () => Promise<AttemptOutcome>;

/** Where the loop gets its batches (the exporter: memory first, then the spool). */
export interface BatchSource {
  /** The next batch, if any. `all`: a partial batch too; otherwise only a full one. */
  next(all: boolean): Promise<Attempt | undefined>;
  /** Whether `next(all)` would find something in memory. */
  ready(all: boolean): boolean;
  /** A spooled batch is in flight: `next(true)` finds nothing now, but the spool may have more after it. */
  readingSpool(): boolean;
}

/**
 * The send loop of one kind: when batches start and how many are in flight at once (see Pacing), the backoff
 * wait, flush() and close()'s deadline. A loop started by a full batch sends full batches only (partial ones wait
 * for the interval); one started by the interval, flush() or close() sends everything.
 */
export class SendLoop {
  private readonly pacing: Pacing;
  private loop: Promise<void> | undefined;
  /**
   * Asks to send everything, partial batches too (the interval, flush()), and how many of them the loop has
   * answered. Counts, not a flag: an ask made while a read is pending stays unanswered when that read finds nothing.
   */
  private asked = 0;
  private answered = 0;
  private readonly pause = new Pause();
  private readonly activity = new Wakeup();
  /** True while the loop waits with every slot taken: a full batch arriving then need not wake it. */
  private slotsFull = false;
  private idleWaiters: Array<() => void> = [];
  private readonly sending = new Set<Promise<void>>();
  private deadline: number | undefined;

  constructor(
    private readonly source: BatchSource,
    settings: RetryPolicy & { maxConcurrentBatches: number },
    /** Runs the loop in the exporter's own async context. */
    private readonly inScope: (run: () => Promise<void>) => Promise<void>,
    private readonly onCrash: (what: string, error: unknown) => void,
  ) {
    this.pacing = new Pacing(settings.maxConcurrentBatches, settings);
  }

  private get sendAll(): boolean {
    return this.answered < this.asked;
  }

  /** close() has set a deadline: partial batches go too, nothing new is read from the spool. */
  get closing(): boolean {
    return this.deadline !== undefined;
  }

  /** Starts the loop, or tells the running one there is work. */
  kick(all: boolean): void {
    if (all) this.asked++;
    if (!this.loop) this.start();
    else if (all || !this.slotsFull) this.activity.notify();
  }

  /** Sends everything now (a backoff wait is cut short); resolves when nothing is left or an attempt failed. */
  flush(): Promise<void> {
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.asked++;
    if (this.loop) this.wake();
    else this.start();
    return idle;
  }

  /** A pending backoff wait ends now (flush, close, a delivered fatal log). */
  wake(): void {
    this.pacing.skipWait();
    this.pause.end();
    this.activity.notify();
  }

  /** close(): from now on the loop sends everything, retries from the backoff's base, and stops at `deadline`. */
  closeBy(deadline: number): void {
    this.deadline = deadline;
    this.pacing.restartBackoff();
  }

  /**
   * Runs (or wakes) the loop and resolves when it has stopped: nothing left to send and nothing in flight, or
   * the deadline passed and every request aborted then came back. Undefined when there was nothing to run.
   */
  runOnce(): Promise<void> | undefined {
    if (this.loop) this.wake();
    else if (this.source.ready(true)) this.start();
    return this.loop;
  }

  private start(): void {
    let crashed = false;
    this.loop = this.inScope(() => this.run())
      .catch((error: unknown) => {
        crashed = true;
        this.onCrash('send loop failed', error);
      })
      .finally(() => {
        this.loop = undefined;
        // Items that came while the loop was ending (a flush asked for meanwhile, or a full batch): go on.
        if (!crashed && this.deadline === undefined && this.source.ready(this.sendAll)) return this.start();
        this.answered = this.asked;
        this.settleIdle();
      });
  }

  private settleIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private pastDeadline(): boolean {
    return this.deadline !== undefined && Date.now() >= this.deadline;
  }

  private async run(): Promise<void> {
    while (!this.pastDeadline()) {
      const wait = this.pacing.delayMs();
      if (wait > 0) {
        // A backoff: flush() callers hear that an attempt failed.
        this.settleIdle();
        await this.pause.wait(this.deadline === undefined ? wait : Math.max(0, Math.min(wait, this.deadline - Date.now())));
        continue;
      }
      if (this.sending.size < this.pacing.limit) {
        const all = this.sendAll || this.deadline !== undefined;
        const asks = this.asked;
        const attempt = await this.source.next(all);
        if (attempt) {
          this.launch(attempt);
          continue;
        }
        // Everything that was waiting has gone (memory and spool): items recorded from now on wait for a full
        // batch or the next interval again, instead of leaving one small batch per round trip for as long as
        // traffic keeps a batch in flight (the loop then never ends). An ask made while this read was pending (a
        // spool read takes a while) stays unanswered: what was recorded before it goes on the next turn.
        if (all && !this.source.readingSpool()) this.answered = asks;
      }
      if (this.sending.size === 0) return;
      this.slotsFull = this.sending.size >= this.pacing.limit;
      await this.activity.wait();
      this.slotsFull = false;
    }
    // At the deadline the requests in flight are aborted: their batches come back before close() goes on.
    while (this.sending.size > 0) await Promise.all(this.sending);
  }

  private launch(attempt: Attempt): void {
    const ticket = this.pacing.ticket();
    const tracked: Promise<void> = attempt()
      .then(
        (outcome) => (outcome.retry ? this.pacing.failed(ticket, outcome.retryAfterMs) : this.pacing.answered(ticket)),
        (error: unknown) => this.onCrash('sending a batch failed', error),
      )
      .finally(() => {
        this.sending.delete(tracked);
        this.activity.notify();
      });
    this.sending.add(tracked);
  }
}

/**
 * The loop's wait for something to do: a batch ended, a full batch is ready, a flush. A notification that comes
 * while nobody waits is kept for the next wait, so none is lost.
 */
export class Wakeup {
  private waiter: (() => void) | undefined;
  private pending = false;

  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.waiter = resolve));
  }

  notify(): void {
    const w = this.waiter;
    if (!w) {
      this.pending = true;
      return;
    }
    this.waiter = undefined;
    w();
  }
}
