/** Environment parsed once at start into a typed object, with messages that say which variable is wrong and how. */

import { adapterConfig, type AdapterConfig } from './adapters.js';
import { chunkingConfig, embeddingsConfig, type ChunkingConfig, type EmbeddingsConfig } from './ai.js';
import { Reader, type Env } from './reader.js';
import { serverLimitsConfig, type ServerLimitsConfig } from './server.js';

export type { AdapterConfig, BlobsConfig, BusConfig, StoreConfig } from './adapters.js';
export { DEFAULT_SERVER_LIMITS, type ServerLimitsConfig } from './server.js';
export { DEFAULT_CHUNKING_CONFIG, type ChunkingConfig, type EmbeddingsConfig } from './ai.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export interface RateLimitConfig {
  enabled: boolean;
  /** Ingest requests per API key per minute. */
  ingestPerMinute: number;
  /** Login and register attempts per client address per minute. */
  authPerMinute: number;
}

/** The limits that keep one tenant from taking what others need (docs/api.md, "Limits"). */
export interface LimitsConfig {
  /** Ingest requests per application per minute, whatever key sends them (RATE_LIMIT_ENABLED applies). */
  ingestPerApplicationPerMinute: number;
  /** Ingest requests per organization per minute, all its applications together (RATE_LIMIT_ENABLED applies). */
  ingestPerOrganizationPerMinute: number;
  /** Document uploads per user per minute (RATE_LIMIT_ENABLED applies). */
  uploadsPerUserPerMinute: number;
  /** Document uploads per organization per minute, all its members together (RATE_LIMIT_ENABLED applies). */
  uploadsPerOrganizationPerMinute: number;
  /** Active (unrevoked) API keys one application may have. */
  maxApiKeysPerApplication: number;
  /** Organizations one user may create (all they ever created: deleting or leaving one does not count yet). */
  maxOrganizationsPerUser: number;
  /** Reads (traces, logs, metrics) one user may have in flight at once, per query process. */
  maxConcurrentReadsPerUser: number;
  /** Bytes of documents one organization may keep, all its tenants together. */
  storageQuotaBytes: number;
  /** Document uploads one AI process receives at once; the others wait their turn, their bodies unread. */
  maxConcurrentUploads: number;
  /** The longest an upload waits for one of those slots, in ms; then 503 `unavailable` with Retry-After. */
  uploadWaitMs: number;
}

export const DEFAULT_LIMITS: LimitsConfig = {
  ingestPerApplicationPerMinute: 1200,
  ingestPerOrganizationPerMinute: 6000,
  uploadsPerUserPerMinute: 30,
  uploadsPerOrganizationPerMinute: 120,
  maxApiKeysPerApplication: 20,
  maxOrganizationsPerUser: 10,
  maxConcurrentReadsPerUser: 4,
  storageQuotaBytes: 1024 * 1024 * 1024,
  maxConcurrentUploads: 4,
  uploadWaitMs: 20_000,
};

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Undefined: the embedded gateway keeps a generated secret in DATA_DIR. */
  jwtSecret: string | undefined;
  jwtTtlSeconds: number;
  logLevel: string;
  rateLimit: RateLimitConfig;
  limits: LimitsConfig;
  apiKeyCacheMs: number;
  /** Trust X-Forwarded-For from this many proxies (for the client address of rate limits). */
  trustProxy: number;
  shutdownTimeoutMs: number;
  /** Timeouts and the connection cap of the HTTP server (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS). */
  server: ServerLimitsConfig;
  /** Telemetry (traces, spans, logs) older than this many days is deleted; 0 keeps it forever. */
  retentionDays: number;
  /** Time budget of one read (a page, a metrics window, a search), in ms; past it the read ends with 503 read_timeout. */
  readBudgetMs: number;
  /** Time budget of a whole-set stream (the seed's unpaged reads), in ms; past it the array ends with an error element. */
  streamBudgetMs: number;
  /** Read worker threads of the SQLite store (each with its own read-only connection); 0 reads on the event loop. */
  readWorkers: number;
  /** Threads that extract and chunk documents, per process that processes them (the embedded server, each ai-worker). */
  documentThreads: number;
  /** How long a document worker's claim holds without renewal, in ms: a worker killed mid-document loses it then. */
  documentLeaseMs: number;
  /** Which store, bus and blob store the process uses, and where they are. */
  adapters: AdapterConfig;
  /** How AI documents are chunked (LANTERN_CHUNK_TOKENS, LANTERN_CHUNK_OVERLAP). */
  chunking: ChunkingConfig;
  /** Semantic search's embedding provider (LANTERN_EMBEDDINGS_*); undefined: off. */
  embeddings: EmbeddingsConfig | undefined;
}

