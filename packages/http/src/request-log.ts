import { randomUUID } from 'node:crypto';
import type { Logger } from '@lantern/logging';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One JSON line per request: request id, method, route pattern (never the raw URL, which may carry
 * parameters), status, duration. The id comes from `X-Request-Id` when it is safe, else it is generated,
 * and is echoed in the response.
 */
export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
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
