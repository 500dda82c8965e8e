import Database from 'better-sqlite3';
import type { Store } from '../port.js';
import { createAccountsStore } from './accounts.js';
import { createAiStore } from './ai.js';
import { createProcessingStore } from './ai-processing.js';
import { guard, toStoreError } from './errors.js';
import { createIngestWriter } from './ingest.js';
import { createLimitsStore } from './limits.js';
import type { IngestWriter } from './ingest.js';
import { createLogIndexer, startIndexLoop } from './log-indexer.js';
import { createLogReader } from './logs.js';
import { DEFAULT_PAGE_SIZE } from './paging.js';
import { createPurger } from './purge.js';
import { startReadPool } from './read-pool.js';
import { createRollupReader } from './rollup-reader.js';
import { createLogVolumeReader } from './log-volume.js';
import { configure, migrate } from './schema.js';
import { createTraceReader } from './traces.js';
import { startWriterThread } from './writer-thread.js';

export interface SqliteStoreOptions {
  /** A file path, or ':memory:' for a private in-memory database. */
  file: string;
  /** The clock (epoch ms) of createdAt/revokedAt and of the idempotency-key purge; tests replace it. */
  now?: () => number;
  /** Rows read per page by the streams (default 200); tests use small pages to cross page boundaries. */
  pageSize?: number;
  /**
   * Writes spans and logs on a thread of their own with a connection of their own (writer-thread.ts), so that
   * requests are parsed on one core while the other commits. Only for a file (an in-memory database is private
   * to its connection), and with the system clock (the thread cannot share `now`).
   */
  writerThread?: boolean;
  /**
   * Read worker threads (read-pool.ts), each with a read-only connection of its own, that serve the telemetry
   * reads (traces, logs, entry spans, metrics) off the event loop that serves requests (READ_WORKERS). Only for a
   * file. Default 0: the reads run on this thread, with a turn of the event loop between their statements.
   */
  readWorkers?: number;
}

/** The writer, kicking the log indexer once its logs are stored. */
function withIndexing(writer: IngestWriter, kick: () => void): IngestWriter {
  return {
    ...writer,
    writeLogs: async (batch) => {
      await writer.writeLogs(batch);
      kick();
    },
    writeLogBatches: async (batches) => {
      await writer.writeLogBatches(batches);
      kick();
    },
  };
}

/** Opens (creating and migrating if needed) a SQLite database and returns the store on it. */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<Store> {
  const now = options.now ?? Date.now;
  const pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
  let db: Database.Database | undefined;
  try {
    db = new Database(options.file);
    configure(db);
    migrate(db);
  } catch (e) {
    db?.close();
    throw toStoreError(e);
  }
  const connection = db;
  const ping = connection.prepare('SELECT 1');
  const purge = createPurger(connection, now);
  const threaded = options.writerThread === true && options.file !== ':memory:' && options.now === undefined;
  const writer = threaded ? startWriterThread(options.file) : undefined;
  const pool = options.file !== ':memory:' && (options.readWorkers ?? 0) > 0 ? startReadPool(options.file, options.readWorkers!, pageSize) : undefined;
  const readMetrics = pool?.readMetrics ?? createRollupReader(connection);
  // On a read worker when there are some, as metrics: a week's rows stay off the thread that serves requests.
  const readLogVolume = pool?.readLogVolume ?? createLogVolumeReader(connection);
  // The log search index is filled after the write (log-indexer.ts): by the writer thread (started at once if logs
  // wait for the index, and looking for them whenever it starts), or here, in the turns this event loop has free.
  const indexing = writer ? undefined : startIndexLoop(createLogIndexer(connection), () => false);
  const ingest = writer ?? withIndexing(createIngestWriter(connection, now), () => indexing?.kick());
  if (createLogIndexer(connection).backlog() > 0) {
    if (writer) await writer.startIndexing().catch(() => undefined);
    else indexing?.kick();
  }

  return {
    ...createAccountsStore(connection, now),
    ...ingest,
    ...createTraceReader(connection, pageSize),
    ...createLogReader(connection, pageSize),
    ...(pool ? { streamTraces: pool.streamTraces, streamLogs: pool.streamLogs, streamRootSpans: pool.streamRootSpans } : {}),
    // With a writer thread, it writes and removes the chunks too (chunk-sweep.ts): this event loop serves requests.
    ...createAiStore(connection, now, writer),
    ...createProcessingStore(connection, now, writer),
    // With read workers, document search runs on them (the main connection's searcher serves without).
    ...(pool ? { searchChunks: pool.searchChunks, nearestChunks: pool.nearestChunks } : {}),
    ...createLimitsStore(connection),
    async ping() {
      guard(() => ping.get());
    },
    async readMetrics(query) {
      try {
        return await readMetrics(query);
      } catch (e) {
        throw toStoreError(e);
      }
    },
    async readLogVolume(query) {
      try {
        return await readLogVolume(query);
      } catch (e) {
        throw toStoreError(e);
      }
    },
    purgeTelemetryBefore: purge,
    async close() {
      indexing?.stop();
      await pool?.close();
      await writer?.close();
      if (connection.open) connection.close();
    },
  };
}
