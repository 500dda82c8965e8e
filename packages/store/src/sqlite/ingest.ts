import type { Database } from 'better-sqlite3';
import { newId } from '@lantern/domain';
import type { LogBatchMessage, SpanBatchMessage, TelemetryMessage } from '@lantern/domain';
import { guard } from './errors.js';

/** How long an Idempotency-Key is remembered per (application, kind). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What the spans of one trace stored by a batch add to its trace record. */
interface TraceUpdate {
  ts: number;
  hasRoot: 0 | 1;
  duration: number | null;
  status: number | null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The batch's time: when ingest received it (so a replayed message is judged by when the client sent it). */
function batchTime(batch: TelemetryMessage, now: () => number): number {
  const ms = Date.parse(batch.receivedAt);
  return Number.isNaN(ms) ? now() : ms;
}

export interface IngestWriter {
  writeSpans(batch: SpanBatchMessage): Promise<void>;
  writeLogs(batch: LogBatchMessage): Promise<void>;
}

export function createIngestWriter(db: Database, now: () => number): IngestWriter {
  const q = {
    keySeen: db.prepare<[number, string, string], number>(
      'SELECT created_ms FROM idempotency_keys WHERE application_id = ? AND kind = ? AND key = ?').pluck(),
    keyPut: db.prepare<[number, string, string, number]>(`INSERT INTO idempotency_keys (application_id, kind, key, created_ms)
      VALUES (?, ?, ?, ?) ON CONFLICT (application_id, kind, key) DO UPDATE SET created_ms = excluded.created_ms`),
    span: db.prepare(`INSERT OR IGNORE INTO spans
      (application_id, span_id, project_id, trace_id, ts, root_controller, duration_ms, status, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    // The first root span stored for a trace sets its root columns; `ts` only ever moves earlier.
    trace: db.prepare(`INSERT INTO traces (id, application_id, trace_id, project_id, ts, has_root, root_duration_ms, root_status)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (application_id, trace_id) DO UPDATE SET
        ts = min(traces.ts, excluded.ts),
        root_duration_ms = CASE WHEN traces.has_root THEN traces.root_duration_ms ELSE excluded.root_duration_ms END,
        root_status = CASE WHEN traces.has_root THEN traces.root_status ELSE excluded.root_status END,
        has_root = max(traces.has_root, excluded.has_root)`),
    log: db.prepare(`INSERT OR IGNORE INTO logs (id, project_id, application_id, trace_id, level, ts, data)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
  };

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

  const spansTx = db.transaction((batch: SpanBatchMessage) => {
    const { applicationId, projectId } = batch;
    const at = batchTime(batch, now);
    if (!claimKey(applicationId, 'spans', batch.idempotencyKey, at)) return;
    const traces = new Map<string, TraceUpdate>();
    for (const span of batch.spans) {
      const parsed = Date.parse(span.timestamp);
      const ts = Number.isNaN(parsed) ? at : parsed;
      const root = span.parentSpanId == null;
      const duration = numberOrNull(span.durationMs);
      const status = numberOrNull(span.responseStatus);
      const controller = root && typeof span.requestMethod === 'string' && span.requestMethod.startsWith('controller:') ? 1 : 0;
      const stored = q.span.run(applicationId, span.spanId, projectId, span.traceId, ts, controller, duration, status,
        JSON.stringify(span)).changes;
      if (stored === 0) continue; // a span already stored for this application: the first one wins
      const update = traces.get(span.traceId);
      if (update === undefined) {
        traces.set(span.traceId, { ts, hasRoot: root ? 1 : 0, duration: root ? duration : null, status: root ? status : null });
        continue;
      }
      if (ts < update.ts) update.ts = ts;
      if (root && update.hasRoot === 0) Object.assign(update, { hasRoot: 1, duration, status });
    }
    for (const [traceId, u] of traces) {
      q.trace.run(newId(), applicationId, traceId, projectId, u.ts, u.hasRoot, u.duration, u.status);
    }
  });

  const logsTx = db.transaction((batch: LogBatchMessage) => {
    const at = batchTime(batch, now);
    if (!claimKey(batch.applicationId, 'logs', batch.idempotencyKey, at)) return;
    for (const log of batch.logs) {
      const { id, projectId, applicationId, ...rest } = log;
      if (rest.traceId == null) delete rest.traceId;
      const parsed = Date.parse(log.timestamp);
      q.log.run(id, projectId ?? batch.projectId, applicationId ?? batch.applicationId, rest.traceId ?? null, log.level,
        Number.isNaN(parsed) ? at : parsed, JSON.stringify(rest));
    }
  });

  return {
    async writeSpans(batch) {
      if (batch.spans.length === 0 && !batch.idempotencyKey) return;
      guard(() => spansTx.immediate(batch));
    },
    async writeLogs(batch) {
      if (batch.logs.length === 0 && !batch.idempotencyKey) return;
      guard(() => logsTx.immediate(batch));
    },
  };
}
