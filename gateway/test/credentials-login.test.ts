import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPasswordHasher, OWASP_SCRYPT, type PasswordHasher } from '@lantern/auth';
import { createEmbedded } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { expectError, HARNESS_SECRET, PASSWORD } from './accounts-helpers.js';
import { startLantern, type Lantern } from './harness.js';
import { IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';

/** A real hasher (cheap parameters) that records the parameters of every stored hash it is asked to verify against. */
function recordingHasher(): PasswordHasher & { verified: string[] } {
  const inner = createPasswordHasher({ N: 1024, r: 8, p: 1 });
  const verified: string[] = [];
  return {
    ...inner,
    verified,
    async verify(password, stored) {
      verified.push(stored.split('$').slice(0, 4).join('$'));
      return inner.verify(password, stored);
    },
  };
}

describe('credentials: an unknown email costs what a wrong password costs', () => {
  let l: Lantern;
  const hasher = recordingHasher();
  const email = 'known@example.com';
  beforeAll(async () => {
    l = await startLantern({ passwordHasher: hasher });
    await l.http.post('/auth/register').send({ email, password: PASSWORD }).expect(201);
  });
  afterAll(() => l.stop());

  it('runs one scrypt verification with the same parameters for an unknown email as for a wrong password, and answers the same 401', async () => {
    hasher.verified.length = 0;
    const unknown = await l.http.post('/auth/login').send({ email: 'nobody@example.com', password: 'wrong password' });
    const afterUnknown = [...hasher.verified];
    hasher.verified.length = 0;
    const wrong = await l.http.post('/auth/login').send({ email, password: 'wrong password' });
    const afterWrong = [...hasher.verified];
    expect(afterUnknown).toEqual(['scrypt$1024$8$1']);
    expect(afterWrong).toEqual(afterUnknown);
    expectError(unknown, 401, 'unauthorized');
    expect({ status: wrong.status, body: wrong.body }).toEqual({ status: unknown.status, body: unknown.body });
    expect(Object.keys(wrong.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
  });

  it('verifies against the decoy for every unknown email, not a cheaper path after the first', async () => {
    hasher.verified.length = 0;
    for (const who of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expectError(await l.http.post('/auth/login').send({ email: who, password: PASSWORD }), 401, 'unauthorized');
    }
    expect(hasher.verified).toEqual(['scrypt$1024$8$1', 'scrypt$1024$8$1', 'scrypt$1024$8$1']);
  });
});

describe('credentials: the login throttle does not tell known emails from unknown ones', () => {
  let l: Lantern;
  beforeAll(async () => {
    await inOneWindow(8_000);
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 2 } });
    await l.store.createUser({ email: 'known@example.com', name: 'known', passwordHash: await createPasswordHasher({ N: 1024, r: 8, p: 1 }).hash(PASSWORD) });
  }, IN_ONE_WINDOW_TIMEOUT);
  afterAll(() => l.stop());

  it('counts attempts per address whatever the email, and refuses the third with the same 429 for both', async () => {
    const login = (e: string) => l.http.post('/auth/login').send({ email: e, password: 'wrong password' });
    const first = await login('nobody@example.com');
    const second = await login('known@example.com');
    expectError(first, 401, 'unauthorized');
    expect(second.body).toEqual(first.body);
    const [afterUnknown, afterKnown] = [await login('nobody@example.com'), await login('known@example.com')];
    expectError(afterUnknown, 429, 'rate_limited');
    expect({ status: afterKnown.status, body: afterKnown.body }).toEqual({ status: afterUnknown.status, body: afterUnknown.body });
  });
});

describe('credentials: the product\'s password cost', () => {
  it('stores OWASP\'s scrypt parameters (N=2^17, r=8, p=1, 16-byte salt, 32-byte key) when no hasher is given', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lantern-test-'));
    const embedded = await createEmbedded({
      dataDir, jwtSecret: HARNESS_SECRET, jwtTtlSeconds: 3600, storeFile: ':memory:', trustProxy: 0, apiKeyCacheMs: 0,
      rateLimit: { enabled: false, ingestPerMinute: 1000, authPerMinute: 1000 },
      logger: createLogger({ service: 'test', silent: true }),
    });
    try {
      await request(embedded.app).post('/auth/register').send({ email: 'cost@example.com', password: PASSWORD }).expect(201);
      const [scheme, N, r, p, salt, key] = (await embedded.store.findUserByEmail('cost@example.com'))!.passwordHash.split('$');
      expect({ scheme, N: Number(N), r: Number(r), p: Number(p) }).toEqual({ scheme: 'scrypt', ...OWASP_SCRYPT });
      expect(OWASP_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 });
      expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
      expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    } finally {
      await embedded.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
