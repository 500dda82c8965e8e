import { describe, expect, it } from '@jest/globals';
import type { MetricsPoint, OperationMetrics } from '../src/api/types';
import {
  bucketStep, bucketTraces, DEFAULT_OPERATION_SORT, errorShare, formatRate, nextOperationSort, operationKey, operationSortParam, operationTraces,
  parseOperationSort, sortOperations, sparkPaths,
} from '../src/lib/operations';
import { parseRefresh, refreshParam } from '../src/lib/metrics-view';

const point = (timestamp: string, requests: number, errors = 0): MetricsPoint => ({
  timestamp, requests, errors, errorRate: requests ? errors / requests : null, p50Ms: requests ? 10 : null, p95Ms: requests ? 20 : null, p99Ms: requests ? 30 : null,
});

const op = (operation: string | null, requests: number, patch: Partial<OperationMetrics> = {}): OperationMetrics => ({
  applicationId: 1, projectId: 1, operation, requests, ratePerMinute: requests / 60, errors: 0, errorRate: 0, p50Ms: 10, p95Ms: 20, p99Ms: 30, series: [], ...patch,
});

describe('operations sort in the URL', () => {
  it('reads a column with or without its direction, and falls back to busiest first', () => {
    expect(parseOperationSort('p95')).toEqual({ column: 'p95', direction: 'descending' });
    expect(parseOperationSort('p95-asc')).toEqual({ column: 'p95', direction: 'ascending' });
    expect(parseOperationSort('operation')).toEqual({ column: 'operation', direction: 'ascending' });
    expect(parseOperationSort('errors-desc')).toEqual({ column: 'errors', direction: 'descending' });
    for (const bad of [null, '', 'p95-up', 'latency', '-asc', 'p95-asc-desc']) expect(parseOperationSort(bad)).toEqual(DEFAULT_OPERATION_SORT);
  });

  it('writes nothing for the default and round-trips the others', () => {
    expect(operationSortParam(DEFAULT_OPERATION_SORT)).toBeUndefined();
    for (const raw of ['rate-asc', 'p99-desc', 'operation-asc', 'operation-desc', 'errors-asc']) expect(operationSortParam(parseOperationSort(raw))).toBe(raw);
  });

  it('a heading sorts by its column in its first direction, and the other way on a second click', () => {
    expect(nextOperationSort('p95', DEFAULT_OPERATION_SORT)).toEqual({ column: 'p95', direction: 'descending' });
    expect(nextOperationSort('p95', { column: 'p95', direction: 'descending' })).toEqual({ column: 'p95', direction: 'ascending' });
    expect(nextOperationSort('operation', DEFAULT_OPERATION_SORT)).toEqual({ column: 'operation', direction: 'ascending' });
    expect(nextOperationSort('rate', DEFAULT_OPERATION_SORT)).toEqual({ column: 'rate', direction: 'ascending' });
  });
});

describe('sortOperations', () => {
  const rows = [
    op('GET /items/:id', 1200, { errors: 12, p95Ms: 120 }),
    op('POST /cart', 300, { errors: 30, p95Ms: 400 }),
    op(null, 100, { p95Ms: 50 }),
    op('GET /health', 100, { p50Ms: null, p95Ms: null, p99Ms: null }),
  ];
  const names = (list: OperationMetrics[]) => list.map((r) => r.operation);

  it('keeps the server order for the default, sorts by a figure either way with missing values last', () => {
    expect(names(sortOperations(rows, DEFAULT_OPERATION_SORT))).toEqual(['GET /items/:id', 'POST /cart', null, 'GET /health']);
    expect(names(sortOperations(rows, { column: 'p95', direction: 'descending' }))).toEqual(['POST /cart', 'GET /items/:id', null, 'GET /health']);
    expect(names(sortOperations(rows, { column: 'p95', direction: 'ascending' }))).toEqual([null, 'GET /items/:id', 'POST /cart', 'GET /health']);
    // Ties keep the server's order.
    expect(names(sortOperations(rows, { column: 'rate', direction: 'ascending' }))).toEqual([null, 'GET /health', 'POST /cart', 'GET /items/:id']);
  });

  it('sorts errors by their share (exact, from the counts), names alphabetically with the other operations last', () => {
    expect(names(sortOperations(rows, { column: 'errors', direction: 'descending' }))).toEqual(['POST /cart', 'GET /items/:id', null, 'GET /health']);
    expect(names(sortOperations(rows, { column: 'operation', direction: 'ascending' }))).toEqual(['GET /health', 'GET /items/:id', 'POST /cart', null]);
    expect(names(sortOperations(rows, { column: 'operation', direction: 'descending' }))).toEqual(['POST /cart', 'GET /items/:id', 'GET /health', null]);
    expect(errorShare(op('x', 3, { errors: 1, errorRate: 0.33 }))).toBeCloseTo(1 / 3, 10);
  });

  it('tells rows apart by application and operation, the other operations included', () => {
    expect(operationKey(op(null, 1))).not.toBe(operationKey(op('', 1)));
    expect(operationKey(op('a', 1))).not.toBe(operationKey(op('a', 1, { applicationId: 2 })));
  });
});

