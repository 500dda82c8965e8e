import { errors } from '@lantern/domain';
import { userIdOf } from '@lantern/http';
import type { RequestHandler } from 'express';

/**
 * At most `max` reads in flight per user in this process (MAX_CONCURRENT_READS_PER_USER): one more is 429
 * `too_many_reads` with `Retry-After: 1`. `authenticate` (requireUser) runs first and names the user. The slot
 * is given back when the response has finished or the client has gone away (the response's `close`, which
 * comes once in both cases), so a stream the client abandons does not keep it. Per process: each query process protects its own event loop and
 * read workers (docs/deploy.md).
 */
export function concurrentReads(authenticate: RequestHandler, max: number): RequestHandler {
  const inFlight = new Map<string, number>();
  const take: RequestHandler = (_req, res, next) => {
    const userId = userIdOf(res);
    const held = inFlight.get(userId) ?? 0;
    if (held >= max) return next(errors.tooManyReads(max));
    inFlight.set(userId, held + 1);
    res.once('close', () => {
      const left = (inFlight.get(userId) ?? 1) - 1;
      if (left > 0) inFlight.set(userId, left);
      else inFlight.delete(userId);
    });
    next();
  };
  return (req, res, next) => authenticate(req, res, (err?: unknown) => (err ? next(err) : take(req, res, next)));
}
