/** Runs at most `max` tasks at once; the others wait their turn, first come first served. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

export function createLimiter(max: number): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new Error('A limiter needs at least one slot.');
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < max) active++;
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