export function loadConfig(env: Env = process.env): Config {
  const r = new Reader(env);
  const config: Config = {
    port: r.int('PORT', 8080, 0, 65535),
    host: r.str('HOST', '0.0.0.0'),
    dataDir: r.str('DATA_DIR', './data'),
    jwtSecret: r.secret('JWT_SECRET', 32),
    jwtTtlSeconds: r.int('JWT_TTL_SECONDS', 86_400, 60, 31_536_000),
    logLevel: r.str('LOG_LEVEL', 'info', ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly']),
    rateLimit: {
      enabled: r.bool('RATE_LIMIT_ENABLED', true),
      ingestPerMinute: r.int('RATE_LIMIT_INGEST_PER_MINUTE', 1200, 1, 10_000_000),
      authPerMinute: r.int('RATE_LIMIT_AUTH_PER_MINUTE', 20, 1, 1_000_000),
    },
    limits: {
      ingestPerApplicationPerMinute: r.int('RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE', DEFAULT_LIMITS.ingestPerApplicationPerMinute, 1, 10_000_000),
      ingestPerOrganizationPerMinute: r.int('RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE', DEFAULT_LIMITS.ingestPerOrganizationPerMinute, 1, 100_000_000),
      uploadsPerUserPerMinute: r.int('RATE_LIMIT_UPLOADS_PER_MINUTE', DEFAULT_LIMITS.uploadsPerUserPerMinute, 1, 1_000_000),
      uploadsPerOrganizationPerMinute: r.int('RATE_LIMIT_UPLOADS_ORGANIZATION_PER_MINUTE', DEFAULT_LIMITS.uploadsPerOrganizationPerMinute, 1, 10_000_000),
      maxApiKeysPerApplication: r.int('MAX_API_KEYS_PER_APPLICATION', DEFAULT_LIMITS.maxApiKeysPerApplication, 1, 10_000),
      maxOrganizationsPerUser: r.int('MAX_ORGANIZATIONS_PER_USER', DEFAULT_LIMITS.maxOrganizationsPerUser, 1, 100_000),
      maxConcurrentReadsPerUser: r.int('MAX_CONCURRENT_READS_PER_USER', DEFAULT_LIMITS.maxConcurrentReadsPerUser, 1, 1000),
      storageQuotaBytes: r.int('STORAGE_QUOTA_BYTES', DEFAULT_LIMITS.storageQuotaBytes, 0, Number.MAX_SAFE_INTEGER),
      maxConcurrentUploads: r.int('MAX_CONCURRENT_UPLOADS', DEFAULT_LIMITS.maxConcurrentUploads, 1, 1000),
      uploadWaitMs: r.int('UPLOAD_WAIT_MS', DEFAULT_LIMITS.uploadWaitMs, 100, 3_600_000),
    },
    apiKeyCacheMs: r.int('API_KEY_CACHE_MS', 5000, 0, 5000),
    trustProxy: r.int('TRUST_PROXY', 0, 0, 10),
    shutdownTimeoutMs: r.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    server: serverLimitsConfig(r),
    retentionDays: r.int('RETENTION_DAYS', 30, 0, 36_500),
    readBudgetMs: r.int('READ_BUDGET_MS', 10_000, 100, 3_600_000),
    streamBudgetMs: r.int('STREAM_BUDGET_MS', 120_000, 100, 3_600_000),
    readWorkers: r.int('READ_WORKERS', 2, 0, 64),
    documentThreads: r.int('DOCUMENT_THREADS', 1, 1, 64),
    documentLeaseMs: r.int('DOCUMENT_LEASE_MS', 60_000, 3_000, 3_600_000),
    adapters: adapterConfig(r),
    chunking: chunkingConfig(r),
    embeddings: embeddingsConfig(r),
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}
