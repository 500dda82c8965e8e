import { LOG_LEVELS } from '@lantern/domain';
import type { QuantileSketch } from '@lantern/domain';
import type { AttributeFilter } from './attribute-pairs.js';
import type {
  ApiKey, Application, DocumentFailure, DocumentRecord, Invitation, LogBatchMessage, LogEntry, LogLevel, Member, Membership, Organization, PendingInvitation,
  Project, Role, SpanBatchMessage, Tenant, TraceRecord, User,
} from '@lantern/domain';

/**
 * The store port. Every read a user makes takes that user's id and returns only what the user may see:
 * tenant isolation is enforced in the queries themselves, not only in the routes.
 * Adapters throw `AppError` conflict (409) for duplicates named below and `AppError` unavailable (503) when
 * the backing system is down. All methods are async, whatever the adapter.
 */

export interface StoredUser extends User {
  passwordHash: string;
  /** Tokens carry it (`ver`); raising it revokes every earlier token. 0 for a new user. */
  tokenVersion: number;
}

/**
 * The outcome of an owner's change to a membership. `forbidden`: the actor is not an owner (or is changing the
 * creator, who alone may lower their own role); `not_found`: the actor is not a member, or the target is not;
 * `last_owner`: the organization would be left without an owner.
 */
/** A new API key of an application: its project must be the application's own. */
export interface ApiKeyInput {
  applicationId: number;
  projectId: number;
  name: string;
  prefix: string;
  hash: string;
}

export type MemberChange = 'done' | 'forbidden' | 'not_found' | 'last_owner';

export interface StoredApiKey extends ApiKey {
  revokedAt: string | null;
}

