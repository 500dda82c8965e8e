import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createAccountsRouters } from '@lantern/accounts';
import { createAiRouter } from '@lantern/ai';
import { createApiKeyResolver, createTokenService } from '@lantern/auth';
import { createFsBlobStore } from '@lantern/blobs';
import { createMemoryBus } from '@lantern/bus';
import type { Config } from '@lantern/config';
import { createServiceApp } from '@lantern/http';
import { createIngestRouter } from '@lantern/ingest';
import type { Logger } from '@lantern/logging';
import { createQueryRouter } from '@lantern/query';
import { openSqliteStore, type Store } from '@lantern/store';
import { createWriter } from '@lantern/writer';
import type { Express } from 'express';
import { openApiRouter } from './openapi-route.js';
import { loadOrCreateSecret } from './secret.js';

export interface Embedded {
  app: Express;
  store: Store;
  /** A shutdown has begun: /readyz answers 503 from now on, while in-flight requests finish. */
  beginShutdown(): void;
  /** Drains the bus, stops the writer and closes the store and blob store. */
  close(): Promise<void>;
}

export type EmbeddedOptions = Pick<Config, 'dataDir' | 'jwtSecret' | 'jwtTtlSeconds' | 'rateLimit' | 'apiKeyCacheMs' | 'trustProxy'> & {
  logger: Logger;
  /** SQLite file; defaults to DATA_DIR/lantern.db (tests pass ':memory:'). */
  storeFile?: string;
  passwordHasher?: (password: string) => Promise<string>;
};

/**
 * Every service in one process on one Express app, with the embedded adapters: SQLite store, in-process
 * bus, filesystem blobs. Ingest still publishes to the bus and the writer still persists from it.
 */
export async function createEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const { dataDir, logger } = options;
  await mkdir(dataDir, { recursive: true });
  const store = await openSqliteStore({ file: options.storeFile ?? join(dataDir, 'lantern.db') });
  const bus = createMemoryBus();
  const blobs = await createFsBlobStore({ root: join(dataDir, 'blobs') });
  const tokens = createTokenService({ secret: options.jwtSecret ?? (await loadOrCreateSecret(dataDir)), ttlSeconds: options.jwtTtlSeconds });
  const keys = createApiKeyResolver(store, { ttlMs: options.apiKeyCacheMs });
  const writer = createWriter({ bus, store, logger });
  await writer.start();
  const { rateLimit } = options;
  let stopping = false;
  const app = createServiceApp({
    logger,
    trustProxy: options.trustProxy,
    isStopping: () => stopping,
    checks: { store: () => store.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
    routers: [
      openApiRouter(),
      ...createAccountsRouters({ store, tokens, logger, rateLimit: { enabled: rateLimit.enabled, perMinute: rateLimit.authPerMinute }, ...(options.passwordHasher ? { passwordHasher: options.passwordHasher } : {}) }),
      createIngestRouter({ bus, keys, logger, rateLimit: { enabled: rateLimit.enabled, perMinute: rateLimit.ingestPerMinute } }),
      createQueryRouter({ store, tokens, logger }),
      createAiRouter({ store, blobs, tokens, logger }),
    ],
  });
  return {
    app,
    store,
    beginShutdown() {
      stopping = true;
    },
    async close() {
      await bus.close();
      await writer.stop();
      await blobs.close();
      await store.close();
    },
  };
}
