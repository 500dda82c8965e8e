import { AppError, errors } from '@lantern/domain';
import type { Logger } from '@lantern/logging';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';

interface HttpishError {
  type?: string;
  status?: number;
  code?: string;
  field?: string;
}

/** Maps any error (ours, body-parser's, multer's) to the contract's AppError. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as HttpishError;
  switch (e.type) {
    case 'entity.parse.failed':
      return errors.invalidJson();
    case 'entity.too.large':
      return errors.tooLarge('The request body is larger than this endpoint accepts.');
    case 'encoding.unsupported':
      return errors.unsupportedMedia('Unsupported Content-Encoding: send identity, gzip or deflate.');
    case 'charset.unsupported':
      return errors.unsupportedMedia('Unsupported charset: send UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return errors.validation('The request body ended before its declared length.');
  }
  switch (e.code) {
    // zlib, while inflating a gzip/deflate body: the body is malformed, not a server fault.
    case 'Z_DATA_ERROR':
    case 'Z_BUF_ERROR':
    case 'Z_NEED_DICT':
      return errors.invalidJson('The request body could not be decompressed: it is not valid for its Content-Encoding.');
    case 'LIMIT_FILE_SIZE':
      return errors.tooLarge('The file is larger than 10 MB (10,485,760 bytes).');
    case 'LIMIT_UNEXPECTED_FILE':
      return errors.validation(`Unexpected file field "${e.field ?? ''}": send the document in a part named "file".`);
    case 'LIMIT_FILE_COUNT':
    case 'LIMIT_PART_COUNT':
    case 'LIMIT_FIELD_COUNT':
    case 'LIMIT_FIELD_KEY':
    case 'LIMIT_FIELD_VALUE':
      return errors.validation('The multipart form has too many or too large parts: send one part named "file".');
    case 'MISSING_FIELD_NAME':
    case 'MALFORMED_PART':
      return errors.validation('The multipart body is malformed.');
  }
  if (err instanceof Error && /^(Multipart|Unexpected end of form|Malformed part header)/i.test(err.message)) {
    return errors.validation(`The multipart body is malformed: ${err.message}.`);
  }
  return errors.internal();
}

/**
 * Another body for the errors of some paths, where a protocol fixes it: OTLP/HTTP answers every error of `/v1/*`
 * with a google.rpc.Status (services/ingest, otlp-errors.ts). The status and the headers (`Retry-After`, `Allow`)
 * stay the error middleware's; the renderer writes only the body.
 */
export interface ErrorRenderer {
  matches(req: Request): boolean;
  render(req: Request, res: Response, error: AppError): void;
}

/**
 * The one error middleware of every service: the contract's body (or a renderer's, for the paths it matches),
 * `Retry-After` on 429/503, never a stack.
 */
export function errorMiddleware(logger: Logger, renderers: readonly ErrorRenderer[] = []): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError.status >= 500 && appError.code === 'internal') {
      logger.error('unhandled error', {
        requestId: res.locals['requestId'],
        method: req.method,
        route: req.route?.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (appError.retryAfter !== undefined) res.setHeader('Retry-After', String(appError.retryAfter));
    res.status(appError.status);
    const renderer = renderers.find((r) => r.matches(req));
    if (renderer) renderer.render(req, res, appError);
    else res.json(appError.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(errors.notFound(`route ${req.method} ${req.path.slice(0, 200)}`));
};
