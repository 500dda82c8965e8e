/**
 * ExportLogsServiceRequest (opentelemetry.proto.collector.logs.v1) bytes -> the OTLP/JSON shape, by the rules of
 * protobuf-traces.ts: ids as lower-case hex (left out when empty), times as decimal text, enums as numbers.
 */
import { type ItemBudget, takeItem } from './bounds.js';
import { asDecodeError } from './errors.js';
import { pushAttribute, readAnyValue, readResource, readScope } from './protobuf-common.js';
import { expectEnd, fieldEnd, openReader, readFixed64Text, readHex, skipField, type Reader } from './protobuf-wire.js';
import type { OtlpLogRecord, OtlpLogsRequest } from './shape.js';

type ResourceLogs = NonNullable<OtlpLogsRequest['resourceLogs']>[number];
type ScopeLogs = NonNullable<ResourceLogs['scopeLogs']>[number];

const REQUEST_FIELDS = 0b10;
const RESOURCE_LOGS_FIELDS = 0b1110;
const SCOPE_LOGS_FIELDS = 0b1110;
const LOG_RECORD_FIELDS = 0b1_1111_1110_1110; // 1-3, 5-12 (4 is reserved)

/** Decodes an ExportLogsServiceRequest; any malformed input throws OtlpDecodeError. Past `maxRecords` log records it stops at once with OtlpTooManyItemsError. */
export function decodeLogsProtobuf(body: Uint8Array, maxRecords = Infinity): OtlpLogsRequest {
  try {
    const r = openReader(body);
    const budget: ItemBudget = { left: maxRecords };
    const request: OtlpLogsRequest = {};
    const end = r.len;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag === 10) (request.resourceLogs ??= []).push(readResourceLogs(r, fieldEnd(r, end), budget, maxRecords));
      else skipField(r, tag, REQUEST_FIELDS);
    }
    expectEnd(r, end);
    return request;
  } catch (error) {
    throw asDecodeError(error, 'ExportLogsServiceRequest');
  }
}

function readResourceLogs(r: Reader, end: number, budget: ItemBudget, max: number): ResourceLogs {
  const out: ResourceLogs = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.resource = readResource(r, fieldEnd(r, end)); break;
      case 18: (out.scopeLogs ??= []).push(readScopeLogs(r, fieldEnd(r, end), budget, max)); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, RESOURCE_LOGS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
}

function readScopeLogs(r: Reader, end: number, budget: ItemBudget, max: number): ScopeLogs {
  const out: ScopeLogs = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: out.scope = readScope(r, fieldEnd(r, end)); break;
      case 18: takeItem(budget, max); (out.logRecords ??= []).push(readLogRecord(r, fieldEnd(r, end))); break;
      case 26: out.schemaUrl = r.string(); break;
      default: skipField(r, tag, SCOPE_LOGS_FIELDS);
    }
  }
  expectEnd(r, end);
  return out;
}

function readLogRecord(r: Reader, end: number): OtlpLogRecord {
  const log: OtlpLogRecord = {};
  let id: string;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 9: log.timeUnixNano = readFixed64Text(r); break;
      case 16: log.severityNumber = r.int32(); break;
      case 26: log.severityText = r.string(); break;
      case 42: log.body = readAnyValue(r, fieldEnd(r, end), 1); break;
      case 50: log.attributes = pushAttribute(r, end, log.attributes); break;
      case 56: log.droppedAttributesCount = r.uint32(); break;
      case 69: log.flags = r.fixed32(); break;
      case 74: if ((id = readHex(r, end))) log.traceId = id; break;
      case 82: if ((id = readHex(r, end))) log.spanId = id; break;
      case 89: log.observedTimeUnixNano = readFixed64Text(r); break;
      case 98: log.eventName = r.string(); break;
      default: skipField(r, tag, LOG_RECORD_FIELDS);
    }
  }
  expectEnd(r, end);
  return log;
}
