/**
 * ExportTraceServiceRequest (opentelemetry.proto.collector.trace.v1) bytes -> the OTLP/JSON shape: ids as lower-case
 * hex (left out when empty), times as decimal text, enums as numbers, fields absent on the wire absent here.
 * decodeTracesWith reads the spans with another reader: readSpanParts, straight into what the mapping reads.
 */
import { type ItemBudget, MAX_ATTRIBUTES, MAX_EVENTS, MAX_LINKS, takeItem } from './bounds.js';
import { asDecodeError } from './errors.js';
import { nanosOfFixed64 } from './ids-time.js';
import type { SpanParts } from './map-spans.js';
import { pushAttribute, readResource, readScope } from './protobuf-common.js';
import { PlainAttributes } from './protobuf-plain.js';
import { expectEnd, fieldEnd, openReader, readFixed64Text, readHex, skipField, type Reader } from './protobuf-wire.js';
import type { OtlpEvent, OtlpLink, OtlpResource, OtlpScope, OtlpSpan, OtlpTracesRequest } from './shape.js';

/** An export request whose spans are of type S (OtlpTracesRequest: S = OtlpSpan). */
export interface TracesOf<S> {
  resourceSpans?: Array<ResourceSpansOf<S>>;
}
interface ResourceSpansOf<S> {
  resource?: OtlpResource;
  scopeSpans?: Array<ScopeSpansOf<S>>;
  schemaUrl?: string;
}
interface ScopeSpansOf<S> {
  scope?: OtlpScope;
  spans?: S[];
  schemaUrl?: string;
}
type SpanReader<S> = (r: Reader, end: number) => S;

const REQUEST_FIELDS = 0b10;
const RESOURCE_SPANS_FIELDS = 0b1110;
const SCOPE_SPANS_FIELDS = 0b1110;
const SPAN_FIELDS = 0x1_fffe; // 1-16
const EVENT_FIELDS = 0b1_1110;
const LINK_FIELDS = 0b111_1110;
const STATUS_FIELDS = 0b1100; // message = 2, code = 3

/**
 * Decodes an ExportTraceServiceRequest; any malformed input throws OtlpDecodeError. Past `maxSpans` spans it stops at
 * once with OtlpTooManyItemsError (nothing more is decoded). Beyond MAX_EVENTS / MAX_LINKS of a span (and
 * MAX_ATTRIBUTES of a holder) one more is kept, so the mapping rejects the span, and the rest skipped unread.
 */
export function decodeTracesProtobuf(body: Uint8Array, maxSpans = Infinity): OtlpTracesRequest {
  return decodeTracesWith(body, maxSpans, readSpan);
}

/** decodeTracesProtobuf with the spans read by `readItem` (the same walk, bounds and errors around them). */
export function decodeTracesWith<S>(body: Uint8Array, maxSpans: number, readItem: SpanReader<S>): TracesOf<S> {
  try {
    const r = openReader(body);
    const budget: ItemBudget = { left: maxSpans };
    const request: TracesOf<S> = {};
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) (request.resourceSpans ??= []).push(readResourceSpans(r, fieldEnd(r, end), budget, maxSpans, readItem));
      else skipField(r, tag, REQUEST_FIELDS);
    }
    expectEnd(r, end);
    return request;
  } catch (error) {
    throw asDecodeError(error, 'ExportTraceServiceRequest');
  }
}

function readResourceSpans<S>(r: Reader, end: number, budget: ItemBudget, max: number, readItem: SpanReader<S>): ResourceSpansOf<S> {
  const out: ResourceSpansOf<S> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.resource = readResource(r, fieldEnd(r, end)); break;
      case 18: (out.scopeSpans ??= []).push(readScopeSpans(r, fieldEnd(r, end), budget, max, readItem)); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, RESOURCE_SPANS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
}

function readScopeSpans<S>(r: Reader, end: number, budget: ItemBudget, max: number, readItem: SpanReader<S>): ScopeSpansOf<S> {
  const out: ScopeSpansOf<S> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.scope = readScope(r, fieldEnd(r, end)); break;
      case 18: takeItem(budget, max); (out.spans ??= []).push(readItem(r, fieldEnd(r, end))); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, SCOPE_SPANS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
}

/**
 * A span read straight into what mapSpanParts reads (map-spans.ts): its attributes in their stored form with what
 * plainValue would refuse them for (protobuf-plain.ts), its times as milliseconds and nanoseconds (no decimal text to
 * parse back), the rest as readSpan reads it. The same fields, wire types and errors as readSpan.
 */
