import { randomUUID } from 'node:crypto';
import type { Logger } from '@lantern/logging';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** An API key (`lk_` + base64url) or a JWT (`eyJ...` header and payload): never echoed or logged as an id. */
const CREDENTIAL = /lk_[A-Za-z0-9_-]{16}|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]/;

function clientRequestId(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && SAFE_ID.test(value) && !CREDENTIAL.test(value) ? value : undefined;
}

/**
 * One JSON line per request: request id, method, route pattern (never the raw URL, which may carry
 * parameters), status, duration. The id comes from `X-Request-Id` when it is safe (short, plain characters,
 * not shaped like an API key or a JWT), else it is generated, and is echoed in the response.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const requestId = clientRequestId(req.headers['x-request-id']) ?? randomUUID();
    res.locals['requestId'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('close', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      logger.info('request', {
        requestId,
        method: req.method,
        route,
        status: res.statusCode,
        durationMs: Math.round(durationMs * 100) / 100,
        aborted: !res.writableFinished || undefined,
      });
    });
    next();
  };
}
