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
