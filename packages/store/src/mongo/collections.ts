import type { Binary, Collection, Db } from 'mongodb';
import type { LogLevel, Role } from '@lantern/domain';
import type { Access } from './access.js';
import type { Sequence } from './counters.js';
import type { ChunkInput } from '../port.js';
import type { Guard } from './errors.js';
import type { PostingDoc, PostingListDoc } from './postings.js';

/**
 * The documents of the MongoDB store, one interface per collection. Instants are BSON dates (TTL indexes need
 * them; they sort and compare like the epoch milliseconds of the port). Integer ids of organizations, projects
 * and applications come from `counters`; ordering sequences (`seq`) too, where the port orders by creation.
 *
 * Span and log payloads are kept as the JSON text the port received (`data`), as the SQLite store does: the
 * fields clients send are theirs to name, and names with dots or a leading `$` are not storable in every MongoDB
 * operation; JSON also gives back exactly what was stored (integers stay integers, nulls stay nulls).
 */

export interface CounterDoc {
  _id: string;
  seq: number;
}

export interface UserDoc {
  _id: string;
  email: string;
  /** The unique key: emails are compared case-insensitively. */
  emailLower: string;
  name: string;
  passwordHash: string;
  createdAt: Date;
  /** The `ver` claim of the user's tokens; absent (0) in users stored before it existed. */
  tokenVersion?: number;
  /**
   * The organizations they created, ever (MAX_ORGANIZATIONS_PER_USER): taken by a conditional `$inc` before the
   * creation. Absent in users stored before it: the first creation counts their organizations once.
   */
  organizationsCreated?: number;
}

export interface OrganizationDoc {
  _id: number;
  name: string;
  createdAt: Date;
  /** The creator's user id; absent in organizations created before it was kept (every owner is equal there). */
  createdBy?: string;
  /** A lease on the organization's memberships while an owner changes one (members.ts): its holder and end. */
  lock?: string;
  lockUntil?: Date;
}

export interface InvitationDoc {
  /** `invitationKey(organizationId, emailLower)`: one pending invitation per organization and email. */
  _id: string;
  /** The invitation's public id, new each time it is (re)issued. */
  id: string;
  organizationId: number;
  emailLower: string;
  role: Role;
  invitedBy: string;
  createdAt: Date;
  /** A TTL index removes it once past. */
  expiresAt: Date;
}

export interface MembershipDoc {
  /** `memberKey(organizationId, userId)`: one membership per pair. */
  _id: string;
  organizationId: number;
  userId: string;
  role: Role;
}

export interface ProjectDoc {
  _id: number;
  organizationId: number;
  name: string;
}

export interface ApplicationDoc {
  _id: number;
  projectId: number;
  name: string;
  /**
   * Its unrevoked API keys, counted by createApiKey (a conditional `$inc`, so the cap holds across processes) and
   * revokeApiKey. Absent on applications created before the counter: the first creation counts the keys once.
   */
  activeKeys?: number;
}

