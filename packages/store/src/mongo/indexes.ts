import type { Db, IndexDescription } from 'mongodb';
import { IDEMPOTENCY_WINDOW_MS } from '../sqlite/ingest.js';
import type { Collections } from './collections.js';
import { codeOf } from './errors.js';

const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;
const INDEX_NOT_FOUND = 27;

/** Name of the TTL index of a collection (one per data kind). */
export const TTL_INDEX = 'ttl';
const DAY_SECONDS = 24 * 60 * 60;

/**
 * The indexes of every collection, for the reads the port makes. Created at start-up; `createIndexes` with the
 * same specification is a no-op, so every process may run it at every start.
 *  - Telemetry is read by project + time, application + time and trace id, newest first by (ts, id): each of
 *    those is an index whose key ends with the order of the read, so a page is an index range, never a sort.
 *    Several projects at once (`$in` on the first key) are merged from the index ranges by the server.
 *  - Uniqueness the port promises (email, tenant name per organization, key hash) is a unique index: a duplicate
 *    is a duplicate-key error, never a check-then-insert race.
 */
export const INDEXES: { [K in keyof Collections]?: IndexDescription[] } = {
  users: [{ key: { emailLower: 1 }, name: 'emailLower', unique: true }],
  memberships: [
    { key: { userId: 1, organizationId: 1 }, name: 'user_organization' },
    // The members of an organization, and its owners (counted before a role change).
    { key: { organizationId: 1, role: 1 }, name: 'organization_role' },
  ],
  projects: [{ key: { organizationId: 1, _id: 1 }, name: 'organization' }],
  applications: [{ key: { projectId: 1, _id: 1 }, name: 'project' }],
  invitations: [
    { key: { id: 1 }, name: 'id', unique: true },
    { key: { emailLower: 1, createdAt: 1, id: 1 }, name: 'email_created' },
    // An organization's pending invitations (its owners' list), and those an owner sent (taken back on demotion).
    { key: { organizationId: 1, createdAt: 1, id: 1 }, name: 'organization_created' },
    // Expired invitations go by themselves (the reads also skip them until then).
    { key: { expiresAt: 1 }, name: 'expires', expireAfterSeconds: 0 },
  ],
  apiKeys: [
    { key: { hash: 1 }, name: 'hash', unique: true },
    { key: { applicationId: 1, seq: 1 }, name: 'application_seq' },
  ],
  traces: [
    { key: { projectId: 1, ts: -1, id: -1 }, name: 'project_ts' },
    { key: { applicationId: 1, ts: -1, id: -1 }, name: 'application_ts' },
    { key: { traceId: 1, projectId: 1 }, name: 'trace' },
    // The trace filters (issue 19), each in the list's order within its key: a filtered page reads its own range.
    { key: { projectId: 1, rootOperation: 1, ts: -1, id: -1 }, name: 'project_operation_ts' },
    { key: { projectId: 1, rootService: 1, ts: -1, id: -1 }, name: 'project_service_ts' },
    // The failed traces (`5xx`, or a code of it): partial, so only the records that failed pay for it.
    { key: { projectId: 1, ts: -1, id: -1 }, name: 'project_errors_ts', partialFilterExpression: { rootStatus: { $gte: 500 } } },
    // The attribute filter: one entry per (record, hash) of the multikey `attrs`, in the list's order within a hash.
    { key: { projectId: 1, attrs: 1, ts: -1, id: -1 }, name: 'project_attrs_ts' },
  ],
  spans: [
    // The spans of a page of trace records, in the order they are returned.
    { key: { traceKey: 1, ts: 1, spanId: 1 }, name: 'trace_ts' },
    // Entry-span candidates by project and time (streamRootSpans), only controller spans indexed.
    { key: { projectId: 1, ts: 1, _id: 1 }, name: 'controller_project_ts', partialFilterExpression: { controller: true } },
    // The controller spans of a trace by parent (a group's children, rollup-ops.ts), only controller spans indexed:
    // the writer looks them up for every group, and on (traceKey, ts, spanId) that read fetched every span of the
    // group's traces to find the few.
    { key: { traceKey: 1, parentSpanId: 1 }, name: 'controller_trace_parent', partialFilterExpression: { controller: true } },
    // The spans of a rollup operation under way (rollup-ops.ts): few at any time.
    { key: { op: 1 }, name: 'rollup_op', partialFilterExpression: { op: { $exists: true } } },
    // The open calls (call-ops.ts), only those indexed: the spans waiting for their parent ('' first: a writer
    // looks them up by the group's traces and span ids, on the few values of `callOp`), and those of a call
    // operation under way (by its id).
    { key: { callOp: 1, projectId: 1, traceId: 1, parentSpanId: 1 }, name: 'call_open', partialFilterExpression: { callOp: { $exists: true } } },
  ],
  // GET /metrics: the minutes of the visible projects in the window.
  rollups: [{ key: { projectId: 1, minute: 1 }, name: 'project_minute' }],
  // GET /metrics: the whole hours of the visible projects in the window.
  rollupHours: [{ key: { projectId: 1, hour: 1 }, name: 'project_hour' }],
  // GET /metrics/operations: the same, per operation. (The names an hour keeps are read by `_id` alone.)
  operationRollups: [{ key: { projectId: 1, minute: 1 }, name: 'project_minute' }],
  operationRollupHours: [{ key: { projectId: 1, hour: 1 }, name: 'project_hour' }],
  // The service map's calls (`byCaller`): the same.
  callRollups: [{ key: { projectId: 1, minute: 1 }, name: 'project_minute' }],
  callRollupHours: [{ key: { projectId: 1, hour: 1 }, name: 'project_hour' }],
  logs: [
    { key: { projectId: 1, ts: -1, _id: -1 }, name: 'project_ts' },
    { key: { applicationId: 1, ts: -1, _id: -1 }, name: 'application_ts' },
    { key: { projectId: 1, traceId: 1, ts: -1, _id: -1 }, name: 'project_trace_ts', partialFilterExpression: { traceId: { $exists: true } } },
    // The `q` filter's candidates, fetched by their number in the project (log-candidates.ts, log-segments.ts).
    { key: { projectId: 1, seq: 1 }, name: 'project_seq', partialFilterExpression: { seq: { $exists: true } } },
    // The logs the log indexer has not reached yet (log-indexer.ts), few at any time: what it indexes next, and
    // what every search reads beside the postings, newest first (log-search.ts).
    // By number: the unnumbered ones (the null key) are the indexer's to claim, the numbered ones a step left
    // pending (log-indexer.ts clearStuck); few either way, unless the indexer is behind a burst.
    { key: { gramsPending: 1, seq: 1 }, name: 'pending_seq', partialFilterExpression: { gramsPending: true } },
    { key: { projectId: 1, ts: -1, _id: -1 }, name: 'project_pending_ts', partialFilterExpression: { gramsPending: true } },
  ],
  logSegments: [
    // A search's segments of a project (its ready ones), a merge's of a block.
    { key: { projectId: 1, state: 1, block: 1 }, name: 'project_state' },
    // The segments left building past their lease, and the merged ones to sweep (log-indexer.ts, log-merge.ts).
    { key: { state: 1, at: 1 }, name: 'state_at' },
    // Retention (purge.ts): the segments whose logs are all past it.
    { key: { maxTs: 1 }, name: 'max_ts' },
  ],
  tenants: [
    { key: { organizationId: 1, name: 1 }, name: 'organization_name', unique: true },
    { key: { organizationId: 1, seq: 1 }, name: 'organization_seq' },
  ],
  documents: [
    { key: { tenantId: 1, createdAt: -1, seq: -1 }, name: 'tenant_created' },
    // The dedupe of uploads: a tenant's document with the same bytes.
    { key: { tenantId: 1, sha256: 1 }, name: 'tenant_sha256' },
    // A search's documents: the tenant's ready ones (chunk-search.ts).
    { key: { tenantId: 1, status: 1 }, name: 'tenant_status' },
    // The processing queue (ai-processing.ts): the oldest document waiting, by status.
    { key: { status: 1, createdAt: 1, seq: 1 }, name: 'status_created' },
  ],
  chunks: [
    // A document's chunks (removals). Search reads the postings (postings.ts: their `_id` alone), not a text index.
    { key: { documentId: 1, index: 1 }, name: 'document_index' },
  ],
};

