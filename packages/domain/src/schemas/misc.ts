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

export const metrics = {
  $id: 'Metrics',
  type: 'object',
  description:
    'Request metrics per application from its entry (`controller:`) spans: without parent, or under a span of another application. Percentiles are within 1% of the exact value.',
  required: ['from', 'to', 'bucketMs', 'applications'],
  properties: {
    from: timestamp,
    to: timestamp,
    bucketMs: {
      type: 'integer',
      description: 'Width of one time-series bucket: the narrowest of 1, 2, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours and 1 day giving at most 200 buckets (an hour in minutes, a day in 10 minutes, a week in hours). `from` and `to` are multiples of it (UTC).',
    },
    applications: {
      type: 'array',
      items: {
        type: 'object',
        required: ['applicationId', 'projectId', 'requests', 'errors', 'errorRate', 'p50Ms', 'p95Ms', 'p99Ms', 'series'],
        properties: {
          applicationId: positiveId,
          projectId: positiveId,
          ...latency,
          series: {
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
          },
        },
      },
    },
  },
} as const;
