import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, HARNESS_SECRET, jwt, PASSWORD } from './accounts-helpers.js';
import { bearer, createTenancy, fastHash, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';

/** Every JWT endpoint of the accounts service, with a body that would be valid. */
function jwtEndpoints(t: Tenancy): Array<[string, string, object?]> {
  return [
    ['GET', '/auth/me'],
    ['POST', '/organizations', { name: 'org' }],
    ['GET', '/organizations'],
    ['POST', `/organizations/${t.organizationId}/members`, { email: t.email }],
    ['POST', '/projects', { name: 'p', organizationId: t.organizationId }],
    ['GET', `/projects?organizationId=${t.organizationId}`],
    ['POST', '/applications', { name: 'a', projectId: t.projectId }],
    ['GET', `/applications?projectId=${t.projectId}`],
    ['POST', `/applications/${t.applicationId}/api-keys`, { name: 'k' }],
    ['GET', `/applications/${t.applicationId}/api-keys`],
    ['DELETE', `/api-keys/${t.apiKeyId}`],
  ];
}

describe('accounts: credentials on the JWT endpoints', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'cred');
  });
  afterAll(() => l.stop());

  const now = () => Math.floor(Date.now() / 1000);
  const otherSecret = 'another-secret-that-is-long-enough-9876543210';
  /** Bad Authorization headers, each of which must be refused with 401 on every JWT endpoint. */
  const badHeaders: Array<[string, (t: Tenancy) => Record<string, string>]> = [
    ['no credential', () => ({})],
    ['"Bearer" without a token', () => ({ Authorization: 'Bearer' })],
    ['another scheme', (x) => ({ Authorization: `Basic ${Buffer.from(`${x.email}:${PASSWORD}`).toString('base64')}` })],
    ['a token without the scheme', (x) => ({ Authorization: x.token })],
    ['two tokens', (x) => ({ Authorization: `Bearer ${x.token} ${x.token}` })],
    ['a garbage token', () => ({ Authorization: 'Bearer not.a.jwt' })],
    ['a token signed with another secret', (x) => bearer(jwt.sign({}, otherSecret, { algorithm: 'HS256', subject: x.userId, expiresIn: 600 }))],
    ['an expired token', (x) => bearer(jwt.sign({ sub: x.userId, iat: now() - 7200, exp: now() - 60 }, HARNESS_SECRET, { algorithm: 'HS256' }))],
    ['an alg "none" token', (x) => bearer(jwt.sign({ sub: x.userId, exp: now() + 600 }, null as unknown as string, { algorithm: 'none' }))],
    ['an HS384 token with the right secret', (x) => bearer(jwt.sign({}, HARNESS_SECRET, { algorithm: 'HS384', subject: x.userId, expiresIn: 600 }))],
    ['a token whose signature was altered', (x) => bearer(`${x.token.slice(0, -4)}${x.token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`)],
    ['a token with another user id in a re-encoded payload', (x) => {
      const [h, , s] = x.token.split('.');
      const payload = Buffer.from(JSON.stringify({ sub: 'someone-else', exp: now() + 600 })).toString('base64url');
      return bearer(`${h}.${payload}.${s}`);
    }],
    ['the API key in x-api-key', (x) => ({ 'x-api-key': x.apiKey })],
    ['the API key as a bearer token', (x) => bearer(x.apiKey)],
  ];

  it.each(badHeaders)('answers 401 unauthorized for %s on every JWT endpoint', async (_label, headers) => {
    for (const [method, path, body] of jwtEndpoints(t)) {
      let req = method === 'GET' ? l.http.get(path) : method === 'DELETE' ? l.http.delete(path) : l.http.post(path);
      req = req.set(headers(t));
      const res = await (body ? req.send(body) : req);
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 401`);
      expectError(res, 401, 'unauthorized');
    }
    // Nothing was revoked by the refused DELETE: the key still ingests.
    await l.http.post('/ingest/traces').set('x-api-key', t.apiKey).send(traceBatch([span()])).expect(200);
  });

  it('tells a caller who sent an API key that it is for the ingest endpoints', async () => {
    const res = await l.http.get('/auth/me').set('x-api-key', t.apiKey);
    expectError(res, 401, 'unauthorized');
    expect(res.body.error.message).toMatch(/ingest/i);
  });

  it('accepts a token it did not issue itself when it is HS256 with the right secret and a real user', async () => {
    const token = jwt.sign({}, HARNESS_SECRET, { algorithm: 'HS256', subject: t.userId, expiresIn: 60 });
    const res = await l.http.get('/auth/me').set(bearer(token)).expect(200);
    expect(res.body.user.id).toBe(t.userId);
  });

  it('accepts the authentication scheme in any case ("bearer", RFC 7235 section 2.1)', async () => {
    const res = await l.http.get('/auth/me').set('Authorization', `bearer ${t.token}`);
    expect(res.status).toBe(200);
  });

  it('refuses an Authorization header over 4,096 characters with 401 before any pattern reads it', async () => {
    // "Bearer", 4,096 spaces, then the valid token: the pattern allows any run of spaces there, only the length refuses it.
    const padded = `Bearer${' '.repeat(4096)}${t.token}`;
    expectError(await l.http.get('/auth/me').set('Authorization', padded), 401, 'unauthorized');
    expect((await l.http.get('/auth/me').set('Authorization', `Bearer${' '.repeat(100)}${t.token}`)).status).toBe(200);
  });

  it('refuses a JWT on the ingest endpoints with 401', async () => {
    expectError(await l.http.post('/ingest/traces').set(bearer(t.token)).send(traceBatch([span()])), 401, 'unauthorized');
  });
});

describe('accounts: rate limit on register and login', () => {
  let l: Lantern;
  const email = 'limited@example.com';
  beforeAll(async () => {
    // The limit counts in windows aligned on the minute (shared across processes): start well inside one.
    await inOneWindow(8_000);
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 3 } });
    await l.store.createUser({ email, name: 'limited', passwordHash: await fastHash.hash(PASSWORD) });
  }, IN_ONE_WINDOW_TIMEOUT);
  afterAll(() => l.stop());

  it('answers the 4th attempt of a minute with 429 rate_limited and Retry-After, even with the right password', async () => {
    for (let i = 0; i < 3; i++) await l.http.post('/auth/login').send({ email, password: PASSWORD }).expect(200);
    const res = await l.http.post('/auth/login').send({ email, password: PASSWORD });
    expectError(res, 429, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('keeps limiting register from the same address, and X-Forwarded-For does not reset it (no trusted proxy)', async () => {
    const reg = await l.http.post('/auth/register').send({ email: 'new@example.com', password: PASSWORD });
    expectError(reg, 429, 'rate_limited');
    expect(reg.headers['retry-after']).toMatch(/^\d+$/);
    const spoofed = await l.http.post('/auth/login').set('X-Forwarded-For', '203.0.113.9').send({ email, password: PASSWORD });
    expectError(spoofed, 429, 'rate_limited');
  });

  it('does not limit the other JWT endpoints by the auth limit', async () => {
    const token = jwt.sign({}, HARNESS_SECRET, { algorithm: 'HS256', subject: (await l.store.findUserByEmail(email))!.id, expiresIn: 60 });
    for (let i = 0; i < 5; i++) await l.http.get('/auth/me').set(bearer(token)).expect(200);
  });
});
