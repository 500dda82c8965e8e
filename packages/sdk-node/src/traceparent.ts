/**
 * W3C Trace Context for Lantern's UUID ids. A trace id is the UUID's 32 hex digits; a span id (also a UUID) does
 * not fit the 16 hex digits of `parent-id`, so the first 16 go in `traceparent` and the whole id travels in
 * `tracestate` as `lantern=<32 hex>`.
 */

export interface TraceHeaders {
  traceparent: string;
  tracestate: string;
}

/** A trace continued from incoming headers. */
export interface IncomingTrace {
  traceId: string;
  parentSpanId: string;
  /** Other vendors' tracestate members, to pass on. */
  tracestate: string | undefined;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZEROS_32 = '0'.repeat(32);
const ZEROS_16 = '0'.repeat(16);
const MEMBER_KEY = /^[a-z0-9][a-z0-9_\-*/]{0,255}(@[a-z][a-z0-9_\-*/]{0,13})?$/;

export const hexOf = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();

export const uuidOf = (hex32: string) =>
  `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20, 32)}`;

/** The headers an outgoing call carries: this span becomes the callee's parent. */
export function outgoingHeaders(traceId: string, spanId: string, otherState?: string): TraceHeaders {
  const span = hexOf(spanId);
  const lantern = `lantern=${span}`;
  return {
    traceparent: `00-${hexOf(traceId)}-${span.slice(0, 16)}-01`,
    tracestate: otherState ? `${lantern},${otherState}` : lantern,
  };
}

function headerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  return undefined;
}

/** `traceparent` by the W3C rules, or null (then a new trace starts). */
export function parseTraceparent(value: unknown): { traceId: string; parentId: string } | null {
  if (typeof value !== 'string') return null;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return null;
  const [, version, traceId, parentId, , rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff') return null;
  if (version === '00' && rest !== undefined) return null;
  if (traceId === ZEROS_32 || parentId === ZEROS_16) return null;
  return { traceId, parentId };
}

/** Splits `tracestate` into Lantern's span id (32 hex, if present and well formed) and the other members. */
export function parseTracestate(value: unknown): { lantern: string | undefined; others: string | undefined } {
  const text = headerText(value);
  if (!text) return { lantern: undefined, others: undefined };
  let lantern: string | undefined;
  const others: string[] = [];
  for (const raw of text.split(',')) {
    const member = raw.trim();
    const eq = member.indexOf('=');
    if (eq <= 0) continue;
    const key = member.slice(0, eq);
    if (!MEMBER_KEY.test(key)) continue;
    if (key === 'lantern') {
      const v = member.slice(eq + 1);
      if (lantern === undefined && /^[0-9a-f]{32}$/.test(v)) lantern = v;
    } else if (others.length < 31) {
      others.push(member);
    }
  }
  return { lantern, others: others.length > 0 ? others.join(',') : undefined };
}

/**
 * The trace to continue, from the incoming headers, or null. The parent span is the full UUID from
 * `tracestate` when it agrees with `traceparent`, else the 16 hex of `traceparent` padded with zeros.
 */
export function parseIncoming(traceparent: unknown, tracestate: unknown): IncomingTrace | null {
  const parent = parseTraceparent(headerText(traceparent));
  if (!parent) return null;
  const state = parseTracestate(tracestate);
  const parentHex = state.lantern && state.lantern.startsWith(parent.parentId) ? state.lantern : parent.parentId + ZEROS_16;
  return { traceId: uuidOf(parent.traceId), parentSpanId: uuidOf(parentHex), tracestate: state.others };
}