export interface AccountsStore {
  /** Conflict when the email (compared case-insensitively) is taken. */
  createUser(input: { email: string; name: string; passwordHash: string }): Promise<User>;
  findUserByEmail(email: string): Promise<StoredUser | null>;
  getUser(id: string): Promise<User | null>;
  /** The user with the password hash and token version. */
  getStoredUser(id: string): Promise<StoredUser | null>;
  /** The user's current token version; null if no such user. */
  getTokenVersion(userId: string): Promise<number | null>;
  /** Raises the token version by one (every earlier token is revoked); the new version, or null if no such user. */
  revokeTokens(userId: string): Promise<number | null>;
  /**
   * Replaces the password hash only if it is still `expected` (a concurrent change wins). With `revokeTokens`, the
   * token version rises in the same write. The token version after, or null if the hash was not `expected`.
   */
  setPasswordHash(userId: string, expected: string, next: string, options: { revokeTokens: boolean }): Promise<number | null>;
  /** True once any user exists (the embedded start says so when the store is empty). */
  hasUsers(): Promise<boolean>;
  /** Creates the organization and makes `ownerId` its owner and creator, in one step. */
  createOrganization(input: { name: string; ownerId: string }): Promise<Organization>;
  /**
   * Creates the organization only if `ownerId` has created fewer than `maxCreated` so far (all they ever created:
   * deleting or leaving one does not give it back); null if they have created that many. The count and the
   * creation are one atomic step, across processes too.
   */
  createOrganization(input: { name: string; ownerId: string }, limit: { maxCreated: number }): Promise<Organization | null>;
  listMemberships(userId: string): Promise<Membership[]>;
  getRole(organizationId: number, userId: string): Promise<Role | null>;
  /** Adds the member, or changes the role of an existing one. No rule is checked: routes use the methods below. */
  addMember(organizationId: number, userId: string, role: Role): Promise<void>;
  /** The members of the organization by user id, if `userId` is one of them; else []. */
  listMembers(organizationId: number, userId: string): Promise<Member[]>;
  /**
   * `actorId` sets `targetId`'s role. Allowed to an owner, on anyone but the creator; the creator on themselves.
   * Never leaves the organization without an owner. Checked and written atomically. An owner who stops being one
   * (demoted or removed) loses the pending invitations they sent.
   */
  changeRole(organizationId: number, actorId: string, targetId: string, role: Role): Promise<MemberChange>;
  /** `actorId` removes `targetId`: the same rules as changeRole, and any member may remove themselves (leave). */
  removeMember(organizationId: number, actorId: string, targetId: string): Promise<MemberChange>;
  /**
   * An invitation of `email` (compared case-insensitively) to the organization with `role`, valid for `ttlMs`; a
   * pending one for the same email and organization is replaced. Works the same whether the email is registered.
   */
  createInvitation(input: { organizationId: number; email: string; role: Role; invitedBy: string; ttlMs: number }): Promise<Invitation>;
  /** The unexpired invitations of the user's email, oldest first. */
  listInvitations(userId: string): Promise<Invitation[]>;
  /**
   * Accepts an unexpired invitation of the user's email: they become a member with its role (an existing member
   * keeps their role), and the invitation is gone. The membership, or null if there is no such invitation. An
   * invitation counts only while its inviter is an owner of the organization: otherwise it is deleted, and null.
   */
  acceptInvitation(id: string, userId: string): Promise<Membership | null>;
  /** Deletes an invitation of the user's email; false if there is none. */
  declineInvitation(id: string, userId: string): Promise<boolean>;
  /** The organization's unexpired invitations whose inviter is still an owner, oldest first (the caller checks the role). */
  listOrganizationInvitations(organizationId: number): Promise<PendingInvitation[]>;
  /** Withdraws a pending invitation of the organization; false if it has none with that id. */
  deleteOrganizationInvitation(organizationId: number, id: string): Promise<boolean>;
  createProject(input: { name: string; organizationId: number }): Promise<Project>;
  /** The project, only if `userId` is a member of its organization with at least `minRole` (default member). */
  getProject(id: number, userId: string, minRole?: Role): Promise<Project | null>;
  listProjects(organizationId: number, userId: string): Promise<Project[]>;
  createApplication(input: { name: string; projectId: number }): Promise<Application>;
  /** The application, only if `userId` has at least `minRole` (default member) in its organization. */
  getApplication(id: number, userId: string, minRole?: Role): Promise<Application | null>;
  listApplications(projectId: number, userId: string): Promise<Application[]>;
  createApiKey(input: ApiKeyInput): Promise<StoredApiKey>;
  /**
   * Creates the key only if the application has fewer than `maxActive` unrevoked keys; null if it has that many.
   * The count and the creation are one atomic step: parallel creations (from any number of processes) never pass
   * the cap together.
   */
  createApiKey(input: ApiKeyInput, limit: { maxActive: number }): Promise<StoredApiKey | null>;
  /** The keys of the application, only if `userId` is an admin or owner of its organization; else []. */
  listApiKeys(applicationId: number, userId: string): Promise<StoredApiKey[]>;
  /** The key, only if `userId` is an admin or owner of its organization. */
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
  /**
   * Aborted when the read's caller has gone (a client that closed its connection): the store stops the read at
   * its next statement or query, as it would past its budget, and the iterator (or promise) rejects with the
   * signal's reason. Stays on the calling thread (a read worker gets its own).
   */
  signal?: AbortSignal;
}

export interface TraceQuery extends TimeWindow, ReadBudget {
  userId: string;
  projectId: number;
  applicationId?: number;
  traceId?: string;
  /** Root span duration at least this. */
  minDurationMs?: number;
  /** Root span duration at most this. */
  maxDurationMs?: number;
  /** Root span status: an exact code (`404`) or a class (`5xx`): min and max in the same hundred. */
  status?: { min: number; max: number };
  /** The root span's service (serviceOf, @lantern/domain span-names.ts), exactly. */
  service?: string;
  /** The root span's operation (operationOf: `GET /items/:id`, `SELECT orders`), exactly. */
  operation?: string;
  /**
   * Attributes any span of the record carries (attribute-pairs.ts): each `key=value` (compared as text) or `key`
   * (present, whatever its value); all of them.
   */
  attributes?: readonly AttributeFilter[];
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
  /** Any of these levels (several at once); with `level` too, the union. See levelsOf. */
  levels?: readonly LogLevel[];
  /** `message` contains this text: literal, ASCII letters compared without regard to case (as `urlContains`). */
  messageContains?: string;
  /** Attributes of the log (attribute-pairs.ts logPairs): each `key=value` (compared as text) or `key` (present); all of them. */
  attributes?: readonly AttributeFilter[];
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
  /**
   * The operation the per-operation rollups count it under (its operationOf when it was written, '' without a
   * name); null for a span stored before those rollups, which they do not count.
   */
  operation: string | null;
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
  /** Cells per (application, operation, bucket), from the per-operation rollups (operation-rollups.ts). */
  byOperation?: boolean;
  /**
   * Cells per (called application, calling application, bucket): the calls between applications (call-rollups.ts),
   * entry spans whose parent is a span of another application.
   */
  byCaller?: boolean;
}

