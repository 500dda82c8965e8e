import jwt from 'jsonwebtoken';
import { createTokenVersions, type TokenVersionLookup } from './token-versions.js';

/**
 * How far a token's `iat` may be ahead of this process's clock: processes (and hosts) disagree by a few seconds,
 * never by a minute. A token issued further in the future is refused: it was not issued by a Lantern process.
 * `exp` and `nbf` are checked with no leeway.
 */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

/** The only header Lantern issues: `{"alg":"HS256","typ":"JWT"}`. Any other member (`kid`, `jku`, `jwk`, `x5u`, `crit`...) is refused. */
const HEADER_KEYS = new Set(['alg', 'typ']);

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
  /** The clock, in ms (tests). */
  now?: () => number;
}

/**
 * The claims of a token that passes every check, or null. The algorithm is pinned to HS256 (so `none`, RS256 and an
 * HS256 token keyed with some public key are refused), the header must be exactly Lantern's, `exp` is required and
 * past it the token is refused, `nbf` must have passed, `iat` must not be more than TOKEN_CLOCK_SKEW_SECONDS ahead.
 */
export function verifiedClaims(token: string, secret: string, nowMs: number): { sub: string; ver: number } | null {
  try {
    const clockTimestamp = Math.floor(nowMs / 1000);
    const { header, payload } = jwt.verify(token, secret, { algorithms: ['HS256'], complete: true, clockTimestamp });
    if (header.alg !== 'HS256' || (header.typ !== undefined && header.typ !== 'JWT')) return null;
    if (Object.keys(header).some((key) => !HEADER_KEYS.has(key))) return null;
    if (typeof payload !== 'object' || typeof payload.sub !== 'string' || payload.sub.length === 0) return null;
    if (typeof payload.exp !== 'number') return null;
    if (payload.iat !== undefined && !(typeof payload.iat === 'number' && payload.iat <= clockTimestamp + TOKEN_CLOCK_SKEW_SECONDS)) return null;
    // A token issued before versions existed has no `ver`: it is version 0, every user's first.
    const ver: unknown = payload['ver'] ?? 0;
    return Number.isSafeInteger(ver) && (ver as number) >= 0 ? { sub: payload.sub, ver: ver as number } : null;
  } catch {
    return null;
  }
}

export function createTokenService({ secret, ttlSeconds, versions, versionCacheMs = 5000, now = Date.now }: TokenServiceOptions): TokenService {
  if (secret.length < 32) throw new Error('The JWT secret must be at least 32 characters.');
  const current = createTokenVersions(versions, { ttlMs: versionCacheMs, now });
  return {
    issue(userId, version) {
      const iat = Math.floor(now() / 1000);
      return jwt.sign({ ver: version, iat }, secret, { algorithm: 'HS256', subject: userId, expiresIn: ttlSeconds });
    },
    async verify(token) {
      const c = verifiedClaims(token, secret, now());
      if (!c) return null;
      return (await current.current(c.sub)) === c.ver ? c.sub : null;
    },
    revoked(userId) {
      current.forget(userId);
    },
  };
}