export function readSpanParts(r: Reader, end: number): SpanParts {
  const attributes = new PlainAttributes();
  const parts: SpanParts = {
    traceId: undefined, spanId: undefined, parentSpanId: undefined, traceState: undefined, name: undefined, kind: undefined,
    start: undefined, end: undefined, lookup: attributes, attributes: undefined, attributesRejection: undefined,
    events: undefined, links: undefined, status: undefined,
  };
  let id: string;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: if ((id = readHex(r, end))) parts.traceId = id; break;
      case 18: if ((id = readHex(r, end))) parts.spanId = id; break;
      case 26: parts.traceState = r.string(); break;
      case 34: if ((id = readHex(r, end))) parts.parentSpanId = id; break;
      case 42: parts.name = r.string(); break;
      case 48: parts.kind = r.int32(); break;
      case 57: parts.start = nanosOfFixed64(r.fixed32(), r.fixed32()); break;
      case 65: parts.end = nanosOfFixed64(r.fixed32(), r.fixed32()); break;
      case 74: attributes.push(r, end); break;
      case 90: if ((parts.events ??= []).length > MAX_EVENTS) r.skipType(2); else parts.events.push(readEvent(r, fieldEnd(r, end))); break;
      case 106: if ((parts.links ??= []).length > MAX_LINKS) r.skipType(2); else parts.links.push(readLink(r, fieldEnd(r, end))); break;
      case 122: parts.status = readStatus(r, fieldEnd(r, end)); break;
      case 80: case 96: case 112: r.uint32(); break; // dropped counts: not kept
      case 133: r.fixed32(); break; // flags: not kept
      default: skipField(r, tag, SPAN_FIELDS);
    }
  }
  expectEnd(r, end);
  const list = attributes.list;
  if (list.length > 0) {
    if (list.length > MAX_ATTRIBUTES) parts.attributesRejection = `the span has more than ${MAX_ATTRIBUTES} attributes`;
    else if (attributes.rejection !== undefined) parts.attributesRejection = attributes.rejection;
    else parts.attributes = list;
  }
  return parts;
}

function readSpan(r: Reader, end: number): OtlpSpan {
  const span: OtlpSpan = {};
  let id: string;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: if ((id = readHex(r, end))) span.traceId = id; break;
      case 18: if ((id = readHex(r, end))) span.spanId = id; break;
      case 26: span.traceState = r.string(); break;
      case 34: if ((id = readHex(r, end))) span.parentSpanId = id; break;
      case 42: span.name = r.string(); break;
      case 48: span.kind = r.int32(); break;
      case 57: span.startTimeUnixNano = readFixed64Text(r); break;
      case 65: span.endTimeUnixNano = readFixed64Text(r); break;
      case 74: span.attributes = pushAttribute(r, end, span.attributes); break;
      case 80: span.droppedAttributesCount = r.uint32(); break;
      case 90: if ((span.events ??= []).length > MAX_EVENTS) r.skipType(2); else span.events.push(readEvent(r, fieldEnd(r, end))); break;
      case 96: span.droppedEventsCount = r.uint32(); break;
      case 106: if ((span.links ??= []).length > MAX_LINKS) r.skipType(2); else span.links.push(readLink(r, fieldEnd(r, end))); break;
      case 112: span.droppedLinksCount = r.uint32(); break;
      case 122: span.status = readStatus(r, fieldEnd(r, end)); break;
      case 133: span.flags = r.fixed32(); break;
      default: skipField(r, tag, SPAN_FIELDS);
    }
  }
  expectEnd(r, end);
  return span;
}

function readEvent(r: Reader, end: number): OtlpEvent {
  const event: OtlpEvent = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 9: event.timeUnixNano = readFixed64Text(r); break;
      case 18: event.name = r.string(); break;
      case 26: event.attributes = pushAttribute(r, end, event.attributes); break;
      case 32: event.droppedAttributesCount = r.uint32(); break;
      default: skipField(r, tag, EVENT_FIELDS);
    }
  }
  expectEnd(r, end);
  return event;
}

function readLink(r: Reader, end: number): OtlpLink {
  const link: OtlpLink = {};
  let id: string;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: if ((id = readHex(r, end))) link.traceId = id; break;
      case 18: if ((id = readHex(r, end))) link.spanId = id; break;
      case 26: link.traceState = r.string(); break;
      case 34: link.attributes = pushAttribute(r, end, link.attributes); break;
      case 40: link.droppedAttributesCount = r.uint32(); break;
      case 53: link.flags = r.fixed32(); break;
      default: skipField(r, tag, LINK_FIELDS);
    }
  }
  expectEnd(r, end);
  return link;
}

function readStatus(r: Reader, end: number): NonNullable<OtlpSpan['status']> {
  const status: NonNullable<OtlpSpan['status']> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 18: status.message = r.string(); break;
      case 24: status.code = r.int32(); break;
      default: skipField(r, tag, STATUS_FIELDS);
    }
  }
  expectEnd(r, end);
  return status;
}
