import type { Server, ServerResponse } from 'node:http';
import { constants } from 'node:os';
import type { ServerLimitsConfig } from '@lantern/config';
import type { Logger } from '@lantern/logging';
import type { Express } from 'express';
import { createHttpServer } from './http-server.js';

export interface ServeOptions {
  port: number;
  host: string;
  logger: Logger;
  /** Called as the shutdown begins (readiness turns 503). */
  onStopping?: () => void;
  /** Drains the bus and closes the store; runs once every connection is closed. */
  close: () => Promise<void>;
  /** How long a shutdown waits for in-flight requests before closing their connections. */
  timeoutMs: number;
  /** Timeouts and the connection cap (createHttpServer). */
  limits: ServerLimitsConfig;
}

/** A repeated signal within this is the same Ctrl-C delivered twice. */
const REPEAT_IGNORED_MS = 1000;

/** Writes everything queued on stdout, then exits (process.exit alone can cut a piped stdout short). */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/**
 * Listens, and on SIGTERM/SIGINT stops accepting, lets in-flight requests finish (their responses carry
 * `Connection: close`, so a keep-alive client does not hold the shutdown open), cuts those still open after
 * `timeoutMs`, waits until every response is closed (so each has its request log line), then runs `close`
 * and exits. A signal repeated within a second of the first is the same Ctrl-C delivered twice (the terminal
 * signals the whole process group, and pnpm forwards it again): it is ignored. One later than that means
 * "stop now": the process exits at once with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
 */
export function serve(app: Express, { port, host, logger, close, timeoutMs, onStopping, limits }: ServeOptions): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app, limits, logger);
    server.once('error', reject);
    server.listen(port, host);

    const open = new Set<ServerResponse>();
    let whenNoneOpen: (() => void) | undefined;
    let stopping = false;
    /** A response of the shutdown: it closes its connection, and once sent leaves nothing idle open. */
    const lastOnItsConnection = (res: ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
    };
    server.prependListener('request', (_req, res: ServerResponse) => {
      open.add(res);
      res.once('close', () => {
        open.delete(res);
        if (open.size === 0) whenNoneOpen?.();
      });
      if (stopping) lastOnItsConnection(res);
    });

    let firstSignalAt = 0;
    const stop = (signal: string) => {
      if (stopping) {
        if (Date.now() - firstSignalAt < REPEAT_IGNORED_MS) return;
        logger.warn('second signal: stopping now', { signal, inFlight: open.size });
        exitAfterFlush(128 + (constants.signals[signal as keyof typeof constants.signals] ?? 0));
        return;
      }
      stopping = true;
      firstSignalAt = Date.now();
      onStopping?.();
      logger.info('shutting down', { signal, inFlight: open.size });
      const force = setTimeout(() => {
        logger.warn('shutdown timed out; closing open connections', { inFlight: open.size });
        server.closeAllConnections();
      }, timeoutMs);
      force.unref();
      /** Every response closed and its other 'close' listeners (the request log line) run. */
      const responsesClosed = new Promise<void>((resolve) => {
        whenNoneOpen = () => setImmediate(resolve);
        if (open.size === 0) whenNoneOpen();
      });
      server.close(() => {
        clearTimeout(force);
        responsesClosed.then(close).then(
          () => {
            logger.info('stopped');
            exitAfterFlush(0);
          },
          (err: unknown) => {
            logger.error('error while closing', { error: err instanceof Error ? err.message : String(err) });
            exitAfterFlush(1);
          },
        );
      });
      for (const res of open) lastOnItsConnection(res);
      server.closeIdleConnections();
    };

    server.once('listening', () => {
      server.off('error', reject);
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      resolve(server);
    });
  });
}
