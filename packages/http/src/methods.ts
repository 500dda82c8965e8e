import { allowedMethods, errors } from '@lantern/domain';
import type { RequestHandler } from 'express';

/**
 * Before the routers: a path the API serves, asked with a method it does not serve there, is 405 with `Allow`
 * (RFC 9110 15.5.6) and the error body; OPTIONS is answered 204 with `Allow`. The methods come from the API's one
 * route table (packages/domain, routes.ts), so every service answers alike whichever one nginx sent the request to.
 * Paths the API does not have go on to the routers and end as 404.
 */
export const methodGuard: RequestHandler = (req, res, next) => {
  const allow = allowedMethods(req.path);
  if (allow === undefined) return next();
  if (req.method === 'OPTIONS') {
    res.setHeader('Allow', allow.join(', '));
    res.status(204).end();
    return;
  }
  if (allow.includes(req.method)) return next();
  res.setHeader('Allow', allow.join(', '));
  next(errors.methodNotAllowed(req.method, allow));
};
