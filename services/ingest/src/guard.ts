import type { ApiKeyResolver, ResolvedKey } from '@lantern/auth';
import { logCounterFailures, originOf, rateLimit, requireApiKey, type RateCounter } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { RequestHandler } from 'express';

export interface IngestLimits {
  enabled: boolean;
  perMinute: number;
  perApplicationPerMinute?: number;
  perOrganizationPerMinute?: number;
}

/**
 * The guard of every ingest endpoint (/ingest/* and the OTLP /v1/*): the API key, then its rate limits per key,
 * application and organization. A request refused at one level is not counted at the next, so an application over
 * its own limit does not use up its organization's allowance for the others.
 */
export function ingestGuard(keys: ApiKeyResolver, logger: Logger, limit: IngestLimits | undefined, counter: RateCounter | undefined): RequestHandler[] {
  const enabled = limit?.enabled ?? false;
  const onCounterError = logCounterFailures(logger);
  const limitBy = (scope: string, max: number | undefined, key: (origin: ResolvedKey) => string) =>
    max === undefined ? [] : [rateLimit({ enabled, max, scope, key: (_req, res) => key(originOf(res)), ...(counter ? { counter, onCounterError } : {}) })];
  return [
    requireApiKey(keys),
    ...limitBy('this API key', limit?.perMinute ?? 1, (o) => `ingest-key:${o.keyId}`),
    ...limitBy('this application', limit?.perApplicationPerMinute, (o) => `ingest-app:${o.applicationId}`),
    ...limitBy('this organization', limit?.perOrganizationPerMinute, (o) => `ingest-org:${o.organizationId}`),
  ];
}
