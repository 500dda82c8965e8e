import type { ApiKeyResolver } from '@lantern/auth';
import type { Bus } from '@lantern/bus';
import { toIso } from '@lantern/domain';
import { createServiceApp, jsonBody, originOf, type RateCounter } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import { Router, type Express, type Request, type Response } from 'express';
import { checkIdempotencyKey, ingestBodyLimit, prepareLogs, prepareSpans } from './batches.js';
import { ingestGuard, type IngestLimits } from './guard.js';
import { otlpErrorRenderer } from './otlp-answers.js';
import { createOtlpRouter } from './otlp-router.js';
import { createPublisher } from './publish.js';

export interface IngestDeps {
  bus: Bus;
  keys: ApiKeyResolver;
  logger: Logger;
  /**
   * Requests per minute per API key, and (when given) per application and per organization, whatever key sends
   * them: three keys of one application share the application's allowance. Omit or disable for benchmarks.
   */
  rateLimit?: IngestLimits;
  /** Where the application and organization windows are counted (the store: shared by every ingest process). */
  counter?: RateCounter;
}

/**
 * POST /ingest/traces and POST /ingest/logs: API key -> validate -> publish -> 200 {accepted, rejected}; and the
 * OTLP/HTTP endpoints POST /v1/traces, /v1/logs behind the same guard (otlp-router.ts). Their errors need
 * `ingestErrorRenderers` in the app's error middleware.
 */
export function createIngestRouter({ bus, keys, logger, rateLimit: limit, counter }: IngestDeps): Router {
  const router = Router();
  const guard = ingestGuard(keys, logger, limit, counter);
  const publish = createPublisher(bus, logger);
  const body = jsonBody({ limit: ingestBodyLimit, checkSafety: false });
  const receivedAt = () => toIso(Date.now());

  router.post('/ingest/traces', guard, body, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const { messages, accepted, rejected } = prepareSpans(req.body, origin, key, receivedAt());
    await publish.spans(origin, messages);
    res.json({ accepted, rejected });
  });

  router.post('/ingest/logs', guard, body, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const { message, accepted, rejected } = prepareLogs(req.body, origin, key, receivedAt());
    await publish.logs(origin, message);
    res.json({ accepted, rejected });
  });
  router.use(createOtlpRouter(guard, publish));
  return router;
}

/** The error bodies of the ingest service's own: google.rpc.Status on /v1/* (OTLP/HTTP). */
export const ingestErrorRenderers = [otlpErrorRenderer];

export function createIngestApp(deps: IngestDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({
    logger: deps.logger, routers: [createIngestRouter(deps)], checks: deps.checks ?? { bus: () => deps.bus.ping() }, errorRenderers: ingestErrorRenderers,
  });
}
