import type { RequestHandler } from 'express';

/**
 * Headers every response carries. `X-Content-Type-Options: nosniff` on all of them. `Cache-Control: no-store`
 * on every response that does not choose its own caching: API answers (a token from /auth/login, telemetry,
 * errors) are never kept by a browser or a shared cache, while the console's static files keep theirs
 * (index.html `no-cache`, hashed assets a year). The default is applied when the headers are written, so a
 * handler that sets Cache-Control, at any point before, wins.
 */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      if (!this.hasHeader('Cache-Control')) this.setHeader('Cache-Control', 'no-store');
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  };
}