/** The log volume of a project's window (GET /logs/volume): counts per bucket, application and level. */
export interface LogVolumeQuery extends ReadBudget {
  userId: string;
  projectId: number;
  applicationId?: number;
  /** Only these levels; all when absent. */
  levels?: readonly LogLevel[];
  /** Inclusive, epoch ms, a whole minute. */
  from: number;
  /** Exclusive, epoch ms, a whole minute. */
  to: number;
  /** The width of a bucket: whole minutes. */
  bucketMs: number;
}

/** How many logs of one application and level a bucket holds (buckets without logs are left out). */
export interface LogVolumeCell {
  /** The bucket's start, epoch ms. */
  start: number;
  applicationId: number;
  level: LogLevel;
  count: number;
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
  /**
   * With `byOperation`: the operation; null for the application's other operations (past the names an hour keeps,
   * MAX_OPERATIONS_PER_HOUR, or without a name).
   */
  operation?: string | null;
  /** With `byCaller`: the calling application; `applicationId` is the called one, `requests` the calls. */
  callerApplicationId?: number;
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
   * without requests are left out. By application, then bucket. With `byOperation`, per application, operation
   * and bucket, from the per-operation rollups (the spans that carry an operation), by application, operation
   * (null last), then bucket.
   */
  readMetrics(query: MetricsQuery): Promise<MetricsCell[]>;
  /**
   * The logs of a visible project's window counted per bucket, application and level, by the time a log carries
   * (its `timestamp`); a project the user cannot see has none. By bucket, then application, then level.
   */
  readLogVolume(query: LogVolumeQuery): Promise<LogVolumeCell[]>;
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
  /**
   * A document the user can see, or one of theirs withdrawn by a delete that has not finished (its record still
   * there): what a DELETE, or its retry, works on. Null otherwise.
   */
  getDocumentToDelete(id: string, userId: string): Promise<StoredDocument | null>;
  /**
   * The first steps of a delete (services/ai delete.ts): the document marked `deleting`, so that from then on no
   * list, lookup, dedupe, quota or search sees it and a worker processing it loses its claim and keeps nothing;
   * then its chunks and their index entries removed. The mark holds off abandonedDeletes until `graceMs` after the
   * chunks are gone, renewed as they go (marking again restarts it). False if there is no such record. Safe to run again.
   */
  withdrawDocument(id: string, graceMs: number): Promise<boolean>;
  /**
   * The last step of a delete, once the object is gone: the withdrawn document's record (and any chunk left)
   * removed. True if this call removed it; false if it is not there or not withdrawn.
   */
  removeDocument(id: string): Promise<boolean>;
}

/** A piece of a document's text as the index keeps it (packages/extract's chunks). */
export interface ChunkInput {
  index: number;
  text: string;
  /** [start, end) in the document's text, UTF-16 units. */
  start: number;
  end: number;
  /** A PDF's pages the chunk spans, from 1. */
  pages?: [number, number];
  /** Where in `text` each page after the first begins (a chunk spanning pages). */
  pageBreaks?: number[];
  /** Its embedding, unit length, when semantic search is on (never part of a search hit). */
  vector?: Float32Array;
}

/**
 * What a ready document's chunks were made with: the chunking (tokens per chunk, overlap) and the embedding model, if
 * any. A document completed without it counts as made with UNRECORDED_SETTINGS (processing.ts).
 */
export interface ProcessingSettings {
  chunkTokens: number;
  chunkOverlap: number;
  /** The embedding model (and its dimensions, if asked for) whose vectors the chunks carry; absent: no vectors. */
  embeddingModel?: string;
}

/** The nearest chunks to a query's embedding, by cosine. */
export interface VectorSearch {
  userId: string;
  tenantId: string;
  /** Unit length: only chunk vectors of the same length are compared. */
  vector: Float32Array;
  limit: number;
  documentIds?: string[];
}

/** A document taken for processing: `claim` identifies this take; the lease must be renewed while it lasts. */
export interface DocumentClaim {
  document: StoredDocument;
  claim: string;
  /** 1 for the first take, 2 after a lease ran out, ... */
  attempt: number;
}

