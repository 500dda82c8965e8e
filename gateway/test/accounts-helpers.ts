import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { expect } from '@jest/globals';
import type { Response } from 'supertest';
import { bearer, type HttpTarget } from './harness.js';

/**
 * jsonwebtoken is a dependency of @lantern/auth only (the gateway does not depend on it), so it is loaded
 * from that package's node_modules: the tests forge and decode tokens with the same library the product uses.
 */
type Jwt = typeof import('../../packages/auth/node_modules/@types/jsonwebtoken/index.js');
export const jwt = createRequire(import.meta.url)('../../packages/auth/node_modules/jsonwebtoken') as Jwt;

/** The secret startLantern() configures. */
export const HARNESS_SECRET = 'test-secret-that-is-long-enough-0123456789';
export const PASSWORD = 'correct horse battery';

/** Asserts the contract's error: the status, the code, and a body of only `error.{code, message, details?}`. */
export function expectError(res: Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  expect(Object.keys(res.body.error).filter((k) => !['code', 'message', 'details'].includes(k))).toEqual([]);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if ('details' in res.body.error) expect(Array.isArray(res.body.error.details)).toBe(true);
  expect(res.text).not.toMatch(/stack|\n\s+at |\.ts:\d+|node_modules/i);
}

/** POSTs a body sent verbatim (malformed JSON, prototype keys a JS object could not carry). */
export function postRaw(l: HttpTarget, path: string, raw: string, token?: string, contentType = 'application/json') {
  const req = l.http.post(path).set('Content-Type', contentType);
  if (token) req.set(bearer(token));
  return req.send(raw);
}

export interface Registered {
  token: string;
  user: { id: string; email: string; name: string };
  email: string;
}

/** Registers a fresh user through the API. */
export async function register(l: HttpTarget, label = randomUUID().slice(0, 8)): Promise<Registered> {
  const email = `${label}-${randomUUID().slice(0, 6)}@example.com`;
  const res = await l.http.post('/auth/register').send({ email, password: PASSWORD, name: label }).expect(201);
  return { token: res.body.token, user: res.body.user, email };
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Makes `invitee` a member the only way there is: an owner invites their email, and they accept. Returns the
 * membership the accept answered.
 */
export async function addMember(l: HttpTarget, ownerToken: string, organizationId: number, invitee: { token: string; email: string }, role = 'member') {
  await l.http.post(`/organizations/${organizationId}/members`).set(bearer(ownerToken)).send({ email: invitee.email, role }).expect(201);
  const pending = await l.http.get('/invitations').set(bearer(invitee.token)).expect(200);
  const invitation = (pending.body as Array<{ id: string; organization: { id: number } }>).find((i) => i.organization.id === organizationId);
  expect(invitation).toBeDefined();
  return (await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(invitee.token)).expect(200)).body as { id: number; name: string; role: string };
}
