import {
  errors, findUnsafe, limits, newTimeOrderedId, normalizeLog, normalizeSpan, normalizeTimestamp, schemas, validatorFor,
  type LogBatchMessage, type LogEntry, type LogInput, type Origin, type Span, type SpanBatchMessage,
} from '@lantern/domain';

export interface Rejected {
  index: number;
  errors: string[];
}

const traceEnvelope = validatorFor<{ timestamp: string; traces: unknown[] }>(schemas.telemetry.traceBatch.$id);
const logEnvelope = validatorFor<{ timestamp: string; logs: unknown[] }>(schemas.telemetry.logBatch.$id);

/** The envelope must be valid as a whole (else 400, nothing stored); returns its normalised flush time. */
function checkEnvelope(body: unknown, items: 'traces' | 'logs'): string {
  (items === 'traces' ? traceEnvelope : logEnvelope).assert(body, `${items === 'traces' ? 'trace' : 'log'} batch`);
  // The envelope's own keys are checked in place: an object rest (`{ [items]: _, ...rest }`) copies by
  // assignment when compiled for older targets, which turns a `__proto__` key into the copy's prototype and
  // hides it from the check.
  const unsafe = findUnsafe(body, 2, items);
  if (unsafe) throw errors.validation(`The batch is invalid: ${unsafe}`);
  const ts = normalizeTimestamp((body as { timestamp: string }).timestamp);
  if (!ts) throw errors.validation('The batch is invalid: /timestamp must be an ISO 8601 date-time with an offset', [{ path: '/timestamp' }]);
  return ts;
}

/** An Idempotency-Key header: up to 200 visible ASCII characters. */
export function checkIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(value)) {
    throw errors.validation('The Idempotency-Key header must be 1-200 visible ASCII characters.', [{ header: 'Idempotency-Key' }]);
  }
  return value;
}

/**
 * One message per trace (so a trace stays on one partition). With an Idempotency-Key the batch stays one message
 * carrying the key: the store claims the key and stores the spans in one transaction, so a repeated key stores
 * nothing new whatever its content (a key per trace would let a retry with other traces through).
 * POST /ingest/traces and POST /v1/traces both publish what this returns.
 */
export function spanMessages(spans: Span[], origin: Origin, idempotencyKey: string | undefined, receivedAt: string): SpanBatchMessage[] {
  const message = (list: Span[]): SpanBatchMessage => ({ kind: 'spans', applicationId: origin.applicationId, projectId: origin.projectId, receivedAt, spans: list });
  if (spans.length === 0) return [];
  if (idempotencyKey) return [{ ...message(spans), idempotencyKey }];
  const byTrace = new Map<string, Span[]>();
  for (const span of spans) {
    const list = byTrace.get(span.traceId);
    if (list) list.push(span);
    else byTrace.set(span.traceId, [span]);
  }
  return [...byTrace.values()].map(message);
}

/** The one message of a log batch; valid logs get their ids here, so a redelivered message is stored once. Shared with POST /v1/logs. */
export function logMessage(logs: LogInput[], origin: Origin, idempotencyKey: string | undefined, receivedAt: string): LogBatchMessage {
  const now = Date.now();
  const entries: LogEntry[] = logs.map((log) => ({ ...log, id: newTimeOrderedId(now), projectId: origin.projectId, applicationId: origin.applicationId }));
  const message: LogBatchMessage = { kind: 'logs', applicationId: origin.applicationId, projectId: origin.projectId, receivedAt, logs: entries };
  if (idempotencyKey) message.idempotencyKey = idempotencyKey;
  return message;
}

/** Validates a trace batch span by span, keeping the invalid items aside, and groups the valid ones (spanMessages). */
export function prepareSpans(body: unknown, origin: Origin, idempotencyKey: string | undefined, receivedAt: string) {
  checkEnvelope(body, 'traces');
  const rejected: Rejected[] = [];
  const spans: Span[] = [];
  const items = (body as { traces: unknown[] }).traces;
  for (let i = 0; i < items.length; i++) {
    const checked = normalizeSpan(items[i]);
    if (checked.ok) spans.push(checked.value);
    else rejected.push({ index: i, errors: checked.errors });
  }
  return { messages: spanMessages(spans, origin, idempotencyKey, receivedAt), accepted: spans.length, rejected };
}

/** Validates a log batch log by log; the valid ones make one message (logMessage). */
export function prepareLogs(body: unknown, origin: Origin, idempotencyKey: string | undefined, receivedAt: string) {
  const flushTime = checkEnvelope(body, 'logs');
  const rejected: Rejected[] = [];
  const logs: LogInput[] = [];
  const items = (body as { logs: unknown[] }).logs;
  for (let i = 0; i < items.length; i++) {
    const checked = normalizeLog(items[i], flushTime);
    if (checked.ok) logs.push(checked.value);
    else rejected.push({ index: i, errors: checked.errors });
  }
  return { message: logMessage(logs, origin, idempotencyKey, receivedAt), accepted: logs.length, rejected };
}

export const ingestBodyLimit = limits.maxIngestBytes;
