import type { ApiKeyResolver, ResolvedKey } from '@lantern/auth';
import type { Bus } from '@lantern/bus';
import { AppError, errors, toIso } from '@lantern/domain';
import { createServiceApp, jsonBody, logCounterFailures, originOf, rateLimit, requireApiKey, type RateCounter } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import { Router, type Express, type Request, type Response } from 'express';
import { checkIdempotencyKey, ingestBodyLimit, prepareLogs, prepareSpans } from './batches.js';

export interface IngestDeps {
  bus: Bus;
  keys: ApiKeyResolver;
  logger: Logger;
  /**
   * Requests per minute per API key, and (when given) per application and per organization, whatever key sends
   * them: three keys of one application share the application's allowance. Omit or disable for benchmarks.
   */
  rateLimit?: { enabled: boolean; perMinute: number; perApplicationPerMinute?: number; perOrganizationPerMinute?: number };
  /** Where the application and organization windows are counted (the store: shared by every ingest process). */
  counter?: RateCounter;
}

/** Publishing failed: the client must retry (503 + Retry-After); nothing was acknowledged. */
/** The bus's own 503 (with its Retry-After) or 413 (a batch over the topic's message limit: retrying cannot help) pass through; anything else is a 503. */
function busFailure(err: unknown): AppError {
  return err instanceof AppError && (err.status === 503 || err.status === 413) ? err : errors.unavailable('message bus');
}

/** POST /ingest/traces and POST /ingest/logs: API key -> validate -> publish -> 200 {accepted, rejected}. */
export function createIngestRouter({ bus, keys, logger, rateLimit: limit, counter }: IngestDeps): Router {
  const router = Router();
  const enabled = limit?.enabled ?? false;
  const onCounterError = logCounterFailures(logger);
  const limitBy = (scope: string, max: number | undefined, key: (origin: ResolvedKey) => string) =>
    max === undefined ? [] : [rateLimit({ enabled, max, scope, key: (_req, res) => key(originOf(res)), ...(counter ? { counter, onCounterError } : {}) })];
  // Key, then application, then organization: a request refused at one level is not counted at the next, so an
  // application over its own limit does not use up its organization's allowance for the others.
  const guard = [
    requireApiKey(keys),
    ...limitBy('this API key', limit?.perMinute ?? 1, (o) => `ingest-key:${o.keyId}`),
    ...limitBy('this application', limit?.perApplicationPerMinute, (o) => `ingest-app:${o.applicationId}`),
    ...limitBy('this organization', limit?.perOrganizationPerMinute, (o) => `ingest-org:${o.organizationId}`),
    jsonBody({ limit: ingestBodyLimit, checkSafety: false }),
  ];
  const receivedAt = () => toIso(Date.now());

  router.post('/ingest/traces', guard, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const { messages, accepted, rejected } = prepareSpans(req.body, origin, key, receivedAt());
    if (messages.length > 0) {
      try {
        await bus.publish('spans', messages.map((m) => ({ key: m.spans[0]!.traceId, value: m })));
      } catch (err) {
        logger.warn('publish failed', { topic: 'spans', applicationId: origin.applicationId, error: (err as Error).message });
        throw busFailure(err);
      }
    }
    res.json({ accepted, rejected });
  });

  router.post('/ingest/logs', guard, async (req: Request, res: Response) => {
    const origin = originOf(res);
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const { message, accepted, rejected } = prepareLogs(req.body, origin, key, receivedAt());
    if (message.logs.length > 0) {
      try {
        await bus.publish('logs', [{ key: String(origin.applicationId), value: message }]);
      } catch (err) {
        logger.warn('publish failed', { topic: 'logs', applicationId: origin.applicationId, error: (err as Error).message });
        throw busFailure(err);
      }
    }
    res.json({ accepted, rejected });
  });
  return router;
}

export function createIngestApp(deps: IngestDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({ logger: deps.logger, routers: [createIngestRouter(deps)], checks: deps.checks ?? { bus: () => deps.bus.ping() } });
}
