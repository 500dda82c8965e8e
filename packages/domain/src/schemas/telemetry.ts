import { limits } from '../limits.js';
import { LOG_LEVELS } from '../types.js';
import { longString, positiveId, recordId, timestamp, uuid } from './common.js';

export const span = {
  $id: 'Span',
  type: 'object',
  description: 'One element of a trace. Unknown extra fields are kept.',
  required: ['traceId', 'spanId', 'timestamp', 'requestMethod'],
  additionalProperties: true,
  properties: {
    timestamp,
    requestMethod: {
      type: 'string',
      maxLength: 1024,
      pattern: '^[a-z][a-z0-9_-]*:.+$',
      description: '`<type>:<name>`; type `controller`, `service`, `external` or another lower-case word.',
      examples: ['controller:GET', 'service:loadCart', 'external:payments'],
    },
    requestURL: longString,
    responseStatus: { type: 'integer', minimum: 100, maximum: 599 },
    traceId: uuid,
    spanId: uuid,
    parentSpanId: { anyOf: [uuid, { type: 'null' }], description: 'Absent or null for the root span.' },
    durationMs: { type: 'integer', minimum: 0, maximum: limits.maxDurationMs },
  },
} as const;

export const logInput = {
  $id: 'LogInput',
  type: 'object',
  description: 'A log entry as sent to ingest. Unknown extra fields are kept.',
  required: ['level', 'message', 'timestamp'],
  additionalProperties: true,
  properties: {
    traceId: uuid,
    level: { type: 'string', enum: [...LOG_LEVELS] },
    type: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,31}$', default: 'app' },
    message: longString,
    timestamp,
    clientTimestamp: { ...timestamp, description: 'Time recorded on the client; defaults to the envelope timestamp.' },
  },
} as const;

/**
 * A field name the service keeps (safety.ts, findUnsafe): no leading `$`, no dot, no NUL, at most 256 characters,
 * not `__proto__`, `constructor` or `prototype`.
 */
const fieldName = {
  type: 'string',
  pattern: '^(?!\\$)[^.\\u0000]{0,256}$',
  not: { enum: ['__proto__', 'constructor', 'prototype'] },
} as const;

/** A value nested no deeper than a batch envelope's extra fields may be: a string of at most 65,536 characters, a number, a boolean or null. */
const scalar = { type: ['string', 'number', 'boolean', 'null'], maxLength: limits.maxStringLength } as const;

const envelope = (items: 'traces' | 'logs', ref: string) =>
  ({
    type: 'object',
    required: ['timestamp', items],
    description: 'Other fields of the envelope are allowed and ignored, nested at most one level: a value, or an array or object of values.',
    propertyNames: fieldName,
    additionalProperties: {
      anyOf: [scalar, { type: 'array', items: scalar }, { type: 'object', propertyNames: fieldName, additionalProperties: scalar }],
    },
    properties: {
      timestamp: { ...timestamp, description: 'Flush time: when the client sent the batch.' },
      [items]: {
        type: 'array',
        maxItems: limits.maxBatchItems,
        items: { type: 'object' },
        description: `Items are validated one by one: valid ones are stored, invalid ones listed in "rejected". Each is a ${ref}.`,
      },
    },
  }) as const;

export const traceBatch = { $id: 'TraceBatch', ...envelope('traces', 'Span') } as const;
export const logBatch = { $id: 'LogBatch', ...envelope('logs', 'LogInput') } as const;

export const ingestResult = {
  $id: 'IngestResult',
  type: 'object',
  required: ['accepted', 'rejected'],
  properties: {
    accepted: { type: 'integer', minimum: 0 },
    rejected: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'errors'],
        properties: { index: { type: 'integer' }, errors: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
} as const;

export const traceRecord = {
  $id: 'TraceRecord',
  type: 'object',
  required: ['id', 'projectId', 'applicationId', 'traceId', 'timestamp', 'telemetry'],
  properties: {
    id: recordId,
    projectId: positiveId,
    applicationId: positiveId,
    traceId: uuid,
    timestamp: { ...timestamp, description: "The trace's earliest span timestamp." },
    telemetry: { type: 'array', items: { $ref: 'Span' }, description: 'Spans ordered by timestamp.' },
  },
} as const;

export const logEntry = {
  $id: 'LogEntry',
  type: 'object',
  description: 'A stored log entry: the ingested fields, extra ones included, with its id, project and application.',
  required: ['id', 'projectId', 'applicationId', 'level', 'type', 'message', 'timestamp', 'clientTimestamp'],
  additionalProperties: true,
  properties: { id: recordId, projectId: positiveId, applicationId: positiveId, ...logInput.properties },
} as const;
