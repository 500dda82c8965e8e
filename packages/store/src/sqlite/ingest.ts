import type { Database } from 'better-sqlite3';
import { newId } from '@lantern/domain';
import type { LogBatchMessage, TelemetryMessage } from '@lantern/domain';
import type { TelemetryStore } from '../port.js';
import { RollupDelta, minuteOf } from '../rollups.js';
import { guard } from './errors.js';
import { createRollupWriter } from './rollups.js';
import { contextUses, type ContextUse } from './span-contexts.js';
import { Col, ROW_WIDTH, pairsByTraceId, spanRowsOf, type SpanRows } from './span-rows.js';
import { createSpanCalls, type ChildCall } from './span-calls.js';
import { createTraceAttrs, type Posting } from './trace-attrs.js';

/** How long an Idempotency-Key is remembered per (application, kind). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What the spans of one trace stored by a batch add to its trace record. */
interface TraceUpdate {
  ts: number;
  /** 2: a span without parent; 1: a controller span whose parent is in another application; 0: none. */
  rootRank: 0 | 1 | 2;
  rootTs: number | null;
  duration: number | null;
  status: number | null;
  url: string | null;
  service: string | null;
  operation: string | null;
}

/**
 * Whether a root candidate replaces the current one: a higher rank wins; between two rank-1 candidates (entry
 * spans from another application) the earlier, then the longer, since an entry span encloses the controller
 * spans nested in it, which may arrive first. Between two spans without parent the first stays.
 */
function outranks(c: Pick<TraceUpdate, 'rootRank' | 'rootTs' | 'duration'>, current: Pick<TraceUpdate, 'rootRank' | 'rootTs' | 'duration'>): boolean {
  if (c.rootRank !== current.rootRank) return c.rootRank > current.rootRank;
  if (c.rootRank !== 1 || c.rootTs === null || current.rootTs === null) return false;
  return c.rootTs < current.rootTs || (c.rootTs === current.rootTs && (c.duration ?? 0) > (current.duration ?? 0));
}

/** The batch's time: when ingest received it (so a replayed message is judged by when the client sent it). */
function batchTime(batch: Pick<TelemetryMessage, 'receivedAt'>, now: () => number): number {
  const ms = Date.parse(batch.receivedAt);
  return Number.isNaN(ms) ? now() : ms;
}

/** `outranks(excluded, traces)` in SQL, for the upsert of a trace record (every SET expression sees the old row). */
const ROOT_WINS = `(excluded.has_root > traces.has_root OR (excluded.has_root = 1 AND traces.has_root = 1
  AND (excluded.root_ts < traces.root_ts OR (excluded.root_ts = traces.root_ts
    AND coalesce(excluded.root_duration_ms, 0) > coalesce(traces.root_duration_ms, 0)))))`;

interface ChildRow extends ChildCall {
  parent: string;
  operation: string | null;
}

const pairKey = (traceId: string, spanId: string): string => `${traceId}\u0000${spanId}`;

export type IngestWriter = Pick<TelemetryStore, 'writeSpans' | 'writeLogs' | 'writeSpanBatches' | 'writeLogBatches'>;

/**
 * The ingest transactions, synchronous: each stores its batches in order, in one transaction; called inside an
 * open transaction they become a savepoint of it. The writer thread (writer-thread.ts) runs several requests'
 * groups in one commit with them.
 */
export interface IngestTransactions {
  /** The span batches as span-rows.ts makes them (spanRowsOf). */
  spans(batches: readonly SpanRows[]): void;
  logs(batches: readonly LogBatchMessage[]): void;
}