export interface ChunkSearch {
  userId: string;
  tenantId: string;
  /** The query's words, folded (packages/domain searchTerms); a chunk matches when it holds any of them. */
  terms: string[];
  limit: number;
  /** Only these documents of the tenant. */
  documentIds?: string[];
}

export interface ChunkHit extends Omit<ChunkInput, 'vector'> {
  documentId: string;
  filename: string;
  /**
   * The index's relevance (BM25 on both stores; SQLite's statistics are the whole index's, MongoDB's the
   * tenant's): higher is better. For nearestChunks, the cosine similarity to the query's vector.
   */
  score: number;
}

/**
 * The processing of uploaded documents (issue 15): a queue in the documents themselves, taken with leases so that
 * a worker that dies leaves its document to another, and the chunks of ready documents with their lexical index.
 */
export interface ProcessingStore {
  /**
   * Takes the oldest document waiting: `stored`, or `processing` whose lease has run out. It becomes `processing`
   * under a new claim, its attempts counted, leased for `leaseMs`. A document waiting whose attempts reached
   * `maxAttempts` is `failed` instead (`timeout`: processing stopped that many times without finishing), and the
   * next one is looked at. Null when none waits. Two workers never hold the same document.
   */
  claimDocument(input: { leaseMs: number; maxAttempts: number }): Promise<DocumentClaim | null>;
  /** Extends the lease of a claim still held; false when it is lost (taken over, reprocessed, deleted). */
  renewClaim(documentId: string, claim: string, leaseMs: number): Promise<boolean>;
  /**
   * Under a claim still held: the document `ready` with its counts, its chunks stored (and indexed) in place of
   * any before. False when the claim is lost: then nothing of it is kept.
   */
  completeDocument(documentId: string, claim: string, result: { characters: number; pages?: number; chunks: ChunkInput[]; settings?: ProcessingSettings }): Promise<boolean>;
  /** Under a claim still held: the document `failed` with the reason. False when the claim is lost. */
  failDocument(documentId: string, claim: string, error: DocumentFailure): Promise<boolean>;
  /**
   * A document the user can see back to `stored`: its chunks gone from search, its attempts and error cleared, any
   * claim on it lost. Null when the user cannot see it.
   */
  reprocessDocument(id: string, userId: string): Promise<StoredDocument | null>;
  /**
   * The chunks of the tenant's `ready` documents (a tenant the user can see) holding the terms, best first. A
   * document queued again by requeueOutdated is out of search until it is ready again (contract.md).
   */
  searchChunks(query: ChunkSearch): Promise<ChunkHit[]>;
  /** The chunks of the tenant's `ready` documents whose vectors are nearest the query's (cosine), best first. */
  nearestChunks(query: VectorSearch): Promise<ChunkHit[]>;
  /**
   * Every `ready` document whose chunks were made with other settings than `current` back to `stored` (attempts
   * cleared) to be processed again; its chunks stay, out of search, until the new ones replace them (a failure or a
   * reprocess removes them). How many were queued.
   */
  requeueOutdated(current: ProcessingSettings): Promise<number>;
  /**
   * Up to `limit` documents withdrawn more than their grace ago whose delete never finished (the process stopped,
   * the object store failed): for a worker to finish (services/ai delete.ts).
   */
  abandonedDeletes(limit: number): Promise<Array<Pick<StoredDocument, 'id' | 'objectKey'>>>;
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

export interface Store extends AccountsStore, TelemetryStore, AiStore, ProcessingStore, LimitsStore {
  /** Throws if the store cannot answer (for /readyz). */
  ping(): Promise<void>;
  /** Deletes telemetry older than the cut-off (epoch ms); returns how many records went. */
  purgeTelemetryBefore(cutoffMs: number): Promise<number>;
  close(): Promise<void>;
}

/** The levels a log read keeps: `level` and `levels` together, each once, in the contract's order; undefined: all. */
export function levelsOf(query: Pick<LogQuery, 'level' | 'levels'>): LogLevel[] | undefined {
  if (query.level === undefined && query.levels === undefined) return undefined;
  const wanted = new Set<LogLevel>([...(query.levels ?? []), ...(query.level === undefined ? [] : [query.level])]);
  return LOG_LEVELS.filter((l) => wanted.has(l));
}
