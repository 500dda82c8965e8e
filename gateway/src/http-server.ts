import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ServerLimitsConfig } from '@lantern/config';
import { compileValidators, errors, type AppError } from '@lantern/domain';
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

/** The AppError of a client error Node's parser or timers raised, as Node's own default handler picks the status. */
function clientErrorOf(code: string | undefined): AppError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return errors.headersTooLarge();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return errors.chunkExtensionsTooLarge();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return errors.requestTimeout();
    default:
      return errors.badRequest();
  }
}

/** The raw response: the contract's error body, the headers every answer carries (security-headers.ts), Connection: close. */
export function clientErrorResponse(error: AppError): string {
  const body = JSON.stringify(error.toBody());
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n`
    + 'Content-Type: application/json; charset=utf-8\r\n'
    + `Content-Length: ${Buffer.byteLength(body)}\r\n`
    + 'X-Content-Type-Options: nosniff\r\n'
    + 'Cache-Control: no-store\r\n'
    + 'Connection: close\r\n'
    + `\r\n${body}`;
}

/**
 * Node's default clientError handler with the contract's body (every non-2xx has `{"error": ...}`): a 408 (header
 * or request timeout), 431 (headers too large), 413 (chunk extensions too large) or 400 (anything else the parser
 * refused), then the socket destroyed, which also ends a request in progress (an upload's cleanup runs). Its
 * guards are Node's: nothing is written on a socket that is no longer writable or on which a response has already
 * begun (it would corrupt that response), nor to a peer that reset the connection.
 */
function onClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    socket.write(clientErrorResponse(clientErrorOf(err.code)));
  }
  socket.destroy();
}

/**
 * The HTTP server of every Lantern process (the embedded one and each distributed service), not yet listening,
 * with its limits against abusive clients (docs/deploy.md, "Timeouts and connection limits"):
 *  - headers not complete within `headersTimeoutMs` (slowloris): 408 `request_timeout` and the connection closed;
 *  - a request, body included, not received within `requestTimeoutMs` (a trickled upload): 408 and closed, and the
 *    upload's partial blob removed by the route's own cleanup (the part stream ends in an error);
 *  - headers over Node's 16 KiB: 431 `headers_too_large`; a request the parser refuses: 400 `bad_request` (each
 *    with the contract's error body, onClientError);
 *  - an idle keep-alive connection closed after `keepAliveTimeoutMs`;
 *  - past `maxConnections` open at once, a new connection is closed as soon as it is accepted (logged, at most
 *    every 10 s, with how many were refused).
 */
export function createHttpServer(app: Express, limits: ServerLimitsConfig, logger: Pick<Logger, 'warn'>): Server {
  // Schemas compile now rather than on the first requests that need them (ajv loads lazily: validation.ts).
  compileValidators();
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
  server.on('clientError', onClientError);
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
