import { createHmac, createSign, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TOKEN_CLOCK_SKEW_SECONDS } from '@lantern/auth';
import { expectError, HARNESS_SECRET } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Forged and malformed JWTs against the accounts and query services over HTTP (the real embedded store): every one is
 * 401 with the same body as any other bad token, so the answer does not say which check failed.
 */
const b64 = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PUBLIC_PEM = publicKey.export({ type: 'spki', format: 'pem' }).toString();

/** A JWT built by hand, so that any header and any algorithm can be sent. */
function token(header: Record<string, unknown>, payload: Record<string, unknown>, sign: (input: string) => string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign(input)}`;
}
const hs256 = (key: string | Buffer) => (input: string) => createHmac('sha256', key).update(input).digest('base64url');
const rs256 = (input: string) => createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url');
const HS = { alg: 'HS256', typ: 'JWT' };

describe('credentials: forged and malformed JWTs', () => {
  let l: Lantern;
  let t: Tenancy;
  let good: () => Record<string, unknown>;
  let refusal: string;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'jwt');
    good = () => ({ sub: t.userId, ver: 0, iat: now(), exp: now() + 600 });
    refusal = (await l.http.get('/auth/me').set(bearer('a.b.c'))).body.error.message;
  });
  afterAll(() => l.stop());

  /** Two services (accounts, query): 401 unauthorized with the one refusal message. */
  async function expectRefused(jwt: string): Promise<void> {
    for (const path of ['/auth/me', `/logs/project?id=${t.projectId}`]) {
      const res = await l.http.get(path).set(bearer(jwt));
      expectError(res, 401, 'unauthorized');
      expect(res.body.error.message).toBe(refusal);
    }
  }

  it('accepts a well-formed HS256 token with the right secret (the control) on both services', async () => {
    const jwt = token(HS, good(), hs256(HARNESS_SECRET));
    expect((await l.http.get('/auth/me').set(bearer(jwt)).expect(200)).body.user.id).toBe(t.userId);
    await l.http.get(`/logs/project?id=${t.projectId}`).set(bearer(jwt)).expect(200);
    expect(refusal).toBe('The token is invalid, expired or revoked: log in again.');
  });

  const forged: Array<[string, () => string]> = [
    ['alg "none", unsigned', () => token({ alg: 'none', typ: 'JWT' }, good(), () => '')],
    ['alg "none" with the HS256 signature of the same input', () => {
      const input = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(good())}`;
      return `${input}.${hs256(HARNESS_SECRET)(input)}`;
    }],
    ['alg "NONE" in another case', () => token({ alg: 'NONE' }, good(), () => '')],
    ['HS256 signed with another secret', () => token(HS, good(), hs256('another-secret-that-is-long-enough-9876543210'))],
    ['RS256 signed with an RSA private key', () => token({ alg: 'RS256', typ: 'JWT' }, good(), rs256)],
    ['HS256 keyed with the RSA public key PEM (RS/HS swap)', () => token(HS, good(), hs256(PUBLIC_PEM))],
    ['RS256 header over an HMAC of the right secret (HS/RS swap)', () => token({ alg: 'RS256', typ: 'JWT' }, good(), hs256(HARNESS_SECRET))],
    ['HS512 with the right secret', () => token({ alg: 'HS512', typ: 'JWT' }, good(), (i) => createHmac('sha512', HARNESS_SECRET).update(i).digest('base64url'))],
    ['an expired exp', () => token(HS, { ...good(), iat: now() - 7200, exp: now() - 1 }, hs256(HARNESS_SECRET))],
    ['no exp at all', () => token(HS, { sub: t.userId, ver: 0, iat: now() }, hs256(HARNESS_SECRET))],
    ['an exp that is not a number', () => token(HS, { ...good(), exp: String(now() + 600) }, hs256(HARNESS_SECRET))],
    [`an iat ${TOKEN_CLOCK_SKEW_SECONDS + 60} s in the future`, () => token(HS, { ...good(), iat: now() + TOKEN_CLOCK_SKEW_SECONDS + 60 }, hs256(HARNESS_SECRET))],
    ['an iat a year in the future', () => token(HS, { ...good(), iat: now() + 365 * 86400, exp: now() + 366 * 86400 }, hs256(HARNESS_SECRET))],
    ['an nbf in the future', () => token(HS, { ...good(), nbf: now() + 300 }, hs256(HARNESS_SECRET))],
    ['a payload changed after signing (another sub)', () => {
      const [h, , s] = token(HS, good(), hs256(HARNESS_SECRET)).split('.');
      return `${h}.${b64({ ...good(), sub: 'someone-else' })}.${s}`;
    }],
    ['a payload changed after signing (a longer exp)', () => {
      const [h, , s] = token(HS, good(), hs256(HARNESS_SECRET)).split('.');
      return `${h}.${b64({ ...good(), exp: now() + 10 * 365 * 86400 })}.${s}`;
    }],
    ['a typ other than JWT', () => token({ alg: 'HS256', typ: 'at+jwt' }, good(), hs256(HARNESS_SECRET))],
    ['a kid header, right secret', () => token({ ...HS, kid: '../../dev/null' }, good(), hs256(HARNESS_SECRET))],
    ['a kid header, signed with the empty key it points at', () => token({ ...HS, kid: '/dev/null' }, good(), hs256(''))],
    ['a jku header pointing at a key set of the attacker', () => token({ alg: 'RS256', typ: 'JWT', jku: 'https://attacker.example/jwks.json' }, good(), rs256)],
    ['a jwk header embedding the attacker\'s public key', () => token({ alg: 'RS256', typ: 'JWT', jwk: publicKey.export({ format: 'jwk' }) }, good(), rs256)],
    ['a jwk header with an HMAC key (oct)', () => token({ ...HS, jwk: { kty: 'oct', k: b64('attacker-key') } }, good(), hs256('attacker-key'))],
    ['a crit header', () => token({ ...HS, crit: ['exp'] }, good(), hs256(HARNESS_SECRET))],
    ['a header that is not JSON', () => `${b64('not json')}.${b64(good())}.${hs256(HARNESS_SECRET)(`${b64('not json')}.${b64(good())}`)}`],
    ['a missing sub', () => token(HS, { ver: 0, iat: now(), exp: now() + 600 }, hs256(HARNESS_SECRET))],
    ['a ver that is not the user\'s', () => token(HS, { ...good(), ver: 1 }, hs256(HARNESS_SECRET))],
    ['an empty signature', () => `${b64(HS)}.${b64(good())}.`],
  ];

  it.each(forged)('answers 401 for %s', async (_label, make) => {
    await expectRefused(make());
  });

  it(`accepts an iat up to ${TOKEN_CLOCK_SKEW_SECONDS} s ahead (clock skew between processes), and an nbf in the past`, async () => {
    const jwt = token(HS, { ...good(), iat: now() + TOKEN_CLOCK_SKEW_SECONDS - 10, nbf: now() - 10 }, hs256(HARNESS_SECRET));
    await l.http.get('/auth/me').set(bearer(jwt)).expect(200);
  });
});