/** TTL per data kind: telemetry after `retentionDays` (none when 0 or absent), idempotency keys after their window. */
export function ttlSeconds(retentionDays: number | undefined): { [K in keyof Collections]?: { field: string; seconds: number | null } } {
  const telemetry = retentionDays !== undefined && retentionDays > 0 ? Math.round(retentionDays * DAY_SECONDS) : null;
  return {
    // A trace record expires with its earliest span; its later spans follow by their own time.
    traces: { field: 'ts', seconds: telemetry },
    spans: { field: 'ts', seconds: telemetry },
    logs: { field: 'ts', seconds: telemetry },
    // A minute's rollup goes when the whole minute is past the retention, as the purge deletes it.
    rollups: { field: 'minute', seconds: telemetry === null ? null : telemetry + 60 },
    // An hour's rollup when its last minute's goes; reads stop using it once its first minute may be gone
    // (rollups.ts), so its minutes past the retention are never counted.
    rollupHours: { field: 'hour', seconds: telemetry === null ? null : telemetry + 3600 + 60 },
    // The per-operation rollups as the others; the names an hour keeps with the hour's documents.
    operationRollups: { field: 'minute', seconds: telemetry === null ? null : telemetry + 60 },
    operationRollupHours: { field: 'hour', seconds: telemetry === null ? null : telemetry + 3600 + 60 },
    operationNames: { field: 'hour', seconds: telemetry === null ? null : telemetry + 3600 + 60 },
    // The calls between applications as the others.
    callRollups: { field: 'minute', seconds: telemetry === null ? null : telemetry + 60 },
    callRollupHours: { field: 'hour', seconds: telemetry === null ? null : telemetry + 3600 + 60 },
    // A key older than the window can no longer skip a batch (the SQLite purge drops it too).
    idempotencyKeys: { field: 'createdAt', seconds: Math.round(IDEMPOTENCY_WINDOW_MS / 1000) },
    // A rate-limit window goes once it has ended (its `expiresAt`).
    rateWindows: { field: 'expiresAt', seconds: 0 },
  };
}

