import type { QuantileSketch } from '@lantern/domain';
import type {
  ApiKey, Application, DocumentRecord, LogBatchMessage, LogEntry, LogLevel, Membership, Organization, Project, Role,
  SpanBatchMessage, Tenant, TraceRecord, User,
} from '@lantern/domain';

/**
 * The store port. Every read a user makes takes that user's id and returns only what the user may see:
 * tenant isolation is enforced in the queries themselves, not only in the routes.
 * Adapters throw `AppError` conflict (409) for duplicates named below and `AppError` unavailable (503) when
 * the backing system is down. All methods are async, whatever the adapter.
 */

export interface StoredUser extends User {
  passwordHash: string;
}

export interface StoredApiKey extends ApiKey {
  revokedAt: string | null;
}

export interface AccountsStore {
  /** Conflict when the email (compared case-insensitively) is taken. */
  createUser(input: { email: string; name: string; passwordHash: string }): Promise<User>;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  getUser(id: string): Promise<User | null>;
  /** True once any user exists (the embedded start says so when the store is empty). */
  hasUsers(): Promise<boolean>;
  /** Creates the organization and makes `ownerId` its owner, in one step. */
  createOrganization(input: { name: string; ownerId: string }): Promise<Organization>;
  listMemberships(userId: string): Promise<Membership[]>;
  getRole(organizationId: number, userId: string): Promise<Role | null>;
  /** Adds the member, or changes the role of an existing one. */
  addMember(organizationId: number, userId: string, role: Role): Promise<void>;
  createProject(input: { name: string; organizationId: number }): Promise<Project>;
  /** The project, only if `userId` is a member of its organization. */
  getProject(id: number, userId: string): Promise<Project | null>;
  listProjects(organizationId: number, userId: string): Promise<Project[]>;
  createApplication(input: { name: string; projectId: number }): Promise<Application>;
  getApplication(id: number, userId: string): Promise<Application | null>;
  listApplications(projectId: number, userId: string): Promise<Application[]>;
  createApiKey(input: { applicationId: number; projectId: number; name: string; prefix: string; hash: string }): Promise<StoredApiKey>;
  listApiKeys(applicationId: number, userId: string): Promise<StoredApiKey[]>;
  getApiKey(id: string, userId: string): Promise<StoredApiKey | null>;
  /** Marks the key revoked (idempotent); returns false if no such key. */
  revokeApiKey(id: string): Promise<boolean>;
  /** The key with this hash, revoked or not (the caller checks `revokedAt`). */
  findApiKeyByHash(hash: string): Promise<StoredApiKey | null>;
}

/** Newest-first keyset position: (timestamp ms, record id). */
export interface Cursor {
  ts: number;
  id: string;
}

export interface TimeWindow {
  /** Inclusive lower bound, epoch ms. */
  from?: number;
  /** Exclusive upper bound, epoch ms. */
  to?: number;
}

/** Every read carries its time budget (docs/api.md, "Read budgets"). */
export interface ReadBudget {
  /**
   * Milliseconds this read may take, counted from the call. Past it the store stops the read and throws
   * `errors.readTimeout(budgetMs)` (503 `read_timeout`), from the promise or from the iterator. Absent: unbounded.
   */
  budgetMs?: number;
}

export interface TraceQuery extends TimeWindow, ReadBudget {
  userId: string;
  projectId: number;
  applicationId?: number;
  traceId?: string;
  /** Root span duration at least this. */
  minDurationMs?: number;
  /** Root span status: an exact code (`404`) or a class (`5xx`). */
  status?: { min: number; max: number };
  /**
   * Root span `requestURL` contains this text: literal (no wildcards, no pattern), ASCII letters compared
   * without regard to case, every other character exactly. A record without root, or whose root has no
   * `requestURL`, never matches.
   */
  urlContains?: string;
  limit?: number;
  cursor?: Cursor;
}

export interface LogQuery extends TimeWindow, ReadBudget {
  userId: string;
  projectId?: number;
  applicationId?: number;
  traceId?: string;
  level?: LogLevel;
  /** `message` contains this text: literal, ASCII letters compared without regard to case (as `urlContains`). */
  messageContains?: string;
  limit?: number;
  cursor?: Cursor;
}

export interface RootSpanQuery extends Required<TimeWindow>, ReadBudget {
  userId: string;
  projectId?: number;
  applicationId?: number;
}

export interface RootSpanRow {
  projectId: number;
  applicationId: number;
  /** Epoch ms. */
  ts: number;
  durationMs: number;
  responseStatus: number | null;
}

export interface MetricsQuery extends ReadBudget {
  userId: string;
  projectId?: number;
  applicationId?: number;
  /** Inclusive, epoch ms, a whole minute. */
  from: number;
  /** Exclusive, epoch ms, a whole minute. */
  to: number;
  /** The width of a cell: whole minutes. */
  bucketMs: number;
}

