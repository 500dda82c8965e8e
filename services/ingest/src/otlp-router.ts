import { AppError, builtLogNormalizer, builtSpanNormalizer, limits, toIso, type LogInput, type Origin, type Span } from '@lantern/domain';
import { originOf } from '@lantern/http';
import { type Mapped, type OtlpEncoding, rejectionMessage } from '@lantern/otlp';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import { checkIdempotencyKey, logMessage, spanMessages } from './batches.js';
import { readBody, requireEncoding } from './otlp-body.js';
import { sendExportResponse } from './otlp-answers.js';
import { otlpReaders } from './otlp-decode.js';
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

/** What differs between the two signals; the rest of an export is the same. */
interface Signal<T> {
  name: 'traces' | 'logs';
  items: 'spans' | 'log records';
  /** Decode and map (otlp-decode.ts). */
  read: (body: Buffer, encoding: OtlpEncoding, now: string) => Mapped;
  normalizer: (now: string) => (item: unknown) => { ok: true; value: T } | { ok: false; errors: string[] };
  publish: (origin: Origin, valid: T[], key: string | undefined, now: string) => Promise<void>;
}

/**
 * One export: key and encoding, the body (decompressed and bounded), decode (which enforces the 10,000-item bound:
 * otlp-decode.ts), map, validate, publish, answer.
 */
function exportHandler<T>(signal: Signal<T>) {
  return async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const encoding = requireEncoding(req);
    const body = await readBody(req, limits.maxIngestBytes);
    const now = toIso(Date.now());
    const { valid, rejected } = validated<T>(signal.read(body, encoding, now), signal.normalizer(now));
    await signal.publish(origin, valid, key, now);
    const partial = rejected.length > 0 ? { rejected: rejected.length, errorMessage: rejectionMessage(signal.items, rejected) } : undefined;
    sendExportResponse(res, signal.name, encoding, partial);
  };
}

/**
 * POST /v1/traces and POST /v1/logs (OTLP/HTTP, protobuf or JSON): the ingest guard, the body (decompressed and
 * bounded), decode, the 10,000-item bound, map, the same validation, grouping and bus publish as /ingest/*, and the
 * Export*ServiceResponse. Errors are rendered as google.rpc.Status by otlpErrorRenderer. POST /v1/metrics is 404.
 */
export function createOtlpRouter(guard: RequestHandler[], publish: Publisher): Router {
  const router = Router();
  router.post('/v1/traces', guard, exportHandler<Span>({
    name: 'traces', items: 'spans', read: otlpReaders.traces, normalizer: () => builtSpanNormalizer(),
    publish: (origin, valid, key, now) => publish.spans(origin, spanMessages(valid, origin, key, now)),
  }));
  router.post('/v1/logs', guard, exportHandler<LogInput>({
    name: 'logs', items: 'log records', read: otlpReaders.logs, normalizer: builtLogNormalizer,
    publish: (origin, valid, key, now) => publish.logs(origin, logMessage(valid, origin, key, now)),
  }));

  // Documented (docs/api.md), not in the route table: every method of /v1/metrics is 404, with a Status that says
  // why to an OpenTelemetry SDK exporting metrics here.
  router.use('/v1/metrics', (_req, _res, next) => {
    next(new AppError(404, 'not_found', 'OTLP metrics are not supported yet: send traces and logs'));
  });
  return router;
}
