import { positiveId, timestamp } from './common.js';

export const errorBody = {
  $id: 'Error',
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: {
          type: 'string',
          enum: [
            'bad_request', 'invalid_json', 'validation_failed', 'missing_parameter', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed',
            'request_timeout', 'conflict', 'payload_too_large', 'headers_too_large', 'quota_exceeded', 'unsupported_media_type', 'rate_limited', 'too_many_keys',
            'too_many_organizations', 'too_many_reads', 'unavailable', 'read_timeout', 'internal',
          ],
        },
        message: { type: 'string' },
        details: { type: 'array', items: {} },
      },
    },
  },
} as const;

const latency = {
  requests: { type: 'integer', minimum: 0 },
  errors: { type: 'integer', minimum: 0, description: 'Entry spans with responseStatus >= 500.' },
  errorRate: { type: 'number', minimum: 0, maximum: 1, description: 'errors / requests, rounded to 2 decimals (0 when there are none).' },
  p50Ms: { type: ['number', 'null'] },
  p95Ms: { type: ['number', 'null'] },
  p99Ms: { type: ['number', 'null'] },
} as const;

/** Every bucket of the window, oldest first. */
const series = {
  type: 'array',
  items: {
    type: 'object',
    description: 'One bucket of `bucketMs` from `timestamp`. An empty bucket has 0 requests and null rate and percentiles.',
    required: ['timestamp', 'requests', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms'],
    properties: {
      timestamp: { ...timestamp, description: 'Start of the bucket.' },
      requests: latency.requests,
      errors: latency.errors,
      errorRate: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'errors / requests in the bucket, rounded to 2 decimals; null when it has no requests.' },
      p50Ms: latency.p50Ms,
      p95Ms: latency.p95Ms,
      p99Ms: latency.p99Ms,
    },
  },
} as const;

const bucketWidth = {
  type: 'integer',
  description: 'Width of one time-series bucket: the narrowest of 1, 2, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours and 1 day giving at most 200 buckets (an hour in minutes, a day in 10 minutes, a week in hours). `from` and `to` are multiples of it (UTC).',
} as const;

