/**
 * ExportTraceServiceRequest (opentelemetry.proto.collector.trace.v1) bytes -> the OTLP/JSON shape: ids as lower-case
 * hex (left out when empty), times as decimal text, enums as numbers, fields absent on the wire absent here.
 */
import { type ItemBudget, MAX_EVENTS, MAX_LINKS, takeItem } from './bounds.js';
import { asDecodeError } from './errors.js';
import { pushAttribute, readResource, readScope } from './protobuf-common.js';
import { expectEnd, fieldEnd, openReader, readFixed64Text, readHex, skipField, type Reader } from './protobuf-wire.js';
import type { OtlpEvent, OtlpLink, OtlpSpan, OtlpTracesRequest } from './shape.js';

type ResourceSpans = NonNullable<OtlpTracesRequest['resourceSpans']>[number];
type ScopeSpans = NonNullable<ResourceSpans['scopeSpans']>[number];

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
  try {
    const r = openReader(body);
    const budget: ItemBudget = { left: maxSpans };
    const request: OtlpTracesRequest = {};
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) (request.resourceSpans ??= []).push(readResourceSpans(r, fieldEnd(r, end), budget, maxSpans));
      else skipField(r, tag, REQUEST_FIELDS);
    }
    expectEnd(r, end);
    return request;
  } catch (error) {
    throw asDecodeError(error, 'ExportTraceServiceRequest');
  }
}

function readResourceSpans(r: Reader, end: number, budget: ItemBudget, max: number): ResourceSpans {
  const out: ResourceSpans = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.resource = readResource(r, fieldEnd(r, end)); break;
      case 18: (out.scopeSpans ??= []).push(readScopeSpans(r, fieldEnd(r, end), budget, max)); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, RESOURCE_SPANS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
}

function readScopeSpans(r: Reader, end: number, budget: ItemBudget, max: number): ScopeSpans {
  const out: ScopeSpans = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.scope = readScope(r, fieldEnd(r, end)); break;
      case 18: takeItem(budget, max); (out.spans ??= []).push(readSpan(r, fieldEnd(r, end))); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, SCOPE_SPANS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
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
