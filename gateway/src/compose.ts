import { mkdir } from 'node:fs/promises';
import { createTokenService, type PasswordHasher } from '@lantern/auth';
import type { Config, LimitsConfig } from '@lantern/config';
import { documentAnnouncer, processingSetup, startDocumentProcessing } from '@lantern/ai';
import { consoleDir } from '@lantern/console';
import { createServiceApp } from '@lantern/http';
import { ingestErrorRenderers } from '@lantern/ingest';
import type { Logger } from '@lantern/logging';
import { DEFAULT_READ_BUDGETS } from '@lantern/query';
import type { Store } from '@lantern/store';
import { createRetention, createWriter } from '@lantern/writer';
import type { Express } from 'express';
import { Closers, openBlobs, openBus, openStore } from './adapters.js';
import { consoleRouter } from './console-route.js';
import { SERVICES, serviceRouters } from './routers.js';
import { loadOrCreateSecret } from './secret.js';

export interface Embedded {
  app: Express;
  store: Store;
  /** A shutdown has begun: /readyz answers 503 from now on, while in-flight requests finish. */
  beginShutdown(): void;
  /** Drains the bus, stops the writer and closes the store and blob store. */
  close(): Promise<void>;
}

export type EmbeddedOptions = Pick<Config, 'dataDir' | 'jwtSecret' | 'jwtTtlSeconds' | 'rateLimit' | 'apiKeyCacheMs' | 'trustProxy'> &
  Partial<Pick<Config, 'adapters' | 'retentionDays' | 'readBudgetMs' | 'streamBudgetMs' | 'readWorkers' | 'chunking' | 'embeddings' | 'documentThreads' | 'documentLeaseMs'>> & {
  logger: Logger;
  /** The fair limits (docs/api.md, "Limits"); what is left out takes its default. */
  limits?: Partial<LimitsConfig>;
  /** SQLite file; defaults to DATA_DIR/lantern.db (tests pass ':memory:'). */
  storeFile?: string;
  passwordHasher?: PasswordHasher;
  /** The web console's built files served at `/` (default: packages/console/dist). */
  consoleDir?: string;
  /** Extract, chunk and index uploaded documents in this process (default true; tests of other things turn it off). */
  processDocuments?: boolean;
};

/**
 * Every service in one process on one Express app, by default with the embedded adapters: SQLite store,
 * in-process bus, filesystem blobs (LANTERN_STORE/BUS/BLOBS may name others). Ingest still publishes to the bus
 * and the writer still persists from it. The web console is served at `/`.
 */
export async function createEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const { dataDir, logger } = options;
  await mkdir(dataDir, { recursive: true });
  const adapters = options.adapters ?? { store: { kind: 'sqlite' }, bus: { kind: 'memory' }, blobs: { kind: 'fs' } };
  const retentionDays = options.retentionDays ?? 0;
  const closers = new Closers();
  // The chunking, and semantic search's provider (off without LANTERN_EMBEDDINGS_URL): the worker's and the search's.
  const setup = processingSetup(options);
  const { store, bus, blobs, processing } = await closers.guard(async () => {
    const store = closers.add(await openStore(adapters.store, { dataDir, retentionDays, ...(options.storeFile ? { sqliteFile: options.storeFile } : {}), ...(options.readWorkers === undefined ? {} : { readWorkers: options.readWorkers }) }));
    const blobs = closers.add(await openBlobs(adapters.blobs, { dataDir }));
    const bus = await openBus(adapters.bus, { clientId: 'lantern', logger });
    const writer = createWriter({ bus, store, logger });
    const retention = createRetention({ store, logger, days: retentionDays });
    closers.push(async () => {
      // The writer first: it commits what it stored; a long purge must not hold that past the grace period.
      await writer.stop();
      await retention.stop();
    });
    // Closed first: the bus drains (in-flight publishes reach the writer), then the writer stops.
    closers.add(bus);
    await writer.start();
    retention.start();
    // Worker threads extract and chunk, announced through the in-process bus as an ai-worker is through Kafka.
    // Stopped before the bus, the store and blob store close (closers run last in, first out): documents under way are given back.
    const processing = options.processDocuments === false ? undefined : await startDocumentProcessing({ store, blobs, bus, logger }, {
      ...setup,
      ...(options.documentThreads === undefined ? {} : { threads: options.documentThreads }),
      ...(options.documentLeaseMs === undefined ? {} : { leaseMs: options.documentLeaseMs }),
    });
    if (processing) closers.push(() => processing.stop());
    return { store, bus, blobs, processing };
  });
  // Token versions are looked up in the store (a signed-out token is refused at once in this process).
  const tokens = createTokenService({ secret: options.jwtSecret ?? (await loadOrCreateSecret(dataDir)), ttlSeconds: options.jwtTtlSeconds, versions: store });
  const budgets = { readBudgetMs: options.readBudgetMs ?? DEFAULT_READ_BUDGETS.readBudgetMs, streamBudgetMs: options.streamBudgetMs ?? DEFAULT_READ_BUDGETS.streamBudgetMs };
  // Without processing (tests of other things) nothing hears the announcements: none is made.
  const deps = { store, bus, blobs, tokens, logger, ...(processing ? { announceDocument: documentAnnouncer(bus, logger) } : {}), ...(setup.semantic ? { semantic: setup.semantic } : {}), rateLimit: options.rateLimit, ...(options.limits ? { limits: options.limits } : {}), apiKeyCacheMs: options.apiKeyCacheMs, budgets, ...(options.passwordHasher ? { passwordHasher: options.passwordHasher } : {}) };
  let stopping = false;
  const app = createServiceApp({
    logger,
    trustProxy: options.trustProxy,
    isStopping: () => stopping,
    // OTLP's google.rpc.Status on /v1/* (the ingest service's paths), the contract's error body elsewhere.
    errorRenderers: ingestErrorRenderers,
    checks: { store: () => store.ping(), bus: () => bus.ping(), blobs: () => blobs.ping() },
    // The console first: it claims only `/`, `/index.html`, `/assets/*` and `/favicon.ico`, and lets the rest through.
    routers: [consoleRouter(options.consoleDir ?? consoleDir), ...SERVICES.flatMap((service) => serviceRouters(service, deps))],
  });
  return {
    app,
    store,
    beginShutdown() {
      stopping = true;
    },
    close: () => closers.closeAll(),
  };
}