export interface ApiKeyDoc {
  _id: string;
  seq: number;
  applicationId: number;
  projectId: number;
  name: string;
  prefix: string;
  hash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface SpanDoc {
  /** `spanKey(applicationId, traceId, spanId)`: the first version of a span stays. */
  _id: string;
  /** The `_id` of the span's trace record. */
  traceKey: string;
  applicationId: number;
  projectId: number;
  traceId: string;
  spanId: string;
  ts: Date;
  parentSpanId: string | null;
  /** `requestMethod` starts with `controller:` (a request handled by the application). */
  controller: boolean;
  durationMs: number | null;
  status: number | null;
  data: string;
  /** Whether the metrics rollups count this span as an entry (see rollup-ops.ts); absent in spans written before. */
  counted?: boolean;
  /** Set on a controller span once a span of its own application is stored as its parent: never counted again. */
  parentSeen?: boolean;
  /** A rollup operation under way that flips `counted` (see rollup-ops.ts). */
  op?: string;
  /**
   * A controller span's operationOf ('' without a name), counted in the per-operation rollups
   * (../operation-rollups.ts); absent in spans stored before them, which they never count.
   */
  operation?: string;
  /**
   * Who called a controller span with a parent (the service map, call-ops.ts): -1 while its parent is stored in no
   * application yet (waiting), 0 when the parent is of its own application (no call), else the calling
   * application, set by the operation that counts the call. Absent on other spans, and on spans stored before.
   */
  callerApp?: number;
  /**
   * Present while its call is open (indexed, `call_open`): '' waiting for its parent, else the call operation under
   * way on it, which counts its call in or out (call-ops.ts).
   */
  callOp?: string;
  /** Whether the call rollups count its call (flipped by a call operation, as `counted` by a rollup operation). */
  callCounted?: boolean;
}

/** 2: a span without parent; 1: a controller span whose parent is in another application; 0: none yet. */
export type RootRank = 0 | 1 | 2;

export interface TraceDoc {
  /** `traceKey(applicationId, traceId)`: one record per application and trace. */
  _id: string;
  /** The record's public id (a UUID), second key of the newest-first order. */
  id: string;
  projectId: number;
  applicationId: number;
  traceId: string;
  /** The earliest span's instant. */
  ts: Date;
  rootRank: RootRank;
  rootTs: Date | null;
  rootDurationMs: number | null;
  rootStatus: number | null;
  /**
   * The root span's `requestURL` (null: no root, or a root without one), for the `url` filter. Absent in records
   * written before the field existed: the reader then finds the root among the record's spans (see traces.ts).
   */
  rootUrl?: string | null;
  /**
   * The root span's serviceOf and operationOf (@lantern/domain span-names.ts), for the `service` and `operation`
   * filters (null: no root, or a root without one). Absent in records written before the fields existed, until the
   * background backfill reaches them (trace-names.ts).
   */
  rootService?: string | null;
  rootOperation?: string | null;
  /**
   * The attribute hashes of the record's spans (../attribute-pairs.ts), for the `attr` filter: the key-value pairs'
   * (multikey index project_attrs_ts), and the keys' (tested on the records found otherwise), at most
   * MAX_RECORD_PAIRS in all. Absent in records written before the fields existed, until the background backfill
   * reaches them (trace-attrs.ts).
   */
  attrs?: number[];
  attrKeys?: number[];
  /** True once `attrs` and `attrKeys` hold every stored span's hashes: set on insert, and by the backfill on older records. */
  attrsComplete?: true;
}

export interface LogDoc {
  /** The log's id, assigned at ingest. */
  _id: string;
  projectId: number;
  applicationId: number;
  traceId?: string;
  level: LogLevel;
  ts: Date;
  /**
   * The log's `message` (also in `data`), for the `q` filter: `data` is JSON text, which a query cannot look
   * into. Absent in logs written before the field existed: the reader then takes it from `data` (see logs.ts).
   */
  message?: string | null;
  /**
   * Its number among its project's indexed logs, set by the log indexer (log-indexer.ts) when it takes the log into
   * a segment of the `q` filter's index (log-segments.ts): the log's block is `seq / BLOCK_LOGS`, its position in
   * the block the rest. Absent until then.
   */
  seq?: number;
  /**
   * True from the write until the log indexer has written its segment (log-indexer.ts): every search reads the
   * pending logs on their own index (log-search.ts).
   */
  gramsPending?: true;
  /**
   * The log's attribute hashes (../attribute-pairs.ts logPairs), for the `attr` filter: its key-value pairs are
   * posting keys of its segment (log-postings.ts attributeKey), and every term is tested on this list. Absent in
   * logs written before the field existed: `attr` does not find them (docs/api.md).
   */
  attrs?: number[];
  data: string;
}

/** A part of a log segment: a range of `seq` (up to 512 logs of one step) and the time its logs span. */
export interface SegmentPart {
  seq: number;
  end: number;
  minTs: Date;
  maxTs: Date;
}

/**
 * A segment of a project's log search index (log-segments.ts): the postings of the logs numbered `seq` to `end - 1`,
 * all in one block. `_id` is `<projectId>|<key>`.
 */
export interface LogSegmentDoc extends SegmentPart {
  _id: string;
  projectId: number;
  block: number;
  key: string;
  /** building: its postings are being written (`at`: when, the lease); ready: searched; merged: replaced (`at`: when). */
  state: 'building' | 'ready' | 'merged';
  at: Date;
  /**
   * Its parts, each with its time range (a search orders its reads by them): a segment's logs 512 at a time
   * (absent: one part, itself), a merge's its segments' parts (at most MAX_PARTS, neighbours joined beyond). And
   * a merge's, until they are marked merged, the segments it replaces.
   */
  parts?: SegmentPart[];
  covers?: string[];
}

/** The posting keys (trigrams and levels) a segment wrote, a chunk of them: `_id` `<segment _id>|<chunk, 6 digits>`. */
export interface LogSegmentKeysDoc {
  _id: string;
  keys: string[];
}

/** The positions of one posting key's logs in one segment (log-postings.ts); `_id` by log-segments.ts postingId. */
export interface LogPostingDoc {
  _id: string;
  b: Binary;
}

/** The metrics rollup of one application and minute: its entry spans' count, errors and latency sketch. */
export interface RollupDoc {
  /** `rollupKey(applicationId, minute ms)`. */
  _id: string;
  projectId: number;
  applicationId: number;
  /** The minute's start. */
  minute: Date;
  requests: number;
  errors: number;
  /** The sketch's zero bucket, and its other buckets by key (`$inc` per bucket merges concurrent writers). */
  zeros: number;
  b: Record<string, number>;
  /** The last rollup operations applied to this document, so that completing one again changes nothing. */
  ops: string[];
}

/**
 * The metrics rollup of one application and hour: the sum of its minute documents, kept beside them by the same
 * updates (rollups.ts), so that long windows read an hour in one document.
 */
export interface HourRollupDoc extends Omit<RollupDoc, 'minute'> {
  /** The hour's start. */
  hour: Date;
  /**
   * Set by the purge on the hour its cut-off falls in: the minute documents before it went, this document still
   * counts them, so reads take that hour from the minute documents.
   */
  partialBefore?: Date;
}

/**
 * The per-operation metrics rollups (../operation-rollups.ts): the same as RollupDoc and HourRollupDoc, of one
 * application, minute or hour, and operation (OTHER_OPERATIONS, '', for the names the hour does not keep), kept
 * by the same updates (rollups.ts). `_id`: `operationRollupKey(applicationId, start ms, operation)`.
 */
export interface OperationRollupDoc extends RollupDoc {
  operation: string;
}
export interface OperationHourRollupDoc extends HourRollupDoc {
  operation: string;
}

/**
 * The calls between applications (../call-rollups.ts): the same as RollupDoc and HourRollupDoc, of one called
 * application (`applicationId`), calling application and minute or hour, kept by the same updates (rollups.ts).
 * `_id`: `callRollupKey(applicationId, start ms, callerId)`.
 */
export interface CallRollupDoc extends RollupDoc {
  callerId: number;
}
export interface CallHourRollupDoc extends HourRollupDoc {
  callerId: number;
}

/**
 * The operation names an application's hour keeps in the per-operation rollups (operation-names.ts): the first
 * MAX_OPERATIONS_PER_HOUR it saw, only ever added to. `_id`: `rollupKey(applicationId, hour ms)`.
 */
export interface OperationNamesDoc {
  _id: string;
  projectId: number;
  applicationId: number;
  /** The hour's start. */
  hour: Date;
  names: string[];
}

export interface IdempotencyKeyDoc {
  /** `idempotencyKey(applicationId, kind, key)`. */
  _id: string;
  applicationId: number;
  kind: 'spans' | 'logs';
  key: string;
  /** When the key was last accepted (the batch's receivedAt). */
  createdAt: Date;
}

export interface TenantDoc {
  _id: string;
  seq: number;
  organizationId: number;
  name: string;
}

export interface DocumentDoc {
  _id: string;
  seq: number;
  tenantId: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  status: string;
  createdAt: Date;
  objectKey: string;
  /** Processing (ai-processing.ts): times taken, the current claim and its lease. */
  attempts?: number;
  claim?: string;
  leaseUntil?: Date;
  /** When ready. */
  chunkCount?: number;
  /** When ready: the words of all its chunks (BM25's average chunk length, chunk-search.ts). */
  chunkWords?: number;
  /** When ready: the layout its postings were written with (postings.ts POSTINGS_LAYOUT); searched only when current. */
  postingsLayout?: number;
  characters?: number;
  pages?: number;
  /** When failed. */
  error?: { code: string; message: string };
  /**
   * When ready (or queued again by requeueOutdated): the claim whose chunks are the document's (others are
   * leftovers, never searched).
   */
  chunksClaim?: string;
  /** What its chunks were made with (absent: processing.ts UNRECORDED_SETTINGS). */
  processedWith?: { chunkTokens: number; chunkOverlap: number; embeddingModel: string };
}

/** One chunk of a document's text (ai-processing.ts): `_id` is the document id, the claim and the chunk's index. */
export interface ChunkDoc extends Omit<ChunkInput, 'vector'> {
  _id: string;
  documentId: string;
  tenantId: string;
  /** The claim whose completion wrote it: a completion that lost its claim takes back only its own. */
  claim: string;
  /** Its embedding (unit length), when semantic search is on. */
  vector?: number[];
}

/** One fixed window of a rate limit (limits.ts): `_id` is the key and the window's start. */
export interface RateWindowDoc {
  _id: string;
  count: number;
  /** The window's end: the TTL index removes the document after it. */
  expiresAt: Date;
}

export interface Collections {
  counters: Collection<CounterDoc>;
  users: Collection<UserDoc>;
  organizations: Collection<OrganizationDoc>;
  memberships: Collection<MembershipDoc>;
  projects: Collection<ProjectDoc>;
  applications: Collection<ApplicationDoc>;
  apiKeys: Collection<ApiKeyDoc>;
  invitations: Collection<InvitationDoc>;
  spans: Collection<SpanDoc>;
  traces: Collection<TraceDoc>;
  logs: Collection<LogDoc>;
  logSegments: Collection<LogSegmentDoc>;
  logPostings: Collection<LogPostingDoc>;
  logSegmentKeys: Collection<LogSegmentKeysDoc>;
  idempotencyKeys: Collection<IdempotencyKeyDoc>;
  rollups: Collection<RollupDoc>;
  rollupHours: Collection<HourRollupDoc>;
  operationRollups: Collection<OperationRollupDoc>;
  operationRollupHours: Collection<OperationHourRollupDoc>;
  operationNames: Collection<OperationNamesDoc>;
  callRollups: Collection<CallRollupDoc>;
  callRollupHours: Collection<CallHourRollupDoc>;
  tenants: Collection<TenantDoc>;
  documents: Collection<DocumentDoc>;
  chunks: Collection<ChunkDoc>;
  postings: Collection<PostingDoc>;
  postingLists: Collection<PostingListDoc>;
  rateWindows: Collection<RateWindowDoc>;
}

export const COLLECTION_NAMES = [
  'counters', 'users', 'organizations', 'memberships', 'projects', 'applications', 'apiKeys', 'invitations', 'spans', 'traces', 'logs',
  'logSegments', 'logPostings', 'logSegmentKeys', 'idempotencyKeys', 'rollups', 'rollupHours', 'operationRollups', 'operationRollupHours',
  'operationNames', 'callRollups', 'callRollupHours', 'tenants', 'documents', 'chunks', 'postings', 'postingLists', 'rateWindows',
] as const satisfies readonly (keyof Collections)[];

export function collectionsOf(db: Db): Collections {
  const entries = COLLECTION_NAMES.map((name) => [name, db.collection(name)] as const);
  return Object.fromEntries(entries) as unknown as Collections;
}

// Composite keys as JSON arrays: unambiguous whatever the ids contain (a trace id with a colon cannot make two
// keys collide), and still readable in a shell.
export const traceKey = (applicationId: number, traceId: string): string => JSON.stringify([applicationId, traceId]);
export const spanKey = (applicationId: number, traceId: string, spanId: string): string =>
  JSON.stringify([applicationId, traceId, spanId]);
export const rollupKey = (applicationId: number, minute: number): string => JSON.stringify([applicationId, minute]);
export const operationRollupKey = (applicationId: number, start: number, operation: string): string =>
  JSON.stringify([applicationId, start, operation]);
export const callRollupKey = (calleeId: number, start: number, callerId: number): string => JSON.stringify([calleeId, start, callerId]);
export const idempotencyKeyId = (applicationId: number, kind: string, key: string): string => JSON.stringify([applicationId, kind, key]);
/** The organization id is an integer, so the first colon always ends it: unambiguous. */
export const memberKey = (organizationId: number, userId: string): string => `${organizationId}:${userId}`;
export const invitationKey = (organizationId: number, emailLower: string): string => JSON.stringify([organizationId, emailLower]);

/** What the accounts and AI parts of the store work with: the collections, the error guard, the membership
 * checks, the id counters and the clock. */
export interface RecordStoreDeps {
  c: Collections;
  guard: Guard;
  access: Access;
  next: (sequence: Sequence) => Promise<number>;
  now: () => number;
}
