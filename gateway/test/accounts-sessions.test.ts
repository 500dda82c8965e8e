import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPasswordHasher } from '@lantern/auth';
import { HARNESS_SECRET, PASSWORD, expectError, jwt, register } from './accounts-helpers.js';
import { bearer, createTenancy, fastHash, startLantern, type Lantern } from './harness.js';
import { IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';

describe('accounts: sign-out and password change revoke earlier tokens', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  const login = (email: string, password = PASSWORD) => l.http.post('/auth/login').send({ email, password });
  /** A request to each service that checks tokens: accounts, query and ai. */
  const everyService = (token: string, t: { organizationId: number; projectId: number }) => [
    l.http.get('/auth/me').set(bearer(token)),
    l.http.get(`/logs/project?id=${t.projectId}`).set(bearer(token)),
    l.http.get(`/ai/tenant?organizationId=${t.organizationId}`).set(bearer(token)),
  ];
  const expectAll = async (token: string, t: { organizationId: number; projectId: number }, status: number) => {
    for (const req of everyService(token, t)) {
      const res = await req;
      if (status === 401) expectError(res, 401, 'unauthorized');
      else expect(res.status).toBe(status);
    }
  };

  it('POST /auth/logout (204) revokes every token of the user, on every service; a new login works', async () => {
    const t = await createTenancy(l, 'logout');
    const second = (await login(t.email).expect(200)).body.token as string;
    await expectAll(t.token, t, 200);
    await expectAll(second, t, 200);
    await l.http.post('/auth/logout').set(bearer(second)).expect(204);
    await expectAll(t.token, t, 401);
    await expectAll(second, t, 401);
    expectError(await l.http.post('/auth/logout').set(bearer(second)), 401, 'unauthorized');
    const fresh = (await login(t.email).expect(200)).body.token as string;
    await expectAll(fresh, t, 200);
  });

  it('leaves other users signed in', async () => {
    const a = await createTenancy(l, 'logout-a');
    const b = await createTenancy(l, 'logout-b');
    await l.http.post('/auth/logout').set(bearer(a.token)).expect(204);
    await expectAll(b.token, b, 200);
  });

  it('POST /auth/password answers a new token; earlier tokens and the old password stop working', async () => {
    const t = await createTenancy(l, 'passwd');
    const other = (await login(t.email).expect(200)).body.token as string;
    const res = await l.http.post('/auth/password').set(bearer(t.token)).send({ currentPassword: PASSWORD, newPassword: 'a brand new password' }).expect(200);
    expect(res.body).toEqual({ token: expect.any(String), user: { id: t.userId, email: t.email, name: 'passwd' } });
    await expectAll(t.token, t, 401);
    await expectAll(other, t, 401);
    await expectAll(res.body.token, t, 200);
    expectError(await login(t.email), 401, 'unauthorized');
    await login(t.email, 'a brand new password').expect(200);
  });

  it('refuses a wrong current password (403) and a short new one (400), changing nothing', async () => {
    const u = await register(l, 'passwd-bad');
    expectError(await l.http.post('/auth/password').set(bearer(u.token)).send({ currentPassword: 'not it at all', newPassword: 'whatever it is' }), 403, 'forbidden');
    expectError(await l.http.post('/auth/password').set(bearer(u.token)).send({ currentPassword: PASSWORD, newPassword: 'short' }), 400, 'validation_failed');
    expectError(await l.http.post('/auth/password').set(bearer(u.token)).send({ newPassword: 'long enough here' }), 400, 'validation_failed');
    expectError(await l.http.post('/auth/password').send({ currentPassword: PASSWORD, newPassword: 'long enough here' }), 401, 'unauthorized');
    await l.http.get('/auth/me').set(bearer(u.token)).expect(200);
    await login(u.email).expect(200);
  });

  it('puts the token version in the token (ver); a well-signed token with another version is 401; one without ver is version 0', async () => {
    const u = await register(l, 'ver');
    expect(jwt.decode(u.token)).toMatchObject({ sub: u.user.id, ver: 0 });
    const sign = (claims: object) => jwt.sign(claims, HARNESS_SECRET, { algorithm: 'HS256', subject: u.user.id, expiresIn: 600 });
    expectError(await l.http.get('/auth/me').set(bearer(sign({ ver: 1 }))), 401, 'unauthorized');
    expectError(await l.http.get('/auth/me').set(bearer(sign({ ver: 'x' }))), 401, 'unauthorized');
    const legacy = sign({});
    await l.http.get('/auth/me').set(bearer(legacy)).expect(200);
    await l.http.post('/auth/logout').set(bearer(u.token)).expect(204);
    expectError(await l.http.get('/auth/me').set(bearer(legacy)), 401, 'unauthorized');
    const fresh = (await login(u.email).expect(200)).body.token as string;
    expect(jwt.decode(fresh)).toMatchObject({ sub: u.user.id, ver: 1 });
  });
});

describe('accounts: a password hash with weaker parameters is replaced at the next login', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  const paramsOf = (hash: string) => hash.split('$').slice(0, 4).join('$');

  it('rehashes a stored N=2^9 hash with the current parameters (the tests\' N=2^10), and the password still works', async () => {
    const email = `old-${Date.now()}@example.com`;
    const weak = await createPasswordHasher({ N: 512, r: 8, p: 1 }).hash(PASSWORD);
    await l.store.createUser({ email, name: 'old', passwordHash: weak });
    await l.http.post('/auth/login').send({ email, password: PASSWORD }).expect(200);
    const stored = (await l.store.findUserByEmail(email))!;
    expect(paramsOf(stored.passwordHash)).toBe('scrypt$1024$8$1');
    expect(fastHash.needsRehash(stored.passwordHash)).toBe(false);
    expect(stored.tokenVersion).toBe(0);
    await l.http.post('/auth/login').send({ email, password: PASSWORD }).expect(200);
    // Current parameters: left as they are.
    expect((await l.store.findUserByEmail(email))!.passwordHash).toBe(stored.passwordHash);
  });

  it('does not rehash on a failed login', async () => {
    const email = `old-fail-${Date.now()}@example.com`;
    const weak = await createPasswordHasher({ N: 512, r: 8, p: 1 }).hash(PASSWORD);
    await l.store.createUser({ email, name: 'old', passwordHash: weak });
    await l.http.post('/auth/login').send({ email, password: 'not the password' }).expect(401);
    expect((await l.store.findUserByEmail(email))!.passwordHash).toBe(weak);
  });
});

describe('accounts: password changes are rate limited per user', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 3 } });
  });
  afterAll(() => l.stop());

  it('answers 429 rate_limited past the limit, so a stolen token cannot guess the current password at will', async () => {
    await inOneWindow(8_000); // the limit's windows are aligned on the minute
    const t = await createTenancy(l, 'pw-limit');
    const other = await createTenancy(l, 'pw-other');
    const attempt = (token: string) => l.http.post('/auth/password').set(bearer(token)).send({ currentPassword: 'a guess at it', newPassword: 'whatever it is' });
    for (let i = 0; i < 3; i++) expectError(await attempt(t.token), 403, 'forbidden');
    const refused = await attempt(t.token);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectError(await attempt(other.token), 403, 'forbidden');
  }, IN_ONE_WINDOW_TIMEOUT);
});
