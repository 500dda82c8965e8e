import { createServer, type Server } from 'node:http';
import type { ServerLimitsConfig } from '@lantern/config';
import type { Logger } from '@lantern/logging';
import type { Express } from 'express';

/** How often a refused connection is logged at most (a flood would otherwise write a line per connection). */
const DROP_LOG_EVERY_MS = 10_000;

/**
 * Node checks headersTimeout and requestTimeout on a timer (30 s by default, so a 15 s bound would act at up to
 * 45 s): a tenth of the shorter bound, within 50 ms..1 s. One pass walks the open connections, cheap at 10,000.
 */
export function checkingIntervalMs({ headersTimeoutMs, requestTimeoutMs }: Pick<ServerLimitsConfig, 'headersTimeoutMs' | 'requestTimeoutMs'>): number {
  return Math.max(50, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));
}

/**
 * The HTTP server of every Lantern process (the embedded one and each distributed service), not yet listening,
 * with its limits against abusive clients (docs/deploy.md, "Timeouts and connection limits"):
 *  - headers not complete within `headersTimeoutMs` (slowloris): 408 and the connection closed;
 *  - a request, body included, not received within `requestTimeoutMs` (a trickled upload): 408 and closed, and the
 *    upload's partial blob removed by the route's own cleanup (the part stream ends in an error);
 *  - an idle keep-alive connection closed after `keepAliveTimeoutMs`;
 *  - past `maxConnections` open at once, a new connection is closed as soon as it is accepted (logged, at most
 *    every 10 s, with how many were refused).
 */
export function createHttpServer(app: Express, limits: ServerLimitsConfig, logger: Pick<Logger, 'warn'>): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits),
    },
    app,
  );
  server.maxConnections = limits.maxConnections;
  let dropped = 0;
  let lastLogAt = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - lastLogAt < DROP_LOG_EVERY_MS) return;
    logger.warn('connection cap reached: new connections are closed', { maxConnections: limits.maxConnections, refused: dropped });
    lastLogAt = now;
    dropped = 0;
  });
  return server;
}
