import { errors } from '@lantern/domain';
import type { Logger } from '@lantern/logging';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Fixed-window hit counts kept outside the process (the store's `countHit`): every process counting in the same
 * windows, a limit holds across them.
 */
export interface RateCounter {
  /** Adds one hit to `key`'s window `[windowStart, windowStart + windowMs)`; returns the window's count with it. */
  countHit(key: string, windowStart: number, windowMs: number): Promise<number>;
}

export interface RateLimitOptions {
  /** Requests allowed per window for one key. */
  max: number;
  windowMs?: number;
  /** The client identity to count by (API key hash, client address...). Undefined: not counted. */
  key: (req: Request, res: Response) => string | undefined;
  enabled?: boolean;
  /** Bound on the number of keys tracked at once (in-process counting only). */
  maxKeys?: number;
  now?: () => number;
  /**
   * Count in this shared counter instead of in the process, in windows aligned on multiples of `windowMs`.
   * `key` must then name the limit too (`ingest-app:7`), since one counter serves every limit.
   */
  counter?: RateCounter;
  /** What is limited, for the refusal's message ("this application"). */
  scope?: string;
  /**
   * Called when the shared counter fails: the request is then counted in the process alone (a limit must not take
   * the service down with its store, nor vanish with it).
   */
  onCounterError?: (err: unknown) => void;
  /**
   * How long a request waits for the shared counter (default 1000 ms) before it is counted as on a failure.
   * After a failure the process counts alone for `counterRestMs` (default 5 s), so requests do not each wait
   * for a store that is down.
   */
  counterTimeoutMs?: number;
  counterRestMs?: number;
}

/**
 * A fixed-window counter per key: past `max` in the window the answer is 429 `rate_limited` with `Retry-After`
 * set to the seconds until the window ends. In-process (the default), memory is bounded by `maxKeys` (oldest
 * windows are dropped first); with `counter`, the windows are shared by every process using it.
 */
/** How long a process counts alone after its shared counter failed (the default `counterRestMs`). */
const COUNTER_REST_MS = 5000;

/** The `onCounterError` of the services: one warning that says what happens meanwhile. */
export function logCounterFailures(logger: Pick<Logger, 'warn'>): (err: unknown) => void {
  return (err) =>
    logger.warn(`rate-limit counter failed; counting in this process for ${COUNTER_REST_MS / 1000} s`, { error: err instanceof Error ? err.message : String(err) });
}

export function rateLimit(options: RateLimitOptions): RequestHandler {
  const { max, windowMs = 60_000, key, enabled = true, maxKeys = 50_000, now = Date.now, counter, scope, onCounterError } = options;
  const refuse = (windowEnd: number, t: number) => errors.rateLimited(Math.max(1, Math.ceil((windowEnd - t) / 1000)), scope, max);
  const local = localWindows(windowMs, maxKeys, counter !== undefined);
  if (!counter) {
    return (req, res, next) => {
      if (!enabled) return next();
      const id = key(req, res);
      if (id === undefined) return next();
      const t = now();
      const w = local(id, t);
      next(w.count > max ? refuse(w.end, t) : undefined);
    };
  }
  const { counterTimeoutMs = 1000, counterRestMs = COUNTER_REST_MS } = options;
  let restUntil = 0;
  return (req, res, next) => {
    if (!enabled) return next();
    const id = key(req, res);
    if (id === undefined) return next();
    const t = now();
    // The shared counter failed a moment ago: this process counts alone meanwhile (the limit holds per process,
    // N times over N processes, rather than not at all).
    const alone = () => {
      const w = local(id, t);
      next(w.count > max ? refuse(w.end, t) : undefined);
    };
    if (t < restUntil) return alone();
    const start = t - (t % windowMs);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the rate-limit counter did not answer within ${counterTimeoutMs} ms`)), counterTimeoutMs);
    });
    Promise.race([counter.countHit(id, start, windowMs), late]).then(
      (count) => {
        clearTimeout(timer);
        next(count > max ? refuse(start + windowMs, t) : undefined);
      },
      (err: unknown) => {
        clearTimeout(timer);
        restUntil = now() + counterRestMs;
        onCounterError?.(err);
        alone();
      },
    );
  };
}

/**
 * In-process fixed windows per key, at most `maxKeys` at once (the oldest dropped first). `aligned`: windows start
 * on multiples of `windowMs`, as the shared counter's do; otherwise at a key's first hit.
 */
function localWindows(windowMs: number, maxKeys: number, aligned: boolean): (id: string, t: number) => { count: number; end: number } {
  const windows = new Map<string, { start: number; count: number }>();
  return (id, t) => {
    let w = windows.get(id);
    if (!w || t - w.start >= windowMs) {
      windows.delete(id);
      if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
      w = { start: aligned ? t - (t % windowMs) : t, count: 0 };
      windows.set(id, w);
    }
    w.count++;
    return { count: w.count, end: w.start + windowMs };
  };
}
