import { errors } from '@lantern/domain';
import type { Request, RequestHandler, Response } from 'express';

export interface RateLimitOptions {
  /** Requests allowed per window for one key. */
  max: number;
  windowMs?: number;
  /** The client identity to count by (API key hash, client address...). Undefined: not counted. */
  key: (req: Request, res: Response) => string | undefined;
  enabled?: boolean;
  /** Bound on the number of keys tracked at once. */
  maxKeys?: number;
  now?: () => number;
}

/**
 * A fixed-window counter per key: past `max` in the window the answer is 429 with `Retry-After` set to
 * the seconds until the window ends. Memory is bounded by `maxKeys` (oldest windows are dropped first).
 */
export function rateLimit({ max, windowMs = 60_000, key, enabled = true, maxKeys = 50_000, now = Date.now }: RateLimitOptions): RequestHandler {
  const windows = new Map<string, { start: number; count: number }>();
  return (req, res, next) => {
    if (!enabled) return next();
    const id = key(req, res);
    if (id === undefined) return next();
    const t = now();
    let w = windows.get(id);
    if (!w || t - w.start >= windowMs) {
      windows.delete(id);
      if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
      w = { start: t, count: 0 };
      windows.set(id, w);
    }
    w.count++;
    if (w.count > max) {
      return next(errors.rateLimited(Math.max(1, Math.ceil((w.start + windowMs - t) / 1000))));
    }
    next();
  };
}
