import { describe, expect, it } from '@jest/globals';
import { createTokenService } from '../src/index.js';

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
