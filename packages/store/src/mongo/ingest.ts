import type { LogBatchMessage, Span, SpanBatchMessage, TelemetryMessage } from '@lantern/domain';
import type { TelemetryStore } from '../port.js';
import { IDEMPOTENCY_WINDOW_MS } from '../sqlite/ingest.js';
import { firstOfEach, insertIfAbsent } from './bulk.js';
import type { Collections, LogDoc, SpanDoc } from './collections.js';
import { idempotencyKeyId, spanKey, traceKey } from './collections.js';
import type { Guard } from './errors.js';
import { updateRollups } from './rollup-ops.js';
import { updateTraceRecords } from './trace-records.js';

export type IngestWriter = Pick<TelemetryStore, 'writeSpans' | 'writeLogs'>;

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The batch's time: when ingest received it (so a replayed message is judged by when the client sent it). */
function batchTime(batch: TelemetryMessage, now: () => number): number {
  const ms = Date.parse(batch.receivedAt);
  return Number.isNaN(ms) ? now() : ms;
}

function toSpanDoc(batch: SpanBatchMessage, span: Span, at: number): SpanDoc {
  const parsed = Date.parse(span.timestamp);
  return {
    _id: spanKey(batch.applicationId, span.traceId, span.spanId),
    traceKey: traceKey(batch.applicationId, span.traceId),
    applicationId: batch.applicationId,
    projectId: batch.projectId,
    traceId: span.traceId,
    spanId: span.spanId,
    ts: new Date(Number.isNaN(parsed) ? at : parsed),
    parentSpanId: span.parentSpanId ?? null,
    controller: typeof span.requestMethod === 'string' && span.requestMethod.startsWith('controller:'),
    durationMs: numberOrNull(span.durationMs),
    status: numberOrNull(span.responseStatus),
    data: JSON.stringify(span),
    counted: false,
  };
}

function toLogDoc(batch: LogBatchMessage, log: LogBatchMessage['logs'][number], at: number): LogDoc {
  const { id, projectId, applicationId, ...rest } = log;
  if (rest.traceId == null) delete rest.traceId;
  const parsed = Date.parse(log.timestamp);
  return {
    _id: id,
    projectId: projectId ?? batch.projectId,
    applicationId: applicationId ?? batch.applicationId,
    ...(rest.traceId === undefined ? {} : { traceId: rest.traceId }),
    level: log.level,
    ts: new Date(Number.isNaN(parsed) ? at : parsed),
    message: typeof log.message === 'string' ? log.message : null,
    // Indexed for the `q` filter after the write, off the ingest path (log-indexer.ts).
    gramsPending: true,
    data: JSON.stringify(rest),
  };
}

/**
 * The port asks for "all or nothing" batches. MongoDB transactions need a replica set (the tests run a standalone
 * mongod), so a batch is made convergent instead: every step is idempotent and keyed by natural ids (spans by
 * application + trace + span id, logs by id, trace records by application + trace), and the idempotency key is
 * recorded last. A batch that fails half-way throws, the message is redelivered (the writer commits its offset
 * only after the store write), and the retry completes exactly what was missing; until then a reader may see
 * part of the batch, never a duplicate. The metrics rollups follow the same rule through per-span flags and
 * operation ids (rollup-ops.ts): a retried batch neither counts a span twice nor loses one.
 */
export function createIngestWriter(c: Collections, guard: Guard, now: () => number): IngestWriter {
  /** True if this key was accepted for the application and kind within 24 h of `at`: the batch is a repeat. */
  async function seenRecently(applicationId: number, kind: 'spans' | 'logs', key: string | undefined, at: number): Promise<boolean> {
    if (!key) return false;
    const seen = await c.idempotencyKeys.findOne({ _id: idempotencyKeyId(applicationId, kind, key) });
    return seen !== null && Math.abs(at - seen.createdAt.getTime()) < IDEMPOTENCY_WINDOW_MS;
  }

  /** Records the key as accepted at `at` (or keeps a later time already recorded), once the batch is stored. */
  async function recordKey(applicationId: number, kind: 'spans' | 'logs', key: string | undefined, at: number): Promise<void> {
    if (!key) return;
    await c.idempotencyKeys.updateOne({ _id: idempotencyKeyId(applicationId, kind, key) },
      { $max: { createdAt: new Date(at) }, $setOnInsert: { applicationId, kind, key } }, { upsert: true });
  }

  /**
   * The stored version of each span: ours where this call inserted it, the first one stored otherwise (whole:
   * the root's requestURL is in its `data`).
   */
  async function storedVersions(docs: SpanDoc[], inserted: Set<number>): Promise<SpanDoc[]> {
    const others = docs.filter((_, i) => !inserted.has(i)).map((d) => d._id);
    if (others.length === 0) return docs;
    const found = new Map((await c.spans.find({ _id: { $in: others } }).toArray()).map((d) => [d._id, d]));
    return docs.flatMap((d, i) => (inserted.has(i) ? [d] : found.has(d._id) ? [found.get(d._id)!] : []));
  }

  return {
    writeSpans: (batch) => guard.run(async () => {
      if (batch.spans.length === 0 && !batch.idempotencyKey) return;
      const at = batchTime(batch, now);
      if (await seenRecently(batch.applicationId, 'spans', batch.idempotencyKey, at)) return;
      const docs = firstOfEach(batch.spans.map((span) => toSpanDoc(batch, span, at)), (d) => d._id);
      const inserted = await insertIfAbsent(c.spans, docs);
      const stored = await storedVersions(docs, inserted);
      const spanIds = new Set(batch.spans.map((span) => span.spanId));
      await updateTraceRecords(c, { applicationId: batch.applicationId, projectId: batch.projectId, spanIds }, stored);
      await updateRollups(c, batch.applicationId, stored);
      await recordKey(batch.applicationId, 'spans', batch.idempotencyKey, at);
    }),

    writeLogs: (batch) => guard.run(async () => {
      if (batch.logs.length === 0 && !batch.idempotencyKey) return;
      const at = batchTime(batch, now);
      if (await seenRecently(batch.applicationId, 'logs', batch.idempotencyKey, at)) return;
      await insertIfAbsent(c.logs, firstOfEach(batch.logs.map((log) => toLogDoc(batch, log, at)), (d) => d._id));
      await recordKey(batch.applicationId, 'logs', batch.idempotencyKey, at);
    }),
  };
}