interface ExistingIndex {
  name?: string;
  key?: Record<string, unknown>;
  expireAfterSeconds?: number;
}

/** The indexes of a collection; none when the collection does not exist yet (MongoDB answers NamespaceNotFound). */
async function indexesOf(db: Db, name: string): Promise<ExistingIndex[]> {
  try {
    return (await db.collection(name).listIndexes().toArray()) as ExistingIndex[];
  } catch (e) {
    if (codeOf(e) === NAMESPACE_NOT_FOUND) return [];
    throw e;
  }
}

/**
 * Brings the TTL index of a collection to `seconds` (or removes it for null). A changed retention is applied
 * with `collMod` where the user may run it, else by dropping and recreating the index (the readWrite role has
 * dropIndex and createIndex, not collMod).
 */
async function ensureTtl(db: Db, name: string, field: string, seconds: number | null): Promise<void> {
  const existing = (await indexesOf(db, name)).find((index) => index.name === TTL_INDEX);
  const drop = () => db.collection(name).dropIndex(TTL_INDEX);
  if (seconds === null) {
    if (existing) await drop();
    return;
  }
  if (existing?.expireAfterSeconds === seconds) return;
  if (existing) {
    try {
      await db.command({ collMod: name, index: { name: TTL_INDEX, expireAfterSeconds: seconds } });
      return;
    } catch {
      await drop();
    }
  }
  await db.collection(name).createIndex({ [field]: 1 }, { name: TTL_INDEX, expireAfterSeconds: seconds });
}

/**
 * Indexes of earlier versions, dropped where found: the chunks' text index, which the postings replaced (the
 * documents it indexed are processed again: ai-processing.ts requeueOutdated); the logs' multikey trigram index
 * (2.7 GB a million logs), which the log postings replaced (its logs are indexed again: log-indexer.ts
 * markLegacyLogs), and the pending logs' index by the flag alone, which `pending_seq` replaced; the traces' full
 * status index of an earlier draft of the trace filters, which the partial `project_errors_ts` replaced.
 */
const RETIRED: Record<string, string[]> = { chunks: ['tenant_text'], logs: ['project_grams_ts', 'grams_pending'], traces: ['project_status_ts'] };

/**
 * Collections stored in `_id` order (clustered: MongoDB 5.3 and later), created before anything is written to
 * them: their `_id` is their only index, an insert one B-tree write, not two, and a range of ids is read in place.
 * The postings (postings.ts): 1.2-1.4x the inserts a second of the same collection with an `_id` index. (Not
 * the log postings, log-segments.ts: mongod 6.0 scans a whole clustered collection for an `$in` of `_id`s, which
 * their merges and deletions send.)
 */
const CLUSTERED = ['postings'];

/**
 * Creates the clustered collections and the collections' indexes (idempotent), drops retired ones and sets the
 * TTL indexes to `retentionDays`.
 */
export async function ensureIndexes(db: Db, retentionDays: number | undefined): Promise<void> {
  for (const name of CLUSTERED) {
    try {
      await db.createCollection(name, { clusteredIndex: { key: { _id: 1 }, unique: true } });
    } catch (e) {
      if (codeOf(e) !== NAMESPACE_EXISTS) throw e;
    }
  }
  for (const [name, indexes] of Object.entries(INDEXES)) {
    if (indexes?.length) await db.collection(name).createIndexes(indexes);
  }
  for (const [name, retired] of Object.entries(RETIRED)) {
    const present = new Set((await indexesOf(db, name)).map((index) => index.name));
    for (const index of retired) {
      if (!present.has(index)) continue;
      try {
        await db.collection(name).dropIndex(index);
      } catch (e) {
        // Another process starting at the same time dropped it first.
        if (codeOf(e) !== INDEX_NOT_FOUND) throw e;
      }
    }
  }
  for (const [name, ttl] of Object.entries(ttlSeconds(retentionDays))) {
    if (ttl) await ensureTtl(db, name, ttl.field, ttl.seconds);
  }
}
