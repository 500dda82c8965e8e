import type { Checked } from './normalize.js';
import { findUnsafe } from './safety.js';
import { telemetry } from './schemas/index.js';
import { normalizeTimestamp } from './time.js';
import type { LogInput, Span } from './types.js';
import { issueText, validatorFor } from './validation.js';

/**
 * normalizeSpan / normalizeLog for items the service built itself from another format (the OTLP mapping), with the
 * same verdicts at a lower cost:
 * - the parts many items share by reference (an OTLP resource's attributes, its scope) are safety-walked once per
 *   distinct part, not once per item: the item's own walk leaves them out, and the verdict of the shared walk is
 *   kept while the next items carry the same objects (items come grouped by resource and scope);
 * - a timestamp that is already toIso's text (UTC, four-digit year, 3 fractional digits, Z) is taken as is, after
 *   the schema's `date-time` check, instead of parsed and printed again; any other text is normalised as usual;
 * - the result is the item itself, its fields normalised in place (no copy): the caller hands over an object it
 *   built and does not use again.
 * The shared parts must not be changed after they were checked (they are not: the mapping builds them once and
 * nothing writes to a stored span's resource).
 * When both an item's own fields and a shared part are unsafe, the own field's reason is the one given.
 */
const SHARED = ['resource', 'scope'] as const;
const SHARED_KEYS: ReadonlySet<string> = new Set(SHARED);
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const spanValidator = validatorFor<Span>(telemetry.span.$id);
const logValidator = validatorFor<LogInput>(telemetry.logInput.$id);

type Built = Record<string, unknown>;

/** The safety verdict of an item's shared parts, walked again only when they are other objects than the last item's. */
function sharedWalker(): (item: Built) => string | null {
  let resource: unknown;
  let scope: unknown;
  let verdict: string | null = null;
  let seen = false;
  return (item) => {
    if (seen && item['resource'] === resource && item['scope'] === scope) return verdict;
    resource = item['resource'];
    scope = item['scope'];
    seen = true;
    // Walked as the item's members, so depths and paths (`/resource/0/value ...`) read as in the item's own walk.
    const parts: Built = {};
    for (const key of SHARED) if (Object.hasOwn(item, key)) parts[key] = item[key];
    verdict = findUnsafe(parts);
    return verdict;
  };
}

function builtTimestamp(value: unknown): string | null {
  return typeof value === 'string' && ISO_UTC_MS.test(value) ? value : normalizeTimestamp(value);
}

function invalid(errors: string[]): { ok: false; errors: string[] } {
  return { ok: false, errors };
}

/** The own fields' safety walk, then the shared parts', then the schema: the first reason found, or null. */
function refusal(item: Built, shared: (item: Built) => string | null, schemaIssues: (item: Built) => string[]): string[] | null {
  const unsafe = findUnsafe(item, undefined, SHARED_KEYS) ?? shared(item);
  if (unsafe) return [unsafe];
  const issues = schemaIssues(item);
  return issues.length > 0 ? issues : null;
}

/** A normalizeSpan for the spans of one request built by the caller (see above); call it once per request. */
export function builtSpanNormalizer(): (item: unknown) => Checked<Span> {
  const shared = sharedWalker();
  const issues = (item: Built) => spanValidator.issues(item).map(issueText);
  return (item) => {
    const span = item as Built;
    const refused = refusal(span, shared, issues);
    if (refused) return invalid(refused);
    const ts = builtTimestamp(span['timestamp']);
    if (!ts) return invalid(['/timestamp must be an ISO 8601 date-time with an offset']);
    const valid = span as unknown as Span;
    valid.timestamp = ts;
    valid.traceId = valid.traceId.toLowerCase();
    valid.spanId = valid.spanId.toLowerCase();
    valid.parentSpanId = typeof valid.parentSpanId === 'string' ? valid.parentSpanId.toLowerCase() : null;
    return { ok: true, value: valid };
  };
}

/** A normalizeLog for the logs of one request built by the caller (see above); call it once per request. */
export function builtLogNormalizer(envelopeTimestamp: string): (item: unknown) => Checked<LogInput> {
  const shared = sharedWalker();
  const issues = (item: Built) => logValidator.issues(item).map(issueText);
  return (item) => {
    const log = item as Built;
    const refused = refusal(log, shared, issues);
    if (refused) return invalid(refused);
    const ts = builtTimestamp(log['timestamp']);
    if (!ts) return invalid(['/timestamp must be an ISO 8601 date-time with an offset']);
    const clientTs = log['clientTimestamp'] === undefined ? envelopeTimestamp : builtTimestamp(log['clientTimestamp']);
    if (!clientTs) return invalid(['/clientTimestamp must be an ISO 8601 date-time with an offset']);
    const valid = log as unknown as LogInput;
    valid.type = valid.type ?? 'app';
    valid.timestamp = ts;
    valid.clientTimestamp = clientTs;
    if (typeof valid.traceId === 'string') valid.traceId = valid.traceId.toLowerCase();
    return { ok: true, value: valid };
  };
}
