import { findUnsafe } from './safety.js';
import { telemetry } from './schemas/index.js';
import { normalizeTimestamp } from './time.js';
import type { LogInput, Span } from './types.js';
import { issueText, validatorFor } from './validation.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; errors: string[] };

const spanValidator = validatorFor<Span>(telemetry.span.$id);
const logValidator = validatorFor<LogInput>(telemetry.logInput.$id);

function invalid(errors: string[]): { ok: false; errors: string[] } {
  return { ok: false, errors };
}

/** Validates one span and returns it normalised: UTC timestamp, lower-case ids, `parentSpanId` null for a root. */
export function normalizeSpan(raw: unknown): Checked<Span> {
  const unsafe = findUnsafe(raw);
  if (unsafe) return invalid([unsafe]);
  const issues = spanValidator.issues(raw);
  if (issues.length > 0) return invalid(issues.map(issueText));
  const span = raw as Span;
  const ts = normalizeTimestamp(span.timestamp);
  if (!ts) return invalid(['/timestamp must be an ISO 8601 date-time with an offset']);
  return {
    ok: true,
    value: {
      ...span,
      timestamp: ts,
      traceId: span.traceId.toLowerCase(),
      spanId: span.spanId.toLowerCase(),
      parentSpanId: typeof span.parentSpanId === 'string' ? span.parentSpanId.toLowerCase() : null,
    },
  };
}

/** Validates one log and returns it normalised; `type` defaults to `app`, `clientTimestamp` to the envelope's. */
export function normalizeLog(raw: unknown, envelopeTimestamp: string): Checked<LogInput> {
  const unsafe = findUnsafe(raw);
  if (unsafe) return invalid([unsafe]);
  const issues = logValidator.issues(raw);
  if (issues.length > 0) return invalid(issues.map(issueText));
  const log = raw as LogInput;
  const ts = normalizeTimestamp(log.timestamp);
  if (!ts) return invalid(['/timestamp must be an ISO 8601 date-time with an offset']);
  const clientTs = log.clientTimestamp === undefined ? envelopeTimestamp : normalizeTimestamp(log.clientTimestamp);
  if (!clientTs) return invalid(['/clientTimestamp must be an ISO 8601 date-time with an offset']);
  const out: LogInput = { ...log, type: log.type ?? 'app', timestamp: ts, clientTimestamp: clientTs };
  if (typeof log.traceId === 'string') out.traceId = log.traceId.toLowerCase();
  return { ok: true, value: out };
}
