import {
  errors, findUnsafe, limits, newId, normalizeLog, normalizeSpan, normalizeTimestamp, schemas, validatorFor,
  type LogBatchMessage, type LogEntry, type Origin, type Span, type SpanBatchMessage,
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
 * Splits a valid trace batch into one message per trace (so a trace stays on one partition), keeping the
 * invalid items aside. With an Idempotency-Key the batch stays one message carrying the key: the store claims
 * the key and stores the spans in one transaction, so a repeated key stores nothing new whatever its content
 * (a key per trace would let a retry with other traces through).
 */
export function prepareSpans(body: unknown, origin: Origin, idempotencyKey: string | undefined, receivedAt: string) {
  checkEnvelope(body, 'traces');
  const rejected: Rejected[] = [];
  const byTrace = new Map<string, Span[]>();
  const items = (body as { traces: unknown[] }).traces;
  for (let i = 0; i < items.length; i++) {
    const checked = normalizeSpan(items[i]);
    if (!checked.ok) {
      rejected.push({ index: i, errors: checked.errors });
      continue;
    }
    const list = byTrace.get(checked.value.traceId);
    if (list) list.push(checked.value);
    else byTrace.set(checked.value.traceId, [checked.value]);
  }
  const message = (spans: Span[]): SpanBatchMessage => ({ kind: 'spans', applicationId: origin.applicationId, projectId: origin.projectId, receivedAt, spans });
  let messages: SpanBatchMessage[];
  if (idempotencyKey) {
    const spans = [...byTrace.values()].flat();
    messages = spans.length > 0 ? [{ ...message(spans), idempotencyKey }] : [];
  } else {
    messages = [...byTrace.values()].map(message);
  }
  return { messages, accepted: items.length - rejected.length, rejected };
}

/** Validates a log batch; valid logs get their ids here, so a redelivered message is stored once. */
export function prepareLogs(body: unknown, origin: Origin, idempotencyKey: string | undefined, receivedAt: string) {
  const flushTime = checkEnvelope(body, 'logs');
  const rejected: Rejected[] = [];
  const logs: LogEntry[] = [];
  const items = (body as { logs: unknown[] }).logs;
  for (let i = 0; i < items.length; i++) {
    const checked = normalizeLog(items[i], flushTime);
    if (checked.ok) logs.push({ ...checked.value, id: newId(), projectId: origin.projectId, applicationId: origin.applicationId });
    else rejected.push({ index: i, errors: checked.errors });
  }
  const message: LogBatchMessage = { kind: 'logs', applicationId: origin.applicationId, projectId: origin.projectId, receivedAt, logs };
  if (idempotencyKey) message.idempotencyKey = idempotencyKey;
  return { message, accepted: logs.length, rejected };
}

export const ingestBodyLimit = limits.maxIngestBytes;