export function createIngestTransactions(db: Database, now: () => number): IngestTransactions {
  const q = {
    keySeen: db.prepare<[number, string, string], number>(
      'SELECT created_ms FROM idempotency_keys WHERE application_id = ? AND kind = ? AND key = ?').pluck(),
    keyPut: db.prepare<[number, string, string, number]>(`INSERT INTO idempotency_keys (application_id, kind, key, created_ms)
      VALUES (?, ?, ?, ?) ON CONFLICT (application_id, kind, key) DO UPDATE SET created_ms = excluded.created_ms`),
    span: db.prepare(`INSERT OR IGNORE INTO spans (application_id, span_id, project_id, trace_id, ts, parent_span_id,
      controller, duration_ms, status, data, context_id, operation, caller_app) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    spanStored: db.prepare<[number, string, string], number>(
      'SELECT 1 FROM spans WHERE application_id = ? AND trace_id = ? AND span_id = ?').pluck(),
    // Controller spans of a trace stored with a parent: counted as entries until that parent is stored.
    children: db.prepare<[number, string], ChildRow>(`SELECT span_id AS spanId, parent_span_id AS parent, ts, duration_ms AS durationMs, status,
      operation, caller_app AS callerApp FROM spans WHERE application_id = ? AND trace_id = ? AND controller = 1 AND parent_span_id IS NOT NULL`),
    // The root columns follow `outranks` (ROOT_WINS is the same rule in SQL); `ts` only ever moves earlier.
    trace: db.prepare(`INSERT INTO traces (id, application_id, trace_id, project_id, ts, has_root, root_ts, root_duration_ms, root_status, root_url,
        root_service, root_operation, attrs)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (application_id, trace_id) DO UPDATE SET
        ts = min(traces.ts, excluded.ts),
        attrs = coalesce(excluded.attrs, traces.attrs),
        root_ts = CASE WHEN ${ROOT_WINS} THEN excluded.root_ts ELSE traces.root_ts END,
        root_duration_ms = CASE WHEN ${ROOT_WINS} THEN excluded.root_duration_ms ELSE traces.root_duration_ms END,
        root_status = CASE WHEN ${ROOT_WINS} THEN excluded.root_status ELSE traces.root_status END,
        root_url = CASE WHEN ${ROOT_WINS} THEN excluded.root_url ELSE traces.root_url END,
        root_service = CASE WHEN ${ROOT_WINS} THEN excluded.root_service ELSE traces.root_service END,
        root_operation = CASE WHEN ${ROOT_WINS} THEN excluded.root_operation ELSE traces.root_operation END,
        has_root = CASE WHEN ${ROOT_WINS} THEN excluded.has_root ELSE traces.has_root END`),
    log: db.prepare(`INSERT OR IGNORE INTO logs (id, project_id, application_id, trace_id, level, ts, data)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    // The log volume (schema.ts, 16): the logs a group stored, counted per (project, minute, application, level).
    logVolume: db.prepare<[number, number, number, string, number]>(`INSERT INTO log_rollups (project_id, minute, application_id, level, count)
      VALUES (?, ?, ?, ?, ?) ON CONFLICT (project_id, minute, application_id, level) DO UPDATE SET count = count + excluded.count`),
  };
  const applyRollups = createRollupWriter(db);
  const newContextUse = contextUses(db);
  const attrs = createTraceAttrs(db);
  const batchCalls = createSpanCalls(db);

  /**
   * The controller spans stored before this batch whose parent is not stored, by (trace, parent): counted as
   * entries now, and no longer once the batch stores that parent. One primary-key range per trace of the batch.
   */
  function waitingChildren(applicationId: number, traceIds: Iterable<string>): Map<string, ChildRow[]> {
    const byParent = new Map<string, ChildRow[]>();
    for (const traceId of traceIds) {
      for (const row of q.children.all(applicationId, traceId)) {
        const key = pairKey(traceId, row.parent);
        const list = byParent.get(key);
        if (list === undefined) byParent.set(key, [row]);
        else list.push(row);
      }
    }
    return byParent;
  }

  /**
   * False if this key was recorded for the application and kind within 24 h of `atMs` (the batch is a repeat);
   * otherwise records it and returns true. Runs inside the batch's transaction.
   */
  function claimKey(applicationId: number, kind: string, key: string | undefined, atMs: number): boolean {
    if (!key) return true;
    const seen = q.keySeen.get(applicationId, kind, key);
    if (seen !== undefined && Math.abs(atMs - seen) < IDEMPOTENCY_WINDOW_MS) return false;
    q.keyPut.run(applicationId, kind, key, seen === undefined ? atMs : Math.max(seen, atMs));
    return true;
  }

  /** Stores one span batch, adding its entry spans to `rollups`; runs inside the caller's transaction. */
  function storeSpans(batch: SpanRows, rollups: RollupDelta, contexts: ContextUse): void {
    const { applicationId, projectId, rows } = batch;
    const at = batchTime(batch, now);
    if (!claimKey(applicationId, 'spans', batch.idempotencyKey, at)) return;
    const contextIdOf = contexts.idsOf(projectId, batch.contexts);
    const traceIds = new Set<string>();
    const inBatch = new Set<string>();
    const inTrace = new Set<string>();
    for (let r = 0; r < rows.length; r += ROW_WIDTH) {
      const traceId = rows[r + Col.traceId] as string;
      const spanId = rows[r + Col.spanId] as string;
      traceIds.add(traceId);
      inBatch.add(spanId);
      inTrace.add(pairKey(traceId, spanId));
    }
    const children = waitingChildren(applicationId, traceIds);
    const calls = batchCalls(projectId, applicationId, rollups);
    const traces = new Map<string, TraceUpdate>();
    for (let r = 0; r < rows.length; r += ROW_WIDTH) {
      const traceId = rows[r + Col.traceId] as string;
      const spanId = rows[r + Col.spanId] as string;
      const ts = (rows[r + Col.ts] as number | null) ?? at;
      const controller = rows[r + Col.controller] === 1;
      const duration = rows[r + Col.durationMs] as number | null;
      const status = rows[r + Col.responseStatus] as number | null;
      const parent = rows[r + Col.parentSpanId] as string | null;
      const context = rows[r + Col.context] as number;
      const contextId = context < 0 ? null : contextIdOf[context]!;
      // A controller span's operation, for the per-operation rollups ('' without a name); a controller span is a
      // root candidate, so span-rows.ts computed it.
      const operation = controller ? (rows[r + Col.operation] as string | null) ?? '' : null;
      /** A controller span whose parent is neither in this batch nor stored comes from another application. */
      const foreignParent = controller && parent !== null && !inTrace.has(pairKey(traceId, parent))
        && q.spanStored.get(applicationId, traceId, parent) === undefined;
      // Who called it (schema.ts 20): its own application, another one holding the parent, or not known yet.
      const caller = !controller || parent === null ? null : !foreignParent ? 0 : calls.callerOf(traceId, parent);
      const stored = q.span.run(applicationId, spanId, projectId, traceId, ts, parent, controller ? 1 : 0, duration, status,
        rows[r + Col.data], contextId, operation, caller).changes;
      if (stored === 0) continue; // a span already stored for this application: the first one wins
      // Its time, or the batch's if later: a late span kept a little past the purge still finds its context.
      const used = Math.max(ts, at);
      if (contextId !== null) contexts.used(contextId, used);
      // Rollups count entry spans (streamRootSpans' rule), each once: only spans this batch stores.
      if (controller && (parent === null || foreignParent)) rollups.add(projectId, applicationId, { ts, durationMs: duration, status, operation }, 1);
      if (caller !== null && caller > 0) rollups.calls.add(projectId, applicationId, caller, { ts, durationMs: duration, status }, 1);
      // Its children stored earlier were entries while it was missing: they are not any more.
      for (const child of children.get(pairKey(traceId, spanId)) ?? []) {
        rollups.add(projectId, applicationId, child, -1);
        calls.ownParent(traceId, child);
      }
      const rootRank: 0 | 1 | 2 = parent === null ? 2 : foreignParent && !inBatch.has(parent) ? 1 : 0;
      const candidate = rootRank
        ? { rootRank, rootTs: ts, duration, status, url: rows[r + Col.url] as string | null,
          service: rows[r + Col.service] as string | null, operation: rows[r + Col.operation] as string | null }
        : { rootRank, rootTs: null, duration: null, status: null, url: null, service: null, operation: null };
      const update = traces.get(traceId);
      if (update === undefined) {
        traces.set(traceId, { ts, ...candidate });
        continue;
      }
      if (ts < update.ts) update.ts = ts;
      if (outranks(candidate, update)) Object.assign(update, candidate);
    }
    calls.resolveWaiting(traceIds, (traceId, spanId) => inTrace.has(pairKey(traceId, spanId)));
    const pairs = pairsByTraceId(batch.pairs);
    const postings: Posting[] = [];
    for (const [traceId, u] of traces) {
      // The record before the upsert: its attribute postings follow its (id, ts) after (trace-attrs.ts).
      const before = attrs.before(applicationId, traceId);
      const after = before === undefined ? { id: newId(), ts: u.ts } : { id: before.id, ts: Math.min(before.ts, u.ts) };
      const merged = attrs.merge(projectId, before, after, pairs.get(traceId));
      postings.push(...merged.postings);
      q.trace.run(after.id, applicationId, traceId, projectId, u.ts, u.rootRank, u.rootTs, u.duration, u.status, u.url, u.service, u.operation, merged.held);
    }
    attrs.post(projectId, postings);
  }

  /** Stores one log batch, counting the logs it stores into `volume`; runs inside the caller's transaction. */
  function storeLogs(batch: LogBatchMessage, volume: Map<string, [number, number, number, string, number]>): void {
    const at = batchTime(batch, now);
    if (!claimKey(batch.applicationId, 'logs', batch.idempotencyKey, at)) return;
    for (const log of batch.logs) {
      const { id, projectId, applicationId, ...rest } = log;
      if (rest.traceId == null) delete rest.traceId;
      const parsed = Date.parse(log.timestamp);
      const ts = Number.isNaN(parsed) ? at : parsed;
      const project = projectId ?? batch.projectId;
      const app = applicationId ?? batch.applicationId;
      // A log already stored (its id) is not stored again, nor counted.
      if (q.log.run(id, project, app, rest.traceId ?? null, log.level, ts, JSON.stringify(rest)).changes === 0) continue;
      const minute = minuteOf(ts);
      const key = `${project}:${minute}:${app}:${log.level}`;
      const cell = volume.get(key);
      if (cell) cell[4] += 1;
      else volume.set(key, [project, minute, app, log.level, 1]);
    }
  }

  // A group commit: one transaction for many batches, without a savepoint per batch (they cost ~7 %: a batch
  // that throws fails its whole group, which the caller retries or rejects). A commit writes every page the
  // transaction dirtied to the WAL, and ingest's index pages are shared by neighbouring spans: one commit per
  // request's 50 traces instead of 50 commits writes each page once.
  // The rollups of the whole group go in at the end: one upsert per (application, minute) cell per commit.
  const spanGroupTx = db.transaction((batches: readonly SpanRows[]) => {
    const rollups = new RollupDelta();
    const contexts = newContextUse();
    for (const batch of batches) if (batch.rows.length > 0 || batch.idempotencyKey) storeSpans(batch, rollups, contexts);
    contexts.finish();
    applyRollups(rollups);
  });
  const logGroupTx = db.transaction((batches: readonly LogBatchMessage[]) => {
    const volume = new Map<string, [number, number, number, string, number]>();
    for (const batch of batches) if (batch.logs.length > 0 || batch.idempotencyKey) storeLogs(batch, volume);
    for (const cell of volume.values()) q.logVolume.run(...cell);
  });

  return {
    spans: (batches) => (spanGroupTx.immediate as (b: readonly SpanRows[]) => void)(batches),
    logs: (batches) => (logGroupTx.immediate as (b: readonly LogBatchMessage[]) => void)(batches),
  };
}

/** The ingest half of the store on this connection, on the calling thread. */
export function createIngestWriter(db: Database, now: () => number): IngestWriter {
  const tx = createIngestTransactions(db, now);
  return {
    async writeSpanBatches(batches) {
      if (batches.length > 0) guard(() => tx.spans(spanRowsOf(batches)));
    },
    async writeLogBatches(batches) {
      if (batches.length > 0) guard(() => tx.logs(batches));
    },
    writeSpans: async (batch) => guard(() => tx.spans(spanRowsOf([batch]))),
    writeLogs: async (batch) => guard(() => tx.logs([batch])),
  };
}
