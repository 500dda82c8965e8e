import type { Origin } from '@lantern/domain';
import { hashApiKey, looksLikeApiKey } from './api-keys.js';

export interface ApiKeyLookup {
  /** The key with this hash, or null; `revokedAt` set when revoked. */
  findApiKeyByHash(hash: string): Promise<{ id: string; applicationId: number; projectId: number; revokedAt: string | null } | null>;
}

/** A valid key's application and project, and the key's own id (for per-key rate limits). */
export interface ResolvedKey extends Origin {
  keyId: string;
}

export interface ApiKeyResolver {
  /** The application and project of a valid, unrevoked key, or null. */
  resolve(key: string): Promise<ResolvedKey | null>;
}

/**
 * Resolves API keys through a short-lived cache (default 5 s, so a revoked key stops working within 5 s),
 * bounded in size; unknown keys are cached too so a flood of bad keys does not reach the store.
 */
export function createApiKeyResolver(
  lookup: ApiKeyLookup,
  { ttlMs = 5000, maxEntries = 10_000, now = Date.now }: { ttlMs?: number; maxEntries?: number; now?: () => number } = {},
): ApiKeyResolver {
  const cache = new Map<string, { origin: ResolvedKey | null; expires: number }>();
  return {
    async resolve(key) {
      if (!looksLikeApiKey(key)) return null;
      const hash = hashApiKey(key);
      const hit = cache.get(hash);
      if (hit && hit.expires > now()) return hit.origin;
      const row = await lookup.findApiKeyByHash(hash);
      const origin = row && !row.revokedAt ? { keyId: row.id, applicationId: row.applicationId, projectId: row.projectId } : null;
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.delete(hash);
      cache.set(hash, { origin, expires: now() + ttlMs });
      return origin;
    },
  };
}
