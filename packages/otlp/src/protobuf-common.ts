/**
 * Decoders of opentelemetry.proto.common.v1 and resource.v1 (AnyValue, KeyValue, InstrumentationScope, Resource)
 * straight into the OTLP/JSON shape. Field tags are written out as (field number << 3 | wire type).
 */
import { MAX_ATTRIBUTES } from './bounds.js';
import { OtlpDecodeError } from './errors.js';
import { expectEnd, fieldEnd, readBase64, readInt64Text, skipField, type Reader } from './protobuf-wire.js';
import type { OtlpAnyValue, OtlpKeyValue, OtlpResource, OtlpScope } from './shape.js';

/**
 * Deepest nesting of AnyValues (an array or kvlist inside an AnyValue counts one level). Deeper input is refused as
 * undecodable, before any recursion could exhaust the stack: a 5 MiB body could otherwise nest a million levels. As
 * the JSON path's raw depth bound (limits.maxJsonDepth, 64), it sits well above the stored depth bound
 * (limits.maxDepth, 16), so a merely deep attribute gets the span rejected by normalizeSpan, not the request.
 */
export const MAX_ANY_VALUE_DEPTH = 64;

// Known field numbers of each message, as bit masks: such a field with another wire type is malformed.
// key_strindex (KeyValue 3) and string_value_strindex (AnyValue 8) are used by profiles only and no case reads them:
// they are left out of the masks, so they are skipped as unknown fields are, whatever their wire type.
export const ANY_VALUE_FIELDS = 0b1111_1110; // 1-7
export const LIST_FIELDS = 0b10; // values = 1 (ArrayValue, KeyValueList)
export const KEY_VALUE_FIELDS = 0b110; // key = 1, value = 2
const SCOPE_FIELDS = 0b1_1110; // name, version, attributes, dropped_attributes_count
const RESOURCE_FIELDS = 0b1110; // attributes, dropped_attributes_count, entity_refs

/** An AnyValue ending at `end`; {} when no value is set (the empty AnyValue). The last field of the oneof wins. */
export function readAnyValue(r: Reader, end: number, depth: number): OtlpAnyValue {
  if (depth > MAX_ANY_VALUE_DEPTH) throw new OtlpDecodeError(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  let value: OtlpAnyValue | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: value = { stringValue: r.string() }; break;
      case 16: value = { boolValue: r.bool() }; break;
      case 24: value = { intValue: readInt64Text(r) }; break;
      case 33: value = { doubleValue: r.double() }; break;
      case 42: value = { arrayValue: { values: readAnyValueList(r, fieldEnd(r, end), depth) } }; break;
      case 50: value = { kvlistValue: { values: readKeyValueList(r, fieldEnd(r, end), depth) } }; break;
      case 58: value = { bytesValue: readBase64(r, end) }; break;
      default: skipField(r, tag, ANY_VALUE_FIELDS);
    }
  }
  expectEnd(r, end);
  return value ?? {};
}

/** ArrayValue.values */
function readAnyValueList(r: Reader, end: number, depth: number): OtlpAnyValue[] {
  const values: OtlpAnyValue[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) values.push(readAnyValue(r, fieldEnd(r, end), depth + 1));
    else skipField(r, tag, LIST_FIELDS);
  }
  expectEnd(r, end);
  return values;
}

/** KeyValueList.values */
function readKeyValueList(r: Reader, end: number, depth: number): OtlpKeyValue[] {
  const values: OtlpKeyValue[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) values.push(readKeyValue(r, fieldEnd(r, end), depth + 1));
    else skipField(r, tag, LIST_FIELDS);
  }
  expectEnd(r, end);
  return values;
}

/** A KeyValue; its value is left out when absent on the wire. */
export function readKeyValue(r: Reader, end: number, depth: number): OtlpKeyValue {
  let key = '';
  let value: OtlpAnyValue | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: key = r.string(); break;
      case 18: value = readAnyValue(r, fieldEnd(r, end), depth); break;
      default: skipField(r, tag, KEY_VALUE_FIELDS); // key_strindex (profiles only) and unknown fields
    }
  }
  expectEnd(r, end);
  return value === undefined ? { key } : { key, value };
}

/**
 * Reads one element of a `repeated KeyValue attributes` field into `into` (created on the first one). Past
 * MAX_ATTRIBUTES one more is kept (the mapping then rejects the holder's item with the reason) and the rest skipped.
 */
export function pushAttribute(r: Reader, end: number, into: OtlpKeyValue[] | undefined): OtlpKeyValue[] {
  const list = into ?? [];
  if (list.length > MAX_ATTRIBUTES) r.skipType(2);
  else list.push(readKeyValue(r, fieldEnd(r, end), 1));
  return list;
}

/** InstrumentationScope */
export function readScope(r: Reader, end: number): OtlpScope {
  const scope: OtlpScope = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: scope.name = r.string(); break;
      case 18: scope.version = r.string(); break;
      case 26: scope.attributes = pushAttribute(r, end, scope.attributes); break;
      case 32: scope.droppedAttributesCount = r.uint32(); break;
      default: skipField(r, tag, SCOPE_FIELDS);
    }
  }
  expectEnd(r, end);
  return scope;
}

/** Resource (its entity_refs are skipped: Lantern does not use them) */
export function readResource(r: Reader, end: number): OtlpResource {
  const resource: OtlpResource = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag) {
      case 10: resource.attributes = pushAttribute(r, end, resource.attributes); break;
      case 16: resource.droppedAttributesCount = r.uint32(); break;
      case 26: r.skipType(2); break;
      default: skipField(r, tag, RESOURCE_FIELDS);
    }
  }
  expectEnd(r, end);
  return resource;
}
