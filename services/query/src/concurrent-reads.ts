import { errors } from '@lantern/domain';
import { userIdOf } from '@lantern/http';
import type { Request, RequestHandler, Response } from 'express';

/** A read's handler: `signal` is aborted when its client goes away before the response has finished. */
export type ReadHandler = (req: Request, res: Response, signal: AbortSignal) => Promise<void>;

/**
 * At most `max` reads in flight per user in this process (MAX_CONCURRENT_READS_PER_USER): one more is 429
 * `too_many_reads` with `Retry-After: 1`. `authenticate` (requireUser) runs first and names the user. Wraps a
 * read's handler: the read holds its slot until both its response has closed (finished, or its client gone) and
 * its handler has settled, that is until the read has actually stopped, so a client that drops its connection
 * and asks again gets no more reads running at once than one that waits. A client gone away aborts the handler's
 * signal, which stops the store's read (ReadBudget.signal). Per process: each query process protects its own
 * event loop and read workers (docs/deploy.md).
 */
export function concurrentReads(authenticate: RequestHandler, max: number): (handler: ReadHandler) => RequestHandler {
  const inFlight = new Map<string, number>();
  const release = (userId: string) => {
    const left = (inFlight.get(userId) ?? 1) - 1;
    if (left > 0) inFlight.set(userId, left);
    else inFlight.delete(userId);
  };
  const run = (handler: ReadHandler, req: Request, res: Response, next: (err?: unknown) => void) => {
    const userId = userIdOf(res);
    const held = inFlight.get(userId) ?? 0;
    if (held >= max) return next(errors.tooManyReads(max));
    inFlight.set(userId, held + 1);
    // Two things to wait for: the response's close (it comes once, finished or not) and the handler's end.
    let waiting = 2;
    const settle = () => {
      if (--waiting === 0) release(userId);
    };
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort(new Error('The client went away.'));
      settle();
    });
    // What a read stopped by its client's going throws goes to nobody.
    handler(req, res, abandoned.signal).then(undefined, (err: unknown) => (abandoned.signal.aborted ? undefined : next(err))).finally(settle);
  };
  return (handler) => (req, res, next) => authenticate(req, res, (err?: unknown) => (err ? next(err) : run(handler, req, res, next)));
}
