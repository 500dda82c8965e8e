import { type Attribute, attributesOf, AttributeIndex, type AttributeLookup, RejectedItem } from './attributes.js';
import { MAX_EVENTS, MAX_LINKS } from './bounds.js';
import { durationMsOf, isoOfNanos, lanternMember, type Nanos, nanosOf, optionalId, spanUuid, traceUuid, uuidOfHex } from './ids-time.js';
import { contextFields, type Context, forEachItem, type Groups, type Mapped } from './map-common.js';
import { decodeTracesWith, readSpanParts, type TracesOf } from './protobuf-traces.js';
import type { OtlpEvent, OtlpLink, OtlpSpan } from './shape.js';

export const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** A kind as a number (0-5) or its name (`SPAN_KIND_SERVER`); anything else is unspecified. */
export function kindOf(kind: number | string | undefined): SpanKind {
  if (typeof kind === 'number') return SPAN_KINDS[kind] ?? 'unspecified';
  if (typeof kind === 'string') {
    const name = kind.replace(/^SPAN_KIND_/, '').toLowerCase();
    if ((SPAN_KINDS as readonly string[]).includes(name)) return name as SpanKind;
  }
  return 'unspecified';
}

/** The status code: 'ok', 'error', or undefined for UNSET (and unknown codes). */
function statusCodeOf(code: number | string | undefined): 'ok' | 'error' | undefined {
  if (code === 1 || code === 'STATUS_CODE_OK') return 'ok';
  if (code === 2 || code === 'STATUS_CODE_ERROR') return 'error';
  return undefined;
}

/** The host name of a URL, or undefined when it is not an absolute URL with one. */
function hostOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const host = new URL(url).hostname;
    return host === '' ? undefined : host;
  } catch {
    return undefined;
  }
}

/** Longest label after `controller:` / `external:` / `service:` (the span schema bounds requestMethod to 1024). */
export const MAX_LABEL_LENGTH = 1000;

/** A requestMethod label: control characters (a newline in a SQL span name) as a space, cut to 1,000 characters. */
export function labelOf(text: string): string {
  // Cut first (the replacement keeps the length): the regex never reads more than the label.
  const cut = text.length > MAX_LABEL_LENGTH ? text.slice(0, MAX_LABEL_LENGTH) : text;
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
}

/**
 * `controller:<method>` for SERVER, `external:<peer>` for CLIENT, `service:<name>` for the others; the label cleaned
 * by labelOf (the span's `name` keeps the full text).
 */
export function requestMethodOf(kind: SpanKind, name: string, attrs: AttributeLookup): string {
  const label = name === '' ? '(unnamed)' : name;
  if (kind === 'server') return `controller:${labelOf(attrs.text('http.request.method') ?? attrs.text('http.method') ?? label)}`;
  if (kind === 'client') {
    const peer = attrs.text('server.address') ?? hostOf(attrs.text('url.full')) ?? hostOf(attrs.text('http.url'))
      ?? attrs.text('net.peer.name') ?? attrs.text('peer.service');
    return `external:${labelOf(peer ?? label)}`;
  }
  return `service:${labelOf(label)}`;
}

/** url.path (+ `?` + url.query), else http.target, http.url, url.full. */
export function requestUrlOf(attrs: AttributeLookup): string | undefined {
  const path = attrs.text('url.path');
  if (path !== undefined) {
    const query = attrs.text('url.query');
    return query !== undefined ? `${path}?${query}` : path;
  }
  return attrs.text('http.target') ?? attrs.text('http.url') ?? attrs.text('url.full');
}

/** http.response.status_code or http.status_code, when an integer from 100 to 599. */
export function responseStatusOf(attrs: AttributeLookup): number | undefined {
  for (const key of ['http.response.status_code', 'http.status_code']) {
    const n = attrs.integer(key);
    if (n !== undefined && n >= 100 && n <= 599) return n;
  }
  return undefined;
}

/**
 * The parent: none when empty or all zeros; else the uuid of its 16 hex digits and 16 zeros, unless the span's
 * tracestate carries `lantern=<32 hex>` whose first 16 digits are the parent's: then that whole Lantern span id.
 */
export function parentOf(parentHex: string | undefined, traceState: string | undefined): string | null {
  const uuid = optionalId(parentHex, spanUuid, 'parentSpanId');
  if (uuid === undefined) return null;
  const lantern = lanternMember(traceState);
  if (lantern !== undefined && lantern.slice(0, 16) === parentHex!.toLowerCase()) return uuidOfHex(lantern);
  return uuid;
}

function eventOf(event: OtlpEvent, spanTimestamp: string): Record<string, unknown> {
  const nanos = nanosOf(event.timeUnixNano);
  const out: Record<string, unknown> = { name: event.name ?? '', timestamp: nanos === undefined ? spanTimestamp : isoOfNanos(nanos, 'an event\'s timeUnixNano') };
  const attributes = attributesOf(event.attributes, 'an event');
  if (attributes) out['attributes'] = attributes;
  return out;
}

/** An id of a link: its uuid, or null (the raw text kept under `raw`) when invalid. */
function linkId(out: Record<string, unknown>, field: string, raw: string | undefined, toUuid: (hex: string) => string): void {
  try {
    out[field] = toUuid(raw ?? '');
  } catch (err) {
    if (!(err instanceof RejectedItem)) throw err;
    out[field] = null;
    if (raw) out[`raw${field[0]!.toUpperCase()}${field.slice(1)}`] = raw;
  }
}

