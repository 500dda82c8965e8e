import { retryDelayMs, type RetryPolicy } from './retry.js';

/**
 * How many batches of one kind may be in flight, and from when the next may start.
 *
 * - The limit starts at 1, grows by one with every batch the service answers (delivered or refused for good) up
 *   to `max`, and falls back to 1 at a failed attempt: a healthy collector gets several batches at once when a
 *   backlog exists, a failing one is probed by one batch at a time instead of N parallel retries.
 * - After a failed attempt nothing starts before the backoff delay (or the server's `Retry-After`) has passed.
 * - Batches sent before a failure was seen are answered later by the same outage: their failures do not count
 *   again (the backoff grows once per round of attempts, not once per batch that was in flight), and their
 *   successes do not end the caution, since the service has not yet answered a batch sent after the failure. Such
 *   an answer's `Retry-After` is still honoured.
 */
export class Pacing {
  private allowed = 1;
  private failures = 0;
  /** Bumped by every counted failure; a batch's ticket is the generation when it started. */
  private generation = 0;
  private notBefore = 0;

  constructor(
    private readonly max: number,
    private readonly policy: RetryPolicy,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {}

  /** Batches that may be in flight now. */
  get limit(): number {
    return this.allowed;
  }

  /** Consecutive failed rounds (the backoff's exponent). */
  get failedRounds(): number {
    return this.failures;
  }

  /** Milliseconds before the next batch may start; 0: now. */
  delayMs(): number {
    return this.notBefore === 0 ? 0 : Math.max(0, this.notBefore - this.now());
  }

  /** A batch starts; hand its ticket back with its outcome. */
  ticket(): number {
    return this.generation;
  }

  /** The service answered the batch (delivered, or refused for good: sending again would not help). */
  answered(ticket: number): void {
    if (ticket !== this.generation) return;
    this.failures = 0;
    if (this.allowed < this.max) this.allowed++;
  }

  /** The attempt failed and the batch will be sent again. */
  failed(ticket: number, retryAfterMs: number | undefined): void {
    if (ticket === this.generation) {
      this.generation++;
      this.failures++;
      this.allowed = 1;
      this.holdFor(retryDelayMs(this.failures, retryAfterMs, this.policy, this.random));
    } else if (retryAfterMs !== undefined) {
      this.holdFor(Math.min(retryAfterMs, this.policy.retryAfterMaxMs));
    }
  }

  /** flush(), close() or a delivered fatal log: the pending wait ends now. */
  skipWait(): void {
    this.notBefore = 0;
  }

  /** close(): the backoff starts again from its base (the limit stays as it is). */
  restartBackoff(): void {
    this.failures = 0;
    this.notBefore = 0;
  }

  private holdFor(ms: number): void {
    this.notBefore = Math.max(this.notBefore, this.now() + ms);
  }
}
