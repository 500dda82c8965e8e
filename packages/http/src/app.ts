import type { Logger } from '@lantern/logging';
import compression from 'compression';
import express, { type Express, type Router } from 'express';
import { type ErrorRenderer, errorMiddleware, notFoundHandler } from './errors.js';
import { methodGuard } from './methods.js';
import { requestLogger } from './request-log.js';
import { securityHeaders } from './security-headers.js';

export type ReadinessCheck = () => Promise<void>;

export interface ServiceAppOptions {
  logger: Logger;
  routers: Router[];
  /** Dependencies /readyz checks, by name. */
  checks?: Record<string, ReadinessCheck>;
  /** Trust X-Forwarded-For from this many proxies. */
  trustProxy?: number;
  /** True once a shutdown has begun: /readyz then answers 503 so a load balancer stops sending. */
  isStopping?: () => boolean;
  /** Error bodies of their own for some paths (the OTLP endpoints' google.rpc.Status); the rest get the contract's. */
  errorRenderers?: readonly ErrorRenderer[];
}

/**
 * The Express app every service shares: request log, security headers (security-headers.ts), response compression, health endpoints, 405 for a method a
 * path is not served with (methods.ts), the routers, 404 for anything else, and the one error middleware. The embedded gateway passes every service's routers to one such app.
 */
export function createServiceApp({ logger, routers, checks = {}, trustProxy = 0, isStopping = () => false, errorRenderers = [] }: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('query parser', 'simple');
  app.use(requestLogger(logger));
  app.use(securityHeaders());
  // Compressed for clients that accept it (br when offered, as browsers do; else gzip or deflate), on bodies over
  // 1 KiB: a 10,000-span trace read is 3.0 MB of JSON, about 0.3 MB compressed. Streamed reads stay streamed.
  app.use(compression({ threshold: 1024 }));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (isStopping()) {
      res.setHeader('Retry-After', '5');
      res.status(503).json({ status: 'stopping', checks: {} });
      return;
    }
    const results: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          results[name] = 'ok';
        } catch {
          results[name] = 'unavailable';
          ready = false;
        }
      }),
    );
    if (!ready) res.setHeader('Retry-After', '5');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks: results });
  });
  app.use(methodGuard);
  for (const router of routers) app.use(router);
  app.use(notFoundHandler);
  app.use(errorMiddleware(logger, errorRenderers));
  return app;
}

/** Wraps an async route handler so its rejection reaches the error middleware. */
export function handle(fn: (req: express.Request, res: express.Response) => Promise<unknown>): express.RequestHandler {
  return (req, res, next) => {
    fn(req, res).catch(next);
  };
}
