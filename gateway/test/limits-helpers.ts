import { expect } from '@jest/globals';
import { buildOpenApi } from '@lantern/domain';
import type { Response } from 'supertest';
import { expectError } from './accounts-helpers.js';

/**
 * The timeout of a test that calls `inOneWindow` itself: it may wait up to `needMs` (20 s by default, the whole of
 * the default test timeout) before its own work starts.
 */
export const IN_ONE_WINDOW_TIMEOUT = 60_000;

/**
 * The shared rate-limit windows are whole minutes of the clock. A test that fills one waits, if need be, until
 * the current minute has at least `needMs` left, so its requests all fall in one window.
 */
export async function inOneWindow(needMs = 20_000, windowMs = 60_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** A 429 `rate_limited` naming the limit, with a Retry-After of 1-60 s. */
export function expectRateLimited(res: Response, scope: string): void {
  expectError(res, 429, 'rate_limited');
  expect(res.body.error.details).toEqual([{ limit: scope, max: expect.any(Number) }]);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
}

type Operation = { responses: Record<string, { description: string; headers?: Record<string, unknown> }> };

/** The OpenAPI document declares the refusal on the operation: its status, its code, and Retry-After when it is set. */
export function expectDocumentedRefusal(method: string, path: string, res: Response): void {
  const doc = buildOpenApi() as unknown as { paths: Record<string, Record<string, Operation>> };
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[String(res.status)];
  expect({ where: `${method} ${path} ${res.status}`, description: response?.description }).toEqual({
    where: `${method} ${path} ${res.status}`, description: expect.stringContaining(res.body.error.code),
  });
  if (res.headers['retry-after'] !== undefined) expect(Object.keys(response?.headers ?? {})).toContain('Retry-After');
}
