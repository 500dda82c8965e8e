import { describe, expect, it } from '@jest/globals';
import { AppError } from '@lantern/domain';
import type { Request, Response } from 'express';
import { rateLimit, type RateLimitOptions } from '../src/index.js';

/** Calls the middleware directly with a controllable clock; returns what it passed to `next`. */
function limiter(options: Omit<RateLimitOptions, 'key' | 'now'> & { key?: RateLimitOptions['key'] }) {
  let t = 1_000_000;
  const mw = rateLimit({ key: (req) => req.headers['x-client'] as string | undefined, ...options, now: () => t });
  return {
    hit(client: string | null = 'a'): AppError | undefined {
      let passed: unknown = 'not called';
      const req = { headers: client === null ? {} : { 'x-client': client } } as unknown as Request;
      mw(req, {} as Response, (err?: unknown) => {
        passed = err;
      });
      expect(passed).not.toBe('not called');
      return passed as AppError | undefined;
    },
    advance(ms: number) {
      t += ms;
    },
  };
}

describe('rateLimit', () => {
  it('lets `max` requests through per window, then answers 429 with the seconds left in the window', () => {
    const l = limiter({ max: 2, windowMs: 60_000 });
    expect(l.hit()).toBeUndefined();
    l.advance(15_000);
    expect(l.hit()).toBeUndefined();
    l.advance(14_500);
    const err = l.hit();
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 31 });
  });

  it('resets when the window has passed', () => {
    const l = limiter({ max: 1, windowMs: 10_000 });
    expect(l.hit()).toBeUndefined();
    expect(l.hit()?.status).toBe(429);
    l.advance(9_999);
    expect(l.hit()?.retryAfter).toBe(1);
    l.advance(1);
    expect(l.hit()).toBeUndefined();
    expect(l.hit()?.status).toBe(429);
  });

  it('counts each key separately', () => {
    const l = limiter({ max: 1 });
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')?.status).toBe(429);
    expect(l.hit('b')).toBeUndefined();
  });

  it('never limits a request without a key, nor when disabled', () => {
    const unkeyed = limiter({ max: 1 });
    for (let i = 0; i < 5; i++) expect(unkeyed.hit(null)).toBeUndefined();
    const off = limiter({ max: 1, enabled: false });
    for (let i = 0; i < 5; i++) expect(off.hit('a')).toBeUndefined();
  });

  it('bounds memory by dropping the oldest window first (that key starts afresh)', () => {
    const l = limiter({ max: 1, maxKeys: 2 });
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('b')).toBeUndefined();
    expect(l.hit('c')).toBeUndefined(); // evicts a
    expect(l.hit('b')?.status).toBe(429);
    expect(l.hit('a')).toBeUndefined(); // forgotten: counted afresh (evicts b)
    expect(l.hit('a')?.status).toBe(429);
  });
});

describe('rateLimit with a shared counter', () => {
  /** The counter port as a store implements it (one map standing for the shared database). */
  function sharedCounter() {
    const windows = new Map<string, number>();
    const calls: Array<[string, number, number]> = [];
    return {
      calls,
      counter: {
        async countHit(key: string, windowStart: number, windowMs: number) {
          calls.push([key, windowStart, windowMs]);
          const id = `${windowStart}:${key}`;
          windows.set(id, (windows.get(id) ?? 0) + 1);
          return windows.get(id)!;
        },
      },
    };
  }

  async function hit(mw: ReturnType<typeof rateLimit>, client = 'a'): Promise<AppError | undefined> {
    const req = { headers: { 'x-client': client } } as unknown as Request;
    return new Promise((resolve) => mw(req, {} as Response, (err?: unknown) => resolve(err as AppError | undefined)));
  }

  it('counts two limiters (two processes) in the same windows, aligned on multiples of windowMs', async () => {
    const { counter, calls } = sharedCounter();
    let t = 120_000 + 45_000;
    const options = { max: 3, windowMs: 60_000, counter, scope: 'this application', now: () => t, key: (req: Request) => `app:${String(req.headers['x-client'])}` };
    const processA = rateLimit(options);
    const processB = rateLimit(options);
    expect(await hit(processA)).toBeUndefined();
    expect(await hit(processB)).toBeUndefined();
    expect(await hit(processA)).toBeUndefined();
    const refused = await hit(processB);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 15, details: [{ limit: 'this application', max: 3 }] });
    expect(refused?.message).toMatch(/this application/);
    expect(calls[0]).toEqual(['app:a', 120_000, 60_000]);
    t = 180_000;
    expect(await hit(processB)).toBeUndefined();
  });

  it('counts in the process alone, and says so, when the counter fails; then rests before asking it again', async () => {
    const failures: unknown[] = [];
    let asked = 0;
    let t = 0;
    const mw = rateLimit({
      max: 2, key: () => 'k', now: () => t, onCounterError: (err) => failures.push(err),
      counter: { countHit: async () => { asked++; return Promise.reject(new Error('store down')); } },
    });
    expect(await hit(mw)).toBeUndefined();
    expect(await hit(mw)).toBeUndefined();
    // The limit still holds while the store is down: counted in this process, in the same aligned window.
    expect(await hit(mw)).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 60 });
    expect({ asked, failures: failures.length }).toEqual({ asked: 1, failures: 1 });
    t = 5000;
    expect(await hit(mw)).toMatchObject({ status: 429, retryAfter: 55 });
    expect({ asked, failures: failures.length }).toEqual({ asked: 2, failures: 2 });
    t = 60_000;
    expect(await hit(mw)).toBeUndefined();
    expect({ asked, failures: failures.length }).toEqual({ asked: 3, failures: 3 });
  });

  it('counts the request in the process when the counter does not answer in time', async () => {
    const failures: unknown[] = [];
    const mw = rateLimit({
      max: 1, key: () => 'k', counterTimeoutMs: 20, onCounterError: (err) => failures.push(err),
      counter: { countHit: () => new Promise<number>(() => undefined) },
    });
    expect(await hit(mw)).toBeUndefined();
    expect(String(failures[0])).toMatch(/did not answer within 20 ms/);
  });
});
