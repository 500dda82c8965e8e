/**
 * An OTLP export request as OTLP/JSON spells it (opentelemetry-proto, "JSON Protobuf Encoding"): lowerCamelCase
 * field names, trace and span ids as hex text, 64-bit integers as decimal text or numbers, enums as numbers (or
 * their names). The protobuf decoder produces this same shape, so one mapping serves both encodings.
 */

export type OtlpInt64 = string | number;

export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: OtlpInt64;
  doubleValue?: number | string;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  /** base64 */
  bytesValue?: string;
}

export interface OtlpKeyValue {
  /** Absent when a proto3 JSON serialiser left out an empty key: read as ''. */
  key?: string;
  value?: OtlpAnyValue;
}

export interface OtlpResource {
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpScope {
  name?: string;
  version?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpEvent {
  timeUnixNano?: OtlpInt64;
  name?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
}

export interface OtlpLink {
  /** hex */
  traceId?: string;
  /** hex */
  spanId?: string;
  traceState?: string;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
}

export interface OtlpSpan {
  /** hex, 32 digits when valid */
  traceId?: string;
  /** hex, 16 digits when valid */
  spanId?: string;
  traceState?: string;
  /** hex; empty or absent for a root */
  parentSpanId?: string;
  flags?: number;
  name?: string;
  /** 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer (or "SPAN_KIND_SERVER"...) */
  kind?: number | string;
  startTimeUnixNano?: OtlpInt64;
  endTimeUnixNano?: OtlpInt64;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  events?: OtlpEvent[];
  droppedEventsCount?: number;
  links?: OtlpLink[];
  droppedLinksCount?: number;
  /** code: 0 unset, 1 ok, 2 error (or "STATUS_CODE_ERROR"...) */
  status?: { message?: string; code?: number | string };
}

export interface OtlpTracesRequest {
  resourceSpans?: Array<{
    resource?: OtlpResource;
    scopeSpans?: Array<{ scope?: OtlpScope; spans?: OtlpSpan[]; schemaUrl?: string }>;
    schemaUrl?: string;
  }>;
}

export interface OtlpLogRecord {
  timeUnixNano?: OtlpInt64;
  observedTimeUnixNano?: OtlpInt64;
  /** 0 unspecified, 1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-20 error, 21-24 fatal (or "SEVERITY_NUMBER_INFO"...) */
  severityNumber?: number | string;
  severityText?: string;
  body?: OtlpAnyValue;
  attributes?: OtlpKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
  /** hex */
  traceId?: string;
  /** hex */
  spanId?: string;
  eventName?: string;
}

export interface OtlpLogsRequest {
  resourceLogs?: Array<{
    resource?: OtlpResource;
    scopeLogs?: Array<{ scope?: OtlpScope; logRecords?: OtlpLogRecord[]; schemaUrl?: string }>;
    schemaUrl?: string;
  }>;
}
