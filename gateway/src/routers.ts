import { createAccountsRouters } from '@lantern/accounts';
import { createAiRouter, createKnowledgeRouter, type AnnounceDocument, type Semantic } from '@lantern/ai';
import { createApiKeyResolver, type PasswordHasher, type TokenService } from '@lantern/auth';
import type { BlobStore } from '@lantern/blobs';
import type { Bus } from '@lantern/bus';
import { DEFAULT_LIMITS, type Config, type LimitsConfig } from '@lantern/config';
import { createIngestRouter } from '@lantern/ingest';
import type { Logger } from '@lantern/logging';
import { createQueryRouter, type ReadBudgets } from '@lantern/query';
import type { Store } from '@lantern/store';
import type { Router } from 'express';
import { openApiRouter } from './openapi-route.js';

export const SERVICES = ['accounts', 'ingest', 'writer', 'query', 'ai', 'ai-worker'] as const;
export type ServiceName = (typeof SERVICES)[number];
export const isServiceName = (name: string | undefined): name is ServiceName => (SERVICES as readonly string[]).includes(name ?? '');

export interface RouterDeps extends Pick<Config, 'rateLimit' | 'apiKeyCacheMs'> {
  /** The fair limits (docs/api.md, "Limits"); what is left out takes its default. */
  limits?: Partial<LimitsConfig>;
  store: Store;
  logger: Logger;
  tokens?: TokenService;
  bus?: Bus;
  blobs?: BlobStore;
  passwordHasher?: PasswordHasher;
  /** The query service's read budgets (READ_BUDGET_MS, STREAM_BUDGET_MS); default: the configuration's defaults. */
  budgets?: ReadBudgets;
  /** Announces an uploaded or reprocessed document to the document workers (the ai service; on the bus). */
  announceDocument?: AnnounceDocument;
  /** Semantic search's provider (LANTERN_EMBEDDINGS_*): the ai service's search is hybrid with it. */
  semantic?: Semantic;
}

function need<T>(value: T | undefined, what: string, service: ServiceName): T {
  if (value === undefined) throw new Error(`the ${service} service needs ${what}`);
  return value;
}

/**
 * The HTTP routes of one service, the same whether it runs alone behind nginx or with the others in one process.
 * The writer and the ai-worker have none (they consume the bus); accounts also serves the OpenAPI document.
 */
export function serviceRouters(service: ServiceName, d: RouterDeps): Router[] {
  const { store, logger, rateLimit } = d;
  const limits: LimitsConfig = { ...DEFAULT_LIMITS, ...d.limits };
  switch (service) {
    case 'accounts':
      return [
        openApiRouter(),
        ...createAccountsRouters({
          store,
          tokens: need(d.tokens, 'a token service', service),
          logger,
          rateLimit: { enabled: rateLimit.enabled, perMinute: rateLimit.authPerMinute },
          maxApiKeysPerApplication: limits.maxApiKeysPerApplication,
          maxOrganizationsPerUser: limits.maxOrganizationsPerUser,
          ...(d.passwordHasher ? { passwordHasher: d.passwordHasher } : {}),
        }),
      ];
    case 'ingest':
      return [
        createIngestRouter({
          bus: need(d.bus, 'a bus', service),
          keys: createApiKeyResolver(store, { ttlMs: d.apiKeyCacheMs }),
          logger,
          rateLimit: {
            enabled: rateLimit.enabled,
            perMinute: rateLimit.ingestPerMinute,
            perApplicationPerMinute: limits.ingestPerApplicationPerMinute,
            perOrganizationPerMinute: limits.ingestPerOrganizationPerMinute,
          },
          // The store counts the windows: with MongoDB every ingest process shares them (docs/deploy.md).
          counter: store,
        }),
      ];
    case 'query':
      return [createQueryRouter({ store, tokens: need(d.tokens, 'a token service', service), logger, maxConcurrentReadsPerUser: limits.maxConcurrentReadsPerUser, ...(d.budgets ? { budgets: d.budgets } : {}) })];
    case 'ai':
      return [
        createAiRouter({
          store, blobs: need(d.blobs, 'a blob store', service), tokens: need(d.tokens, 'a token service', service), logger,
          limits: {
            enabled: rateLimit.enabled,
            perUserPerMinute: limits.uploadsPerUserPerMinute,
            perOrganizationPerMinute: limits.uploadsPerOrganizationPerMinute,
            storageQuotaBytes: limits.storageQuotaBytes,
            maxConcurrentUploads: limits.maxConcurrentUploads,
            uploadWaitMs: limits.uploadWaitMs,
          },
          ...(d.announceDocument ? { announce: d.announceDocument } : {}),
        }),
        createKnowledgeRouter({
          store, tokens: need(d.tokens, 'a token service', service), logger, ...(d.announceDocument ? { announce: d.announceDocument } : {}),
          ...(d.semantic ? { queryEmbedder: d.semantic.queries } : {}),
        }),
      ];
    case 'writer':
    case 'ai-worker':
      return [];
  }
}
