import type { ApiKeyResolver, ResolvedKey, TokenService } from '@lantern/auth';
import { errors } from '@lantern/domain';
import type { RequestHandler, Response } from 'express';

/** Longer than any token Lantern issues: such a header is refused before a pattern reads it. */
const MAX_AUTHORIZATION = 4096;

function bearer(header: string | undefined): string | null {
  if (!header || header.length > MAX_AUTHORIZATION) return null;
  // The scheme is case-insensitive (RFC 7235 section 2.1): "bearer" and "BEARER" are the same.
  const m = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  return m ? m[1]! : null;
}

/**
 * Bearer JWT endpoints: sets the caller's user id. An API key here is 401. The token's version is checked against
 * the user's current one (through the token service's short cache), so signed-out and pre-password-change tokens are 401.
 */
export function requireUser(tokens: TokenService): RequestHandler {
  return (req, res, next) => {
    const token = bearer(req.headers.authorization);
    if (!token) {
      const hint = req.headers['x-api-key'] ? ' API keys are for the ingest endpoints only.' : '';
      return next(errors.unauthorized(`Send "Authorization: Bearer <token>" (from POST /auth/login).${hint}`));
    }
    tokens.verify(token).then(
      (userId) => {
        if (!userId) return next(errors.unauthorized('The token is invalid, expired or revoked: log in again.'));
        res.locals['userId'] = userId;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** Ingest endpoints: `x-api-key` resolves to the application and project. A JWT here is 401. */
export function requireApiKey(keys: ApiKeyResolver): RequestHandler {
  return (req, res, next) => {
    const key = req.headers['x-api-key'];
    if (typeof key !== 'string' || key.length === 0) {
      const hint = req.headers.authorization ? ' Ingest does not take a JWT.' : '';
      return next(errors.unauthorized(`Send the application's API key in the "x-api-key" header.${hint}`));
    }
    keys.resolve(key).then(
      (origin) => {
        if (!origin) return next(errors.unauthorized('The API key is invalid or revoked.'));
        res.locals['origin'] = origin;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

export function userIdOf(res: Response): string {
  const id = res.locals['userId'];
  if (typeof id !== 'string') throw new Error('requireUser must run before this handler');
  return id;
}

export function originOf(res: Response): ResolvedKey {
  const origin = res.locals['origin'] as ResolvedKey | undefined;
  if (!origin) throw new Error('requireApiKey must run before this handler');
  return origin;
}