/**
 * A link. OTel SDKs may record links whose context is invalid (all zeros, only attributes and tracestate): such a
 * link is kept, its invalid id null and the id as given under rawTraceId / rawSpanId; the span is never rejected.
 */
function linkOf(link: OtlpLink): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  linkId(out, 'traceId', link.traceId, (hex) => traceUuid(hex));
  linkId(out, 'spanId', link.spanId, (hex) => spanUuid(hex));
  if (link.traceState) out['traceState'] = link.traceState;
  const attributes = attributesOf(link.attributes, 'a link');
  if (attributes) out['attributes'] = attributes;
  return out;
}

/**
 * What the mapping reads of a span: from the OTLP/JSON shape (partsOfSpan), or straight from protobuf
 * (protobuf-traces.ts readSpanParts), which skips the shape's objects. Ids are hex text as the shape has them.
 */
export interface SpanParts {
  traceId: string | undefined;
  spanId: string | undefined;
  parentSpanId: string | undefined;
  traceState: string | undefined;
  name: string | undefined;
  kind: number | string | undefined;
  start: Nanos | undefined;
  end: Nanos | undefined;
  lookup: AttributeLookup;
  /** The stored attributes (undefined: none), or else the reason the span is refused for them. */
  attributes: Attribute[] | undefined;
  attributesRejection: string | undefined;
  events: OtlpEvent[] | undefined;
  links: OtlpLink[] | undefined;
  status: { message?: string; code?: number | string } | undefined;
}

/** The parts of an OTLP/JSON span (the attributes' refusal kept, to be given in its turn by mapSpanParts). */
export function partsOfSpan(span: OtlpSpan): SpanParts {
  let attributes: Attribute[] | undefined;
  let attributesRejection: string | undefined;
  try {
    attributes = attributesOf(span.attributes, 'the span');
  } catch (err) {
    if (!(err instanceof RejectedItem)) throw err;
    attributesRejection = err.message;
  }
  return {
    traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId, traceState: span.traceState, name: span.name,
    kind: span.kind, start: nanosOf(span.startTimeUnixNano), end: nanosOf(span.endTimeUnixNano), lookup: new AttributeIndex(span.attributes),
    attributes, attributesRejection, events: span.events, links: span.links, status: span.status,
  };
}

/** One span's parts as a Lantern span candidate (validated next with normalizeSpan's verdicts: builtSpanNormalizer); throws RejectedItem. */
export function mapSpanParts(span: SpanParts, context: Context): Record<string, unknown> {
  const traceId = traceUuid(span.traceId);
  const spanId = spanUuid(span.spanId);
  const parentSpanId = parentOf(span.parentSpanId, span.traceState);
  if ((span.events?.length ?? 0) > MAX_EVENTS) throw new RejectedItem(`the span has more than ${MAX_EVENTS} events`);
  if ((span.links?.length ?? 0) > MAX_LINKS) throw new RejectedItem(`the span has more than ${MAX_LINKS} links`);
  const start = span.start;
  if (start === undefined) throw new RejectedItem('startTimeUnixNano is required (a whole number of nanoseconds, not 0)');
  const timestamp = isoOfNanos(start, 'startTimeUnixNano');
  const name = span.name ?? '';
  const kind = kindOf(span.kind);
  const attrs = span.lookup;
  const out: Record<string, unknown> = {
    traceId, spanId, parentSpanId, timestamp,
    durationMs: durationMsOf(start, span.end),
    requestMethod: requestMethodOf(kind, name, attrs),
  };
  const url = requestUrlOf(attrs);
  if (url !== undefined) out['requestURL'] = url;
  const status = responseStatusOf(attrs);
  if (status !== undefined) out['responseStatus'] = status;
  out['name'] = name;
  out['kind'] = kind;
  Object.assign(out, contextFields(context));
  if (span.attributesRejection !== undefined) throw new RejectedItem(span.attributesRejection);
  if (span.attributes) out['attributes'] = span.attributes;
  const code = statusCodeOf(span.status?.code);
  if (code) out['status'] = span.status?.message ? { code, message: span.status.message } : { code };
  if (span.events && span.events.length > 0) out['events'] = span.events.map((e) => eventOf(e, timestamp));
  if (span.links && span.links.length > 0) out['links'] = span.links.map(linkOf);
  if (span.traceState) out['traceState'] = span.traceState;
  return out;
}

/** One OTLP/JSON span as a Lantern span candidate (mapSpanParts). */
export function mapSpan(span: OtlpSpan, context: Context): Record<string, unknown> {
  return mapSpanParts(partsOfSpan(span), context);
}

/** The resource -> scope -> spans tree of a request, as forEachItem walks it. */
function groupsOf<S>(request: TracesOf<S>): Groups<S> {
  return (request.resourceSpans ?? []).map((rs) => ({
    resource: rs.resource,
    scopes: (rs.scopeSpans ?? []).map((ss) => ({ scope: ss.scope, items: ss.spans ?? [] })),
  }));
}

/** Every span of an export request, mapped; the refused ones counted with their reasons. */
export function mapTraces(request: TracesOf<OtlpSpan>): Mapped {
  return forEachItem(groupsOf(request), mapSpan);
}

/**
 * mapTraces(decodeTracesProtobuf(body, maxSpans)), without the OTLP/JSON objects in between: the same items, reasons
 * and errors (the decoder's first, before any mapping).
 */
export function mapTracesProtobuf(body: Uint8Array, maxSpans = Infinity): Mapped {
  return forEachItem(groupsOf(decodeTracesWith(body, maxSpans, readSpanParts)), mapSpanParts);
}
