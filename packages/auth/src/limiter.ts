import { errors } from '@lantern/domain';

/** Runs at most `max` tasks at once; the others wait their turn, first come first served. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * At most `max` tasks run at once and at most `maxWaiting` wait: one more is refused at once with 503
 * `unavailable` (Retry-After 1 s) rather than queued without end, so a flood of logins cannot make every login
 * wait minutes (each waiter also holds its request).
 */
export function createLimiter(max: number, { maxWaiting = Infinity, what = 'service' }: { maxWaiting?: number; what?: string } = {}): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new Error('A limiter needs at least one slot.');
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < max) active++;
    else if (waiting.length >= maxWaiting) throw errors.unavailable(what, 1);
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, or is given back.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