export const metrics = {
  $id: 'Metrics',
  type: 'object',
  description:
    'Request metrics per application from its entry (`controller:`) spans: without parent, or under a span of another application. Percentiles are within 1% of the exact value.',
  required: ['from', 'to', 'bucketMs', 'applications'],
  properties: {
    from: timestamp,
    to: timestamp,
    bucketMs: bucketWidth,
    applications: {
      type: 'array',
      items: {
        type: 'object',
        required: ['applicationId', 'projectId', 'requests', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms', 'series'],
        properties: {
          applicationId: positiveId,
          projectId: positiveId,
          ...latency,
          series,
        },
      },
    },
  },
} as const;

export const operationMetrics = {
  $id: 'OperationMetrics',
  type: 'object',
  description:
    'Request metrics per operation (route) of each application, from the same entry spans as GET /metrics: an entry span counts under its operation (its OpenTelemetry name, or its method and route). Percentiles are within 1% of the exact value.',
  required: ['from', 'to', 'bucketMs', 'total', 'operations'],
  properties: {
    from: timestamp,
    to: timestamp,
    bucketMs: { type: 'integer', description: 'GET /metrics\' bucket width while it is 1 or 2 minutes (a window up to 6 h 40 min); past it an hour or more (1, 2, 3, 6, 12 hours, 1 day), `from` and `to` then whole hours. `from` and `to` are multiples of it (UTC).' },
    total: { type: 'integer', minimum: 0, description: 'How many (application, operation) rows the window has; `operations` lists the `limit` busiest.' },
    operations: {
      type: 'array',
      description: 'Busiest first (requests), then by application and operation.',
      items: {
        type: 'object',
        required: ['applicationId', 'projectId', 'operation', 'requests', 'ratePerMinute', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms', 'series'],
        properties: {
          applicationId: positiveId,
          projectId: positiveId,
          operation: {
            type: ['string', 'null'],
            maxLength: 200,
            description: 'The operation, as GET /logs/project `operation` finds its traces. null: the application\'s other operations, those past the 200 names an application\'s hour keeps and entry spans without a name.',
          },
          ...latency,
          ratePerMinute: { type: 'number', minimum: 0, description: 'requests per minute over the part of the window that has passed, rounded to 2 decimals.' },
          series,
        },
      },
    },
  },
} as const;

const edgeFigures = {
  errors: latency.errors,
  errorRate: latency.errorRate,
  p50Ms: latency.p50Ms,
  p95Ms: latency.p95Ms,
  p99Ms: latency.p99Ms,
} as const;

export const serviceMap = {
  $id: 'ServiceMap',
  type: 'object',
  description:
    'The applications of a project and the calls between them in a window, from rollups kept as spans are written: a call is an entry span of one application whose parent is a span of another (its caller), counted once both are stored.',
  required: ['from', 'to', 'nodes', 'edges'],
  properties: {
    from: timestamp,
    to: timestamp,
    nodes: {
      type: 'array',
      description: 'The applications with entry spans or calls in the window, by id: their entry spans as GET /metrics counts them (an application that only calls others has 0 requests).',
      items: { type: 'object', required: ['applicationId', 'requests', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms'], properties: { applicationId: positiveId, ...latency } },
    },
    edges: {
      type: 'array',
      description: 'By caller, then callee.',
      items: {
        type: 'object',
        required: ['callerApplicationId', 'calleeApplicationId', 'calls', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms'],
        properties: {
          callerApplicationId: positiveId,
          calleeApplicationId: positiveId,
          calls: { type: 'integer', minimum: 0 },
          ...edgeFigures,
          errorRate: { ...latency.errorRate, description: 'errors / calls, rounded to 2 decimals.' },
          p99Ms: { type: ['number', 'null'], description: 'Of the called entry spans\' durations, as p50Ms and p95Ms: within 1%.' },
        },
      },
    },
  },
} as const;

const levelName = { type: 'string', enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] } as const;
const count = { type: 'integer', minimum: 0 } as const;

export const logVolume = {
  $id: 'LogVolume',
  type: 'object',
  description: 'The logs of a project\'s window counted by the time they carry: per bucket and level (the histogram), and in all per level and per application (the facets).',
  required: ['from', 'to', 'bucketMs', 'total', 'levels', 'applications', 'buckets'],
  properties: {
    from: timestamp,
    to: timestamp,
    bucketMs: { type: 'integer', description: 'As GET /metrics: at most 200 buckets, `from` and `to` multiples of it (UTC).' },
    total: count,
    levels: { type: 'array', description: 'Every level, in this order: trace, debug, info, warn, error, fatal; 0 included.', items: { type: 'object', required: ['level', 'count'], properties: { level: levelName, count } } },
    applications: { type: 'array', description: 'The applications with logs in the window, most first.', items: { type: 'object', required: ['applicationId', 'count'], properties: { applicationId: positiveId, count } } },
    buckets: {
      type: 'array',
      description: 'Every bucket of the window, oldest first.',
      items: {
        type: 'object',
        required: ['timestamp', 'total', 'levels'],
        properties: {
          timestamp: { ...timestamp, description: 'Start of the bucket.' },
          total: count,
          levels: { type: 'object', description: 'The count of each level the bucket has.', properties: Object.fromEntries(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((l) => [l, count])), additionalProperties: false },
        },
      },
    },
  },
} as const;

export const logFacets = {
  $id: 'LogFacets',
  type: 'object',
  description: 'The top values of chosen keys among the newest logs that match the filters (at most `sample` of them): a field\'s facet as the console shows it.',
  required: ['sampled', 'complete', 'facets'],
  properties: {
    sampled: { ...count, description: 'How many logs were read: the newest that match, at most 10,000.' },
    complete: { type: 'boolean', description: 'True when every matching log was read (fewer than the sample\'s bound matched): the counts are the whole set\'s.' },
    facets: {
      type: 'array',
      description: 'One per distinct `key` asked for, in the order first asked. A key `attr` cannot search (a log\'s `id`, `timestamp`, `clientTimestamp`, `traceId`, `spanId`, `message`) counts every log as missing.',
      items: {
        type: 'object',
        required: ['key', 'values', 'others', 'missing'],
        properties: {
          key: { type: 'string' },
          values: {
            type: 'array',
            description: 'At most 10, most frequent first (then by value). A value is text as `attr` compares it: a number as `500`, a boolean as `true`.',
            items: { type: 'object', required: ['value', 'count'], properties: { value: { type: 'string' }, count } },
          },
          others: { ...count, description: 'Logs read with the key and a value not listed (or a list or nested value, or a text over 256 characters).' },
          missing: { ...count, description: 'Logs read without the key.' },
        },
      },
    },
  },
} as const;
