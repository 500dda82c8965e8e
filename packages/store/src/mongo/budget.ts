import { errors } from '@lantern/domain';

/**
 * The time budget of one read (`budgetMs` of the port's ReadBudget), counted from the call that started the
 * read. Every query of the read is sent with `maxTimeMS` set to what is left of the budget when it is sent (for
 * a find, the server counts the time of all its batches against it), and the read checks the clock between
 * pages, so that time spent outside the server (the consumer of a stream, the round trips) counts too. Past
 * the budget the read throws `errors.readTimeout(budgetMs)`; the guard turns the server's MaxTimeMSExpired into
 * the same error (errors.ts). A read whose caller has gone (ReadBudget.signal) stops the same way, before its
 * next query, with the signal's reason; a query already sent runs to its end (at most its `maxTimeMS`).
 */
export interface Deadline {
  /** The budget, or undefined for a read without one. */
  readonly budgetMs: number | undefined;
  /** The `maxTimeMS` option of the next query: the budget left, at least 1 ms. Throws once the budget is spent. */
  maxTime(): { maxTimeMS?: number };
  /** Throws `errors.readTimeout(budgetMs)` once the budget is spent. */
  check(): void;
}

/** The deadline of a read that starts now; none when `budgetMs` is absent or infinite (but still its signal). */
export function deadlineOf(budgetMs: number | undefined, now: () => number = Date.now, signal?: AbortSignal): Deadline {
  if (budgetMs === undefined || budgetMs === Number.POSITIVE_INFINITY) {
    const check = () => signal?.throwIfAborted();
    return { budgetMs: undefined, maxTime: () => (check(), {}), check };
  }
  const end = now() + budgetMs;
  const left = (): number => {
    signal?.throwIfAborted();
    const ms = end - now();
    if (!(ms > 0)) throw errors.readTimeout(budgetMs);
    return ms;
  };
  return {
    budgetMs,
    maxTime: () => ({ maxTimeMS: Math.max(1, Math.ceil(left())) }),
    check: () => void left(),
  };
}
