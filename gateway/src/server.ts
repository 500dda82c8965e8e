import type { Server } from 'node:http';
import type { Logger } from '@lantern/logging';
import type { Express } from 'express';

/** Listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests finish, then runs `close`. */
export function serve(app: Express, { port, host, logger, close, timeoutMs }: { port: number; host: string; logger: Logger; close: () => Promise<void>; timeoutMs: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.keepAliveTimeout = 65_000;
    server.once('error', reject);
    server.once('listening', () => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info('shutting down', { signal });
        const force = setTimeout(() => {
          logger.warn('shutdown timed out; closing open connections');
          server.closeAllConnections();
        }, timeoutMs);
        force.unref();
        server.close(() => {
          close().then(
            () => {
              logger.info('stopped');
              process.exit(0);
            },
            (err: unknown) => {
              logger.error('error while closing', { error: (err as Error).message });
              process.exit(1);
            },
          );
        });
        server.closeIdleConnections();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      resolve(server);
    });
  });
}
