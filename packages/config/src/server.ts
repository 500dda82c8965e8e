/**
 * The HTTP server's own limits against abusive clients (docs/deploy.md, "Timeouts and connection limits"): how long a
 * client may take to send its headers and its whole request, how long an idle keep-alive connection stays open, and
 * how many connections one process holds at once.
 */
import type { Reader } from './reader.js';

export interface ServerLimitsConfig {
  /** Time from a connection's (or a kept-alive request's) first byte to the end of its headers; past it 408 and close. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, headers and body; past it 408 and close (a trickled upload ends here). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open; must exceed a proxy's upstream keepalive_timeout. */
  keepAliveTimeoutMs: number;
  /** Connections held at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimitsConfig = {
  headersTimeoutMs: 15_000,
  // 10 MiB in 5 minutes is 35 KB/s (280 kbit/s): a slow link uploads a document; a 1 KB/s trickle is cut after ~300 KB.
  requestTimeoutMs: 300_000,
  // nginx keeps idle upstream connections 60 s (its default keepalive_timeout): the server must close later, never first.
  keepAliveTimeoutMs: 65_000,
  maxConnections: 10_000,
};

export function serverLimitsConfig(r: Reader): ServerLimitsConfig {
  const d = DEFAULT_SERVER_LIMITS;
  const limits: ServerLimitsConfig = {
    headersTimeoutMs: r.int('HEADERS_TIMEOUT_MS', d.headersTimeoutMs, 100, 600_000),
    requestTimeoutMs: r.int('REQUEST_TIMEOUT_MS', d.requestTimeoutMs, 100, 3_600_000),
    keepAliveTimeoutMs: r.int('KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs, 100, 600_000),
    maxConnections: r.int('MAX_CONNECTIONS', d.maxConnections, 1, 1_000_000),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    r.problems.push(`HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not be more than REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}): the headers are part of the request`);
  }
  return limits;
}
