import jwt from 'jsonwebtoken';
import { createTokenVersions, type TokenVersionLookup } from './token-versions.js';

export interface TokenService {
  /** An HS256 JWT whose `sub` is the user id and `ver` the user's current token version. */
  issue(userId: string, version: number): string;
  /**
   * The user id of a valid token, or null: bad signature, expired, another algorithm, malformed, a user that no
   * longer exists, or a `ver` that is not the user's current token version (signed out, password changed).
   */
  verify(token: string): Promise<string | null>;
  /** Call after changing a user's token version in this process: its earlier tokens stop working at once here. */
  revoked(userId: string): void;
}

export interface TokenServiceOptions {
  secret: string;
  ttlSeconds: number;
  /** The users' current token versions (the accounts store). */
  versions: TokenVersionLookup;
  /** How long a looked-up version is trusted: the bound on revocation across processes (default 5000). */
  versionCacheMs?: number;
}

export function createTokenService({ secret, ttlSeconds, versions, versionCacheMs = 5000 }: TokenServiceOptions): TokenService {
  if (secret.length < 32) throw new Error('The JWT secret must be at least 32 characters.');
  const current = createTokenVersions(versions, { ttlMs: versionCacheMs });
  const claims = (token: string): { sub: string; ver: number } | null => {
    try {
      const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
      if (typeof payload !== 'object' || typeof payload.sub !== 'string' || payload.sub.length === 0) return null;
      // A token issued before versions existed has no `ver`: it is version 0, every user's first.
      const ver: unknown = payload['ver'] ?? 0;
      return Number.isSafeInteger(ver) && (ver as number) >= 0 ? { sub: payload.sub, ver: ver as number } : null;
    } catch {
      return null;
    }
  };
  return {
    issue(userId, version) {
      return jwt.sign({ ver: version }, secret, { algorithm: 'HS256', subject: userId, expiresIn: ttlSeconds });
    },
    async verify(token) {
      const c = claims(token);
      if (!c) return null;
      return (await current.current(c.sub)) === c.ver ? c.sub : null;
    },
    revoked(userId) {
      current.forget(userId);
    },
  };
}
