import type { Origin } from '@lantern/domain';
import { hashApiKey, looksLikeApiKey } from './api-keys.js';

export interface ApiKeyLookup {
  /** The key with this hash, or null; `revokedAt` set when revoked. */
  findApiKeyByHash(hash: string): Promise<{ id: string; applicationId: number; projectId: number; revokedAt: string | null } | null>;
  /** The organization of a project, or null. */
  findProjectOrganization(projectId: number): Promise<number | null>;
}

/** A valid key's application, project and organization, and the key's own id (for the rate limits of each). */
export interface ResolvedKey extends Origin {
  keyId: string;
  organizationId: number;
}

export interface ApiKeyResolver {
  /** The application, project and organization of a valid, unrevoked key, or null. */
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
      // The organization is resolved once with the key and cached with it: the per-organization limit costs no lookup per request.
      const organizationId = row && !row.revokedAt ? await lookup.findProjectOrganization(row.projectId) : null;
      const origin = row && organizationId !== null ? { keyId: row.id, applicationId: row.applicationId, projectId: row.projectId, organizationId } : null;
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
      cache.delete(hash);
      cache.set(hash, { origin, expires: now() + ttlMs });
      return origin;
    },
  };
}
