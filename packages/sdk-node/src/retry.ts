/** When to try a failed batch again: exponential backoff with full jitter, or the server's Retry-After. */

export interface RetryPolicy {
  retryBaseMs: number;
  retryMaxMs: number;
  retryAfterMaxMs: number;
}

/** Full jitter: a random delay in [0, min(max, base x 2^(failures-1))). `failures` counts from 1. */
export function backoffMs(failures: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(failures - 1, 0), 30));
  return Math.floor(random() * exp);
}

/** `Retry-After` as milliseconds from now: delay-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string') return undefined;
  const v = text.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!/[a-z]/i.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The delay before the next attempt: the server's Retry-After (capped) when given, else the backoff. */
export function retryDelayMs(failures: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.retryAfterMaxMs);
  return backoffMs(failures, policy.retryBaseMs, policy.retryMaxMs, random);
}

/** Whether a status is worth another attempt: 408, 429 and every 5xx. */
export const isRetryableStatus = (status: number) => status === 408 || status === 429 || (status >= 500 && status <= 599);

/** The wait between two attempts, which a flush, a successful fatal log or close() can cut short. */
export class Pause {
  private current: { timer: NodeJS.Timeout; resolve: () => void } | undefined;

  /** Waits `ms` (the timer does not hold the process). */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(), ms);
      timer.unref();
      this.current = { timer, resolve };
    });
  }

  /** Ends the wait now, if there is one. */
  end(): void {
    const c = this.current;
    if (!c) return;
    this.current = undefined;
    clearTimeout(c.timer);
    c.resolve();
  }
}
