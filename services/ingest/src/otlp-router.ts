import { AppError, builtLogNormalizer, builtSpanNormalizer, errors, limits, toIso, type LogInput, type Span } from '@lantern/domain';
import { originOf } from '@lantern/http';
import { countLogRecords, countSpans, mapLogs, mapTraces, type Mapped, rejectionMessage } from '@lantern/otlp';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { checkIdempotencyKey, logMessage, spanMessages } from './batches.js';
import { readBody, requireEncoding } from './otlp-body.js';
import { sendExportResponse } from './otlp-answers.js';
import { otlpDecoders } from './otlp-decode.js';
import type { Publisher } from './publish.js';

/**
 * The items `normalize` accepts, and the reasons of the others added to the mapping's. The mapped items are the
 * domain's "built" items (normalize-built.ts): the resource and scope they share are safety-walked once.
 */
function validated<T>(mapped: Mapped, normalize: (item: unknown) => { ok: true; value: T } | { ok: false; errors: string[] }): { valid: T[]; rejected: string[] } {
  const valid: T[] = [];
  const rejected = [...mapped.rejected];
  for (const item of mapped.items) {
    const checked = normalize(item);
    if (checked.ok) valid.push(checked.value);
    else rejected.push(checked.errors.join(', '));
  }
  return { valid, rejected };
}

function checkCount(count: number, what: string): void {
  if (count > limits.maxBatchItems) {
    throw errors.validation(`The request holds ${count} ${what}; at most ${limits.maxBatchItems} are accepted in one request. Nothing was stored.`, [{ maxItems: limits.maxBatchItems }]);
  }
}

/**
 * POST /v1/traces and POST /v1/logs (OTLP/HTTP, protobuf or JSON): the ingest guard, the body (decompressed and
 * bounded), decode, the 10,000-item bound, map, the same validation, grouping and bus publish as /ingest/*, and the
 * Export*ServiceResponse. Errors are rendered as google.rpc.Status by otlpErrorRenderer. POST /v1/metrics is 404.
 */
export function createOtlpRouter(guard: RequestHandler[], publish: Publisher): Router {
  const router = Router();
  const receivedAt = () => toIso(Date.now());

  router.post('/v1/traces', guard, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const encoding = requireEncoding(req);
    const request = otlpDecoders.traces(await readBody(req, limits.maxIngestBytes), encoding);
    checkCount(countSpans(request), 'spans');
    const { valid, rejected } = validated<Span>(mapTraces(request), builtSpanNormalizer());
    await publish.spans(origin, spanMessages(valid, origin, key, receivedAt()));
    sendExportResponse(res, 'traces', encoding, rejected.length > 0 ? { rejected: rejected.length, errorMessage: rejectionMessage('spans', rejected) } : undefined);
  });

  router.post('/v1/logs', guard, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const encoding = requireEncoding(req);
    const request = otlpDecoders.logs(await readBody(req, limits.maxIngestBytes), encoding);
    checkCount(countLogRecords(request), 'log records');
    const now = receivedAt();
    const { valid, rejected } = validated<LogInput>(mapLogs(request, now), builtLogNormalizer(now));
    await publish.logs(origin, logMessage(valid, origin, key, now));
    sendExportResponse(res, 'logs', encoding, rejected.length > 0 ? { rejected: rejected.length, errorMessage: rejectionMessage('log records', rejected) } : undefined);
  });

  // Documented (docs/api.md), not in the route table: every method of /v1/metrics is 404, with a Status that says
  // why to an OpenTelemetry SDK exporting metrics here.
  router.use('/v1/metrics', (_req, _res, next) => {
    next(new AppError(404, 'not_found', 'OTLP metrics are not supported yet: send traces and logs'));
  });
  return router;
}
