/** Where a user's current token version comes from (the accounts store). Null: no such user. */
export interface TokenVersionLookup {
  getTokenVersion(userId: string): Promise<number | null>;
}

export interface TokenVersions {
  /** The user's current token version, from the cache when it is fresh enough. */
  current(userId: string): Promise<number | null>;
  /** Drops the cached version (this process just changed it): the next check reads the store. */
  forget(userId: string): void;
}

/**
 * A short-lived cache of token versions (default 5 s, as API keys): a token revoked through another process stops
 * working there within `ttlMs`; in the process that revoked it, at once (`forget`). Bounded in size, oldest first out.
 */
export function createTokenVersions(
  lookup: TokenVersionLookup,
  { ttlMs = 5000, maxEntries = 10_000, now = Date.now }: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): TokenVersions {
  const cache = new Map<string, { version: number | null; expires: number }>();
  return {
    async current(userId) {
      const hit = cache.get(userId);
      if (hit && hit.expires > now()) return hit.version;
      const version = await lookup.getTokenVersion(userId);
      cache.delete(userId);
      if (ttlMs > 0) {
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(userId, { version, expires: now() + ttlMs });
      }
      return version;
    },
    forget(userId) {
      cache.delete(userId);
    },
  };
}