/** The entry spans of one application in one bucket, merged from the per-minute rollups. */
export interface MetricsCell {
  projectId: number;
  applicationId: number;
  /** The bucket's start, epoch ms: `from + i * bucketMs`. */
  bucket: number;
  requests: number;
  /** Of them, with responseStatus >= 500. */
  errors: number;
  /** Their durationMs (a missing one counts as 0). */
  sketch: QuantileSketch;
}

export interface TelemetryStore {
  /**
   * Stores spans idempotently: one span per (applicationId, spanId); spans join the trace record of
   * (applicationId, traceId). A batch whose idempotencyKey was stored for the same application within 24 h
   * is skipped. All or nothing.
   */
  writeSpans(batch: SpanBatchMessage): Promise<void>;
  /** Stores logs idempotently by their id; same idempotencyKey rule. All or nothing. */
  writeLogs(batch: LogBatchMessage): Promise<void>;
  /**
   * `writeSpans` of each batch, in order: what the writer calls with the batches the bus delivered together.
   * An adapter with transactions stores them in one (a group commit: one commit for many requests' batches,
   * all or nothing); the others may write them as one group, each step once for all the batches (the MongoDB
   * adapter: a constant number of round trips per call), convergent on redelivery, storing what the batches one
   * after the other would (a parent and its child in two batches of one group count as in one batch).
   */
  writeSpanBatches(batches: readonly SpanBatchMessage[]): Promise<void>;
  /** `writeLogs` of each batch, in order, as `writeSpanBatches`. */
  writeLogBatches(batches: readonly LogBatchMessage[]): Promise<void>;
  /** Trace records newest first (by timestamp, then id), spans ordered by timestamp. */
  streamTraces(query: TraceQuery): AsyncIterable<TraceRecord>;
  /** Logs newest first (by timestamp, then id), of the projects the user can see. */
  streamLogs(query: LogQuery): AsyncIterable<LogEntry>;
  /**
   * Entry spans in the window, of the projects the user can see: `controller:*` spans without parent, or whose
   * parent is a span of another application (the application was called by another instrumented service).
   */
  streamRootSpans(query: RootSpanQuery): AsyncIterable<RootSpanRow>;
  /**
   * The entry spans of the window (the ones streamRootSpans streams) counted per application and bucket, from
   * rollups kept per (application, minute) as spans are written, of the projects the user can see. Buckets
   * without requests are left out. By application, then bucket.
   */
  readMetrics(query: MetricsQuery): Promise<MetricsCell[]>;
}

export interface StoredDocument extends DocumentRecord {
  objectKey: string;
}

export interface AiStore {
  /** Conflict when the organization already has a tenant of that name. */
  createTenant(input: { name: string; organizationId: number }): Promise<Tenant>;
  listTenants(organizationId: number, userId: string): Promise<Tenant[]>;
  getTenant(id: string, userId: string): Promise<Tenant | null>;
  createDocument(doc: StoredDocument): Promise<StoredDocument>;
  /** Newest first; documents of the same instant, the last stored first. */
  listDocuments(tenantId: string, userId: string): Promise<StoredDocument[]>;
  getDocument(id: string, userId: string): Promise<StoredDocument | null>;
  /** Returns false if no such document. */
  deleteDocument(id: string): Promise<boolean>;
}

/**
 * What the fair limits count (docs/api.md, "Limits"). Internal reads, not scoped to a user: the routes have
 * checked the caller's access first.
 */
export interface LimitsStore {
  /** How many unrevoked keys the application has. */
  countActiveApiKeys(applicationId: number): Promise<number>;
  /** The organization a project belongs to, or null if no such project. */
  findProjectOrganization(projectId: number): Promise<number | null>;
  /** A document of the tenant with these bytes (sha256 in hex), the oldest if several; or null. */
  findDocumentBySha256(tenantId: string, sha256: string): Promise<StoredDocument | null>;
  /** The bytes of every document of every tenant of the organization. */
  organizationStoredBytes(organizationId: number): Promise<number>;
  /**
   * Adds one hit to the fixed window `[windowStart, windowStart + windowMs)` of `key` and returns the window's
   * count with it. Every process using the same store counts in the same windows (MongoDB), so a rate limit
   * holds across processes; the SQLite store, which one process owns, counts in that process's memory. A window
   * is forgotten once it has ended.
   */
  countHit(key: string, windowStart: number, windowMs: number): Promise<number>;
}

export interface Store extends AccountsStore, TelemetryStore, AiStore, LimitsStore {
  /** Throws if the store cannot answer (for /readyz). */
  ping(): Promise<void>;
  /** Deletes telemetry older than the cut-off (epoch ms); returns how many records went. */
  purgeTelemetryBefore(cutoffMs: number): Promise<number>;
  close(): Promise<void>;
}
