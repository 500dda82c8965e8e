import jwt from 'jsonwebtoken';

export interface TokenService {
  /** An HS256 JWT whose `sub` is the user id. */
  issue(userId: string): string;
  /** The user id of a valid token, or null (bad signature, expired, another algorithm, malformed). */
  verify(token: string): string | null;
}

export function createTokenService({ secret, ttlSeconds }: { secret: string; ttlSeconds: number }): TokenService {
  if (secret.length < 32) throw new Error('The JWT secret must be at least 32 characters.');
  return {
    issue(userId) {
      return jwt.sign({}, secret, { algorithm: 'HS256', subject: userId, expiresIn: ttlSeconds });
    },
    verify(token) {
      try {
        const payload = jwt.verify(token, secret, { algorithms: ['HS256'] });
        return typeof payload === 'object' && typeof payload.sub === 'string' && payload.sub.length > 0 ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}