describe('the traces a row or a bucket opens', () => {
  const window = { from: '2026-11-27T09:00:00.000Z', to: '2026-11-27T10:00:00.000Z' };

  it('a row: its application and operation in the report window; the other operations: the application', () => {
    expect(operationTraces(op('GET /items/:id', 1, { applicationId: 3 }), window)).toEqual({ applicationId: '3', operation: 'GET /items/:id', ...window });
    expect(operationTraces(op(null, 1, { applicationId: 3 }), window)).toEqual({ applicationId: '3', ...window });
  });

  it('a bucket: its own window, and only the failed traces when it had errors', () => {
    const row = op('POST /cart', 1, { applicationId: 2 });
    expect(bucketTraces(row, point('2026-11-27T09:30:00.000Z', 5), 60_000))
      .toEqual({ applicationId: '2', operation: 'POST /cart', from: '2026-11-27T09:30:00.000Z', to: '2026-11-27T09:31:00.000Z' });
    expect(bucketTraces(row, point('2026-11-27T09:30:00.000Z', 5, 2), 300_000))
      .toEqual({ applicationId: '2', operation: 'POST /cart', from: '2026-11-27T09:30:00.000Z', to: '2026-11-27T09:35:00.000Z', status: '5xx' });
  });
});

describe('sparkline', () => {
  it('draws a bar per bucket with requests, scaled to the busiest, errors at least minError high', () => {
    const paths = sparkPaths([point('a', 10), point('b', 0), point('c', 5, 1)], 24, 2);
    expect(paths.max).toBe(10);
    expect(paths.requests).toBe('M0.15 24v-24h0.7v24zM2.15 24v-12h0.7v12z');
    expect(paths.errors).toBe('M2.15 24v-2.4h0.7v2.4z');
    expect(sparkPaths([point('a', 1000, 1)], 24, 2).errors).toBe('M0.15 24v-2h0.7v2z');
    expect(sparkPaths([point('a', 0)], 24)).toEqual({ requests: '', errors: '', max: 0 });
  });

  it('steps the keyboard cursor over the buckets with requests', () => {
    const series = [point('a', 0), point('b', 3), point('c', 0), point('d', 1), point('e', 0)];
    expect(bucketStep(series, undefined, 'ArrowRight')).toBe(1);
    expect(bucketStep(series, undefined, 'ArrowLeft')).toBe(3);
    expect(bucketStep(series, 1, 'ArrowRight')).toBe(3);
    expect(bucketStep(series, 3, 'ArrowRight')).toBe(3);
    expect(bucketStep(series, 3, 'ArrowLeft')).toBe(1);
    expect(bucketStep(series, 1, 'ArrowLeft')).toBe(1);
    expect(bucketStep(series, 1, 'j')).toBeUndefined();
    expect(bucketStep([point('a', 0)], undefined, 'ArrowRight')).toBeUndefined();
  });
});

describe('formatRate and the auto-refresh choice', () => {
  it('formats requests per minute', () => {
    expect([0, 0.004, 0.08, 1.5, 12.34, 123.4, 12345].map(formatRate)).toEqual(['0', '<0.01', '0.08', '1.5', '12.3', '123', '12,345']);
    expect(formatRate(null)).toBe('–');
  });

  it('reads refresh= with 30 s by default, and writes nothing for the default', () => {
    expect(parseRefresh(null).ms).toBe(30_000);
    expect(parseRefresh('off').ms).toBe(0);
    expect(parseRefresh('1m').ms).toBe(60_000);
    expect(parseRefresh('5m').ms).toBe(300_000);
    expect(parseRefresh('1s').ms).toBe(30_000);
    expect(refreshParam(parseRefresh('30s'))).toBeUndefined();
    expect(refreshParam(parseRefresh('off'))).toBe('off');
  });
});
