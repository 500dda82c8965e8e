import { documentAnnouncer, processingSetup, startDocumentProcessing } from '@lantern/ai';
import { createTokenService } from '@lantern/auth';
import type { Config } from '@lantern/config';
import { createServiceApp } from '@lantern/http';
import { ingestErrorRenderers } from '@lantern/ingest';
import type { Logger } from '@lantern/logging';
import { createRetention, createWriter } from '@lantern/writer';
import type { Express } from 'express';
import { Closers, openBlobs, openBus, openStore } from './adapters.js';
import { serviceRouters, type ServiceName } from './routers.js';

export interface ServiceProcess {
  app: Express;
  /** A shutdown has begun: /readyz answers 503 from now on, while in-flight requests finish. */
  beginShutdown(): void;
  /** Stops consuming (the writer commits what it stored), then closes the clients. */
  close(): Promise<void>;
}

/**
 * Problems that make a configuration unfit for one service in a process of its own. The in-process bus cannot
 * cross processes, the SQLite file and the documents under DATA_DIR are not shared between hosts, and every
 * process must check tokens with the same secret.
 */
export function distributedProblems(service: ServiceName, config: Config): string[] {
  const problems: string[] = [];
  const { store, bus, blobs } = config.adapters;
  const documents = service === 'ai' || service === 'ai-worker';
  if (store.kind !== 'mongo') problems.push(`LANTERN_STORE=mongo (with LANTERN_MONGO_URL) is required to run "${service}" as a process of its own; the SQLite store serves the all-in-one "lantern start"`);
  if ((service === 'ingest' || service === 'writer' || documents) && bus.kind !== 'kafka') problems.push(`LANTERN_BUS=kafka (with LANTERN_KAFKA_BROKERS) is required to run "${service}" as a process of its own: the in-process bus cannot reach another process`);
  if (documents && blobs.kind !== 'minio') problems.push(`LANTERN_BLOBS=minio (with LANTERN_MINIO_URL) is required to run "${service}" as a process of its own: files under DATA_DIR are not shared between hosts`);
  if ((service === 'accounts' || service === 'query' || service === 'ai') && !config.jwtSecret) problems.push(`JWT_SECRET is required to run "${service}" as a process of its own: every process signs and checks user tokens with the same secret`);
  return problems;
}

/** One service with the adapters it needs, behind the shared HTTP shell (/healthz, /readyz, errors, request log). */
export async function createServiceProcess(service: ServiceName, config: Config, logger: Logger): Promise<ServiceProcess> {
  const closers = new Closers();
  let stopping = false;
  const app = await closers.guard(async () => {
    const store = closers.add(await openStore(config.adapters.store, { dataDir: config.dataDir, retentionDays: config.retentionDays }));
    const documents = service === 'ai' || service === 'ai-worker';
    const bus = service === 'ingest' || service === 'writer' || documents ? closers.add(await openBus(config.adapters.bus, { clientId: `lantern-${service}`, logger })) : undefined;
    const blobs = documents ? closers.add(await openBlobs(config.adapters.blobs, { dataDir: config.dataDir })) : undefined;
    const checks: Record<string, () => Promise<void>> = { store: () => store.ping() };
    // For the ai service the bus only rings the workers' doorbell (their poll finds what it misses): a Kafka outage
    // must not take it out of rotation, uploads still work.
    if (bus && service !== 'ai') checks.bus = () => bus.ping();
    if (blobs) checks.blobs = () => blobs.ping();
    // Only the services that sign or check user tokens have (and need) the secret: distributedProblems made sure.
    // Each process checks token versions in the store, trusting a version for at most 5 s (TokenServiceOptions).
    const tokens = config.jwtSecret ? createTokenService({ secret: config.jwtSecret, ttlSeconds: config.jwtTtlSeconds, versions: store }) : undefined;
    if (service === 'writer') {
      const writer = createWriter({ bus: bus!, store, logger });
      const retention = createRetention({ store, logger, days: config.retentionDays });
      // Closed before the bus: the writer finishes the batches it holds and commits their offsets.
      closers.push(async () => {
        // The writer first, so its commit never waits on a long purge past the grace period.
        await writer.stop();
        await retention.stop();
      });
      await writer.start();
      retention.start();
    }
    // The ai-worker extracts and chunks what the ai processes announce on the bus (claims keep each document to one
    // worker); the ai service only stores uploads and announces them: no extraction on an event loop that serves requests.
    // Both hold the semantic search's clients when it is on: the worker's to embed chunks, the ai service's for queries.
    const setup = service === 'ai' || service === 'ai-worker' ? processingSetup(config) : {};
    if (service === 'ai-worker') {
      // Stopped before the bus and the store close: it stops hearing, and gives back the documents under way.
      const processing = await startDocumentProcessing({ store, blobs: blobs!, bus: bus!, logger }, { ...setup, threads: config.documentThreads, leaseMs: config.documentLeaseMs });
      closers.push(() => processing.stop());
    }
    const announceDocument = service === 'ai' ? documentAnnouncer(bus!, logger) : undefined;
    const routers = serviceRouters(service, { store, logger, ...(announceDocument ? { announceDocument } : {}), ...(service === 'ai' && setup.semantic ? { semantic: setup.semantic } : {}), ...(tokens ? { tokens } : {}), rateLimit: config.rateLimit, limits: config.limits, apiKeyCacheMs: config.apiKeyCacheMs, budgets: { readBudgetMs: config.readBudgetMs, streamBudgetMs: config.streamBudgetMs }, ...(bus ? { bus } : {}), ...(blobs ? { blobs } : {}) });
    return createServiceApp({ logger, trustProxy: config.trustProxy, isStopping: () => stopping, checks, routers, errorRenderers: ingestErrorRenderers });
  });
  return {
    app,
    beginShutdown() {
      stopping = true;
    },
    close: () => closers.closeAll(),
  };
}
