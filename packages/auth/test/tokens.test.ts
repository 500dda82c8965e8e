import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { createTokenService, TOKEN_CLOCK_SKEW_SECONDS, verifiedClaims } from '../src/index.js';

const SECRET = 'a-secret-that-is-long-enough-for-hs256-0123';

/** The store's side: versions by user id, and how often they were read. */
function versions(initial: Record<string, number>) {
  const map = new Map(Object.entries(initial));
  let reads = 0;
  return { map, reads: () => reads, lookup: { getTokenVersion: async (id: string) => (reads++, map.get(id) ?? null) } };
}

describe('token service with token versions', () => {
  it('accepts a token of the current version only, and refuses an unknown user', async () => {
    const v = versions({ u1: 3 });
    const tokens = createTokenService({ secret: SECRET, ttlSeconds: 60, versions: v.lookup, versionCacheMs: 0 });
    expect(await tokens.verify(tokens.issue('u1', 3))).toBe('u1');
    expect(await tokens.verify(tokens.issue('u1', 2))).toBeNull();
    expect(await tokens.verify(tokens.issue('ghost', 0))).toBeNull();
    expect(await tokens.verify('not.a.token')).toBeNull();
  });

  it('trusts a looked-up version for versionCacheMs: another process\'s revocation takes effect within that bound', async () => {
    const v = versions({ u1: 0 });
    const tokens = createTokenService({ secret: SECRET, ttlSeconds: 60, versions: v.lookup, versionCacheMs: 100 });
    const token = tokens.issue('u1', 0);
    expect(await tokens.verify(token)).toBe('u1');
    v.map.set('u1', 1); // revoked elsewhere
    expect(await tokens.verify(token)).toBe('u1');
    expect(v.reads()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await tokens.verify(token)).toBeNull();
  });

  it('forgets the cached version at once when this process revoked it', async () => {
    const v = versions({ u1: 0 });
    const tokens = createTokenService({ secret: SECRET, ttlSeconds: 60, versions: v.lookup, versionCacheMs: 60_000 });
    const token = tokens.issue('u1', 0);
    expect(await tokens.verify(token)).toBe('u1');
    v.map.set('u1', 1);
    tokens.revoked('u1');
    expect(await tokens.verify(token)).toBeNull();
    expect(await tokens.verify(tokens.issue('u1', 1))).toBe('u1');
  });
});

describe('verifiedClaims: the clock checks', () => {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const sign = (payload: object, header: object = { alg: 'HS256', typ: 'JWT' }) => {
    const input = `${b64(header)}.${b64(payload)}`;
    return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
  };
  const T = 1_800_000_000;

  it(`accepts an iat up to ${TOKEN_CLOCK_SKEW_SECONDS} s ahead of the clock and refuses one second more`, () => {
    expect(TOKEN_CLOCK_SKEW_SECONDS).toBe(60);
    const at = (iat: number) => verifiedClaims(sign({ sub: 'u1', iat, exp: T + 3600 }), SECRET, T * 1000);
    expect(at(T)).toEqual({ sub: 'u1', ver: 0 });
    expect(at(T + 60)).toEqual({ sub: 'u1', ver: 0 });
    expect(at(T + 61)).toBeNull();
  });

  it('refuses at exp with no leeway, and before nbf', () => {
    const token = sign({ sub: 'u1', iat: T, exp: T + 10, nbf: T + 5 });
    expect(verifiedClaims(token, SECRET, (T + 4) * 1000)).toBeNull();
    expect(verifiedClaims(token, SECRET, (T + 5) * 1000)).toEqual({ sub: 'u1', ver: 0 });
    expect(verifiedClaims(token, SECRET, (T + 9) * 1000 + 999)).toEqual({ sub: 'u1', ver: 0 });
    expect(verifiedClaims(token, SECRET, (T + 10) * 1000)).toBeNull();
  });

  it('refuses a token without exp, and one whose header has members other than alg and typ', () => {
    expect(verifiedClaims(sign({ sub: 'u1', iat: T }), SECRET, T * 1000)).toBeNull();
    expect(verifiedClaims(sign({ sub: 'u1', iat: T, exp: T + 9 }, { alg: 'HS256' }), SECRET, T * 1000)).toEqual({ sub: 'u1', ver: 0 });
    expect(verifiedClaims(sign({ sub: 'u1', iat: T, exp: T + 9 }, { alg: 'HS256', kid: 'k1' }), SECRET, T * 1000)).toBeNull();
  });

  it('issues tokens whose iat and exp follow the service\'s clock', async () => {
    const tokens = createTokenService({ secret: SECRET, ttlSeconds: 60, versions: versions({ u1: 0 }).lookup, versionCacheMs: 0, now: () => T * 1000 });
    const [, payload] = tokens.issue('u1', 0).split('.');
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({ sub: 'u1', iat: T, exp: T + 60 });
    expect(await tokens.verify(tokens.issue('u1', 0))).toBe('u1');
  });
});
