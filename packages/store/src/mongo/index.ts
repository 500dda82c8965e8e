import { MongoClient } from 'mongodb';
import type { CommandStartedEvent } from 'mongodb';
import type { Store } from '../port.js';
import { createAccess } from './access.js';
import { createAccountsStore } from './accounts.js';
import { createAiStore } from './ai.js';
import { createProcessingStore } from './ai-processing.js';
import { collectionsOf } from './collections.js';
import { createCounters } from './counters.js';
import { createGuard, toStoreError } from './errors.js';
import { ensureIndexes } from './indexes.js';
import { createIngestWriter } from './ingest.js';
import { createLimitsStore } from './limits.js';
import { backfillTraceNames, traceNamesBackfilled } from './trace-names.js';
import { backfillTraceAttrs, traceAttrsBackfilled } from './trace-attrs.js';
import { readLogVolume } from './log-volume.js';
import { deadlineOf } from './budget.js';
import { MONGO_INDEX_CHUNK, indexLogsStep, legacyLogsMarked, markLegacyLogs, startMongoIndexLoop } from './log-indexer.js';
import { createLogReader } from './logs.js';
import { DEFAULT_PAGE_SIZE } from './paging.js';
import { createPurger } from './purge.js';
import { readRollups } from './rollups.js';
import type { FirstHour } from './rollups.js';
import { prepareRollups } from './rollup-start.js';
import { createTraceReader } from './traces.js';

export interface MongoStoreOptions {
  /** A MongoDB connection string (`mongodb://` or `mongodb+srv://`); credentials go in it, never in logs. */
  url: string;
  /** The database of the store's collections. */
  database: string;
  /** Telemetry (trace records, spans, logs) expires this many days after its timestamp; 0 or absent: never. */
  retentionDays?: number;
  /** The clock (epoch ms) of createdAt/revokedAt and of the idempotency-key purge; tests replace it. */
  now?: () => number;
  /** Documents per batch read by the streams (default 200); tests use small pages to cross page boundaries. */
  pageSize?: number;
  /**
   * How long an operation waits for a reachable server before the store answers 503 (default 3000 ms). Short
   * on purpose: callers retry (the writer redelivers, clients get `Retry-After`), and the driver reconnects on
   * its own once the server is back.
   */
  serverSelectionTimeoutMS?: number;
  /** Sees every command the store sends (debugging, tests): turns the driver's command monitoring on. */
  onCommand?: (event: CommandStartedEvent) => void;
}

export { INDEXES, TTL_INDEX } from './indexes.js';

/**
 * Connects to MongoDB, creates the indexes (idempotently: every process may do it at every start) and returns
 * the store on that database. Throws the port's 503 when the server cannot be reached.
 */
export async function createMongoStore(options: MongoStoreOptions): Promise<Store> {
  const now = options.now ?? Date.now;
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
  const client = new MongoClient(options.url, {
    serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 3000,
    connectTimeoutMS: 5000,
    // Optional fields the port leaves undefined are left out, as JSON would, instead of being stored as null.
    ignoreUndefined: true,
    appName: 'lantern',
    monitorCommands: options.onCommand !== undefined,
  });
  if (options.onCommand) client.on('commandStarted', options.onCommand);
  let firstHour: FirstHour;
  try {
    await client.connect();
    await ensureIndexes(client.db(options.database), options.retentionDays);
    firstHour = await prepareRollups(collectionsOf(client.db(options.database)), now, options.retentionDays);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw toStoreError(e);
  }
  const db = client.db(options.database);
  const c = collectionsOf(db);
  const guard = createGuard();
  const access = createAccess(c);
  const next = createCounters(c.counters);
  const purge = createPurger(c, now);
  const records = { c, guard, access, next, now };
  // No transactions here: each delivered group of batches written as one, convergent on redelivery (ingest.ts).
  const ingest = createIngestWriter(c, guard, now);
  // The `q` filter's postings are written after the write, by the process that wrote the logs (log-indexer.ts).
  const indexing = startMongoIndexLoop(() => guard.run(() => indexLogsStep(c, MONGO_INDEX_CHUNK, now)));
  // Logs left pending by a process that stopped, and logs written before the postings existed (marked pending once
  // per database, in the background): the indexer takes them from the start (log-indexer.ts).
  let marked: boolean;
  try {
    marked = await guard.run(() => legacyLogsMarked(c));
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  // Trace records written before the service and operation filters: named from their root span (trace-names.ts).
  void guard.run(async () => {
    if (!(await traceNamesBackfilled(c))) await backfillTraceNames(c);
  }).catch(() => undefined);
  // And before the attribute filter: their spans' attribute hashes (trace-attrs.ts).
  void guard.run(async () => {
    if (!(await traceAttrsBackfilled(c))) await backfillTraceAttrs(c);
  }).catch(() => undefined);
  if (!marked) {
    void guard.run(() => markLegacyLogs(c)).then(() => {
      marked = true;
      indexing.kick();
    }, () => undefined);
  } else indexing.kick();

  return {
    ...createAccountsStore(records),
    ...ingest,
    writeLogs: async (batch) => {
      await ingest.writeLogs(batch);
      indexing.kick();
    },
    writeLogBatches: async (batches) => {
      await ingest.writeLogBatches(batches);
      indexing.kick();
    },
    ...createTraceReader(c, guard, access, pageSize),
    ...createLogReader(c, guard, access, pageSize, () => marked),
    ...createAiStore(records),
    ...createProcessingStore(records),
    ...createLimitsStore(records),
    async ping() {
      await guard.run(() => db.command({ ping: 1 }));
    },
    readMetrics: (query) => guard.run(() => readRollups(c, access, query, firstHour), { budgetMs: query.budgetMs }),
    readLogVolume: (query) => {
      const deadline = deadlineOf(query.budgetMs, Date.now, query.signal);
      return guard.run(() => readLogVolume(c, access, query, deadline), { budgetMs: deadline.budgetMs });
    },
    purgeTelemetryBefore: (cutoffMs) => guard.run(() => purge(cutoffMs)),
    async close() {
      if (guard.closed) return;
      await indexing.stop();
      guard.close();
      await client.close();
    },
  };
}
