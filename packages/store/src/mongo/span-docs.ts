import { operationOf } from '@lantern/domain';
import type { LogBatchMessage, Span, SpanBatchMessage, TelemetryMessage } from '@lantern/domain';
import { logPairs } from '../attribute-pairs.js';
import type { LogDoc, SpanDoc } from './collections.js';
import { spanKey, traceKey } from './collections.js';

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The batch's time: when ingest received it (so a replayed message is judged by when the client sent it). */
export function batchTime(batch: TelemetryMessage, now: () => number): number {
  const ms = Date.parse(batch.receivedAt);
  return Number.isNaN(ms) ? now() : ms;
}

/**
 * A span as stored: not counted by the rollups yet (rollup-ops.ts decides, and may mark it with an operation). A
 * controller span (an entry candidate) carries its operation for the per-operation rollups, '' without a name:
 * kept on the span, so that taking it out again counts it out of the cell it went into.
 */
export function toSpanDoc(batch: SpanBatchMessage, span: Span, at: number): SpanDoc {
  const parsed = Date.parse(span.timestamp);
  const controller = typeof span.requestMethod === 'string' && span.requestMethod.startsWith('controller:');
  return {
    _id: spanKey(batch.applicationId, span.traceId, span.spanId),
    traceKey: traceKey(batch.applicationId, span.traceId),
    applicationId: batch.applicationId,
    projectId: batch.projectId,
    traceId: span.traceId,
    spanId: span.spanId,
    ts: new Date(Number.isNaN(parsed) ? at : parsed),
    parentSpanId: span.parentSpanId ?? null,
    controller,
    durationMs: numberOrNull(span.durationMs),
    status: numberOrNull(span.responseStatus),
    data: JSON.stringify(span),
    counted: false,
    ...(controller ? { operation: operationOf(span) ?? '' } : {}),
  };
}

export function toLogDoc(batch: LogBatchMessage, log: LogBatchMessage['logs'][number], at: number): LogDoc {
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
    // Indexed for the `q` and `attr` filters after the write, off the ingest path (log-indexer.ts).
    gramsPending: true,
    attrs: [...logPairs(rest as Record<string, unknown>)],
    data: JSON.stringify(rest),
  };
}
