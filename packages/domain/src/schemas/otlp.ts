/**
 * OTLP/JSON (opentelemetry-proto's "JSON Protobuf Encoding") as the ingest service accepts it on POST /v1/traces and
 * /v1/logs, and the answers of those operations. Exact as to types; unknown fields are allowed (OTLP requires
 * receivers to ignore them). Ids are strings here: their hex and length are checked span by span (a bad id
 * rejects that span, counted in partialSuccess, not the request). The protobuf encoding decodes to this same shape.
 */

const int64 = {
  anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]{1,20}$' }],
  description: 'A 64-bit integer: a JSON integer or its decimal text.',
} as const;
const uint32 = { type: 'integer', minimum: 0, maximum: 4_294_967_295 } as const;
const hexId = { type: 'string', description: 'Hex text (trace ids 32 digits, span ids 16); checked per item.' } as const;
const enumOf = (names: string[]) => ({ anyOf: [{ type: 'integer', minimum: 0, maximum: 2_147_483_647 }, { type: 'string', enum: names }] }) as const;

export const otlpAnyValue = {
  $id: 'OtlpAnyValue',
  type: 'object',
  description: 'One of stringValue, boolValue, intValue, doubleValue, arrayValue, kvlistValue, bytesValue (base64); empty is null.',
  properties: {
    stringValue: { type: 'string' },
    boolValue: { type: 'boolean' },
    intValue: int64,
    doubleValue: {
      anyOf: [{ type: 'number' }, { type: 'string', enum: ['NaN', 'Infinity', '-Infinity'] }, { type: 'string', pattern: '^-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?$' }],
      description: 'A number, its numeric text (proto3 JSON allows both), or NaN, Infinity, -Infinity as text.',
    },
    arrayValue: { type: 'object', properties: { values: { type: 'array', items: { $ref: 'OtlpAnyValue' } } } },
    kvlistValue: { type: 'object', properties: { values: { type: 'array', items: { $ref: 'OtlpKeyValue' } } } },
    bytesValue: { type: 'string', pattern: '^[A-Za-z0-9+/_-]*={0,2}$' },
  },
} as const;

export const otlpKeyValue = {
  $id: 'OtlpKeyValue',
  type: 'object',
  description: 'An attribute. `key` may be absent (a proto3 JSON serialiser leaves out an empty key): read as "".',
  properties: { key: { type: 'string' }, value: { $ref: 'OtlpAnyValue' } },
} as const;

const attributes = { type: 'array', items: { $ref: 'OtlpKeyValue' } } as const;
const resource = { type: 'object', properties: { attributes, droppedAttributesCount: uint32 } } as const;
const scope = { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' }, attributes, droppedAttributesCount: uint32 } } as const;

export const otlpSpan = {
  $id: 'OtlpSpan',
  type: 'object',
  properties: {
    traceId: hexId,
    spanId: hexId,
    traceState: { type: 'string' },
    parentSpanId: hexId,
    flags: uint32,
    name: { type: 'string' },
    kind: enumOf(['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER']),
    startTimeUnixNano: int64,
    endTimeUnixNano: int64,
    attributes,
    droppedAttributesCount: uint32,
    events: {
      type: 'array',
      items: { type: 'object', properties: { timeUnixNano: int64, name: { type: 'string' }, attributes, droppedAttributesCount: uint32 } },
    },
    droppedEventsCount: uint32,
    links: {
      type: 'array',
      items: { type: 'object', properties: { traceId: hexId, spanId: hexId, traceState: { type: 'string' }, attributes, droppedAttributesCount: uint32, flags: uint32 } },
    },
    droppedLinksCount: uint32,
    status: { type: 'object', properties: { message: { type: 'string' }, code: enumOf(['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR']) } },
  },
} as const;

const SEVERITIES = ['UNSPECIFIED', ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((s) => [s, `${s}2`, `${s}3`, `${s}4`])].map((s) => `SEVERITY_NUMBER_${s}`);

export const otlpLogRecord = {
  $id: 'OtlpLogRecord',
  type: 'object',
  properties: {
    timeUnixNano: int64,
    observedTimeUnixNano: int64,
    severityNumber: enumOf(SEVERITIES),
    severityText: { type: 'string' },
    body: { $ref: 'OtlpAnyValue' },
    attributes,
    droppedAttributesCount: uint32,
    flags: uint32,
    traceId: hexId,
    spanId: hexId,
    eventName: { type: 'string' },
  },
} as const;

const signal = (outer: string, inner: string, items: string, ref: string) => ({
  type: 'object',
  properties: {
    [outer]: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          resource,
          schemaUrl: { type: 'string' },
          [inner]: {
            type: 'array',
            items: { type: 'object', properties: { scope, schemaUrl: { type: 'string' }, [items]: { type: 'array', items: { $ref: ref } } } },
          },
        },
      },
    },
  },
});

export const otlpTracesRequest = {
  $id: 'OtlpTracesRequest',
  description: 'ExportTraceServiceRequest in OTLP/JSON. At most 10,000 spans in all (more: 400, nothing stored).',
  ...signal('resourceSpans', 'scopeSpans', 'spans', 'OtlpSpan'),
} as const;

export const otlpLogsRequest = {
  $id: 'OtlpLogsRequest',
  description: 'ExportLogsServiceRequest in OTLP/JSON. At most 10,000 log records in all (more: 400, nothing stored).',
  ...signal('resourceLogs', 'scopeLogs', 'logRecords', 'OtlpLogRecord'),
} as const;

const partial = (field: string) => ({
  type: 'object',
  description: 'Empty (`{}`) when everything was accepted.',
  properties: {
    partialSuccess: {
      type: 'object',
      properties: { [field]: { type: 'string', pattern: '^[0-9]+$', description: 'How many were rejected (int64 as text).' }, errorMessage: { type: 'string' } },
    },
  },
});

export const otlpTracesResponse = { $id: 'OtlpTracesResponse', ...partial('rejectedSpans') } as const;
export const otlpLogsResponse = { $id: 'OtlpLogsResponse', ...partial('rejectedLogRecords') } as const;

export const otlpStatus = {
  $id: 'OtlpStatus',
  type: 'object',
  description: 'google.rpc.Status: every error of /v1/* has this body, in the encoding of the request (protobuf or JSON).',
  required: ['code', 'message'],
  properties: {
    code: { type: 'integer', description: 'gRPC code: 3 INVALID_ARGUMENT (400, 415), 5 NOT_FOUND, 8 RESOURCE_EXHAUSTED (413, 429), 12 UNIMPLEMENTED (405), 13 INTERNAL, 14 UNAVAILABLE, 16 UNAUTHENTICATED.' },
    message: { type: 'string' },
    details: { type: 'array', items: { type: 'object' } },
  },
} as const;
