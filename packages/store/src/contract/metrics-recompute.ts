import { expect } from '@jest/globals';
import type { MetricsCell, MetricsQuery, Store } from '../port.js';
import { byOperation } from '../rollups.js';
import { collect } from './fixtures.js';

/** The exact q-quantile by nearest rank (the definition the sketch approximates). */
export function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

interface Recomputed {
  projectId: number;
  applicationId: number;
  bucket: number;
  /** With `byOperation`: the operation, null for those without a name. */
  operation?: string | null;
  errors: number;
  durations: number[];
}

/**
 * The query's cells recomputed from the raw entry spans (streamRootSpans), by application then bucket; with
 * `byOperation`, by application, operation (null last) then bucket, of the spans that carry an operation (fewer
 * names than an hour keeps: the bound is not applied here).
 */
export async function recompute(store: Store, query: MetricsQuery): Promise<Recomputed[]> {
  const { bucketMs, byOperation: perOperation, ...window } = query;
  const cells = new Map<string, Recomputed>();
  for (const row of await collect(store.streamRootSpans(window))) {
    if (perOperation && row.operation === null) continue;
    const bucket = query.from + Math.floor((row.ts - query.from) / bucketMs) * bucketMs;
    const operation = perOperation ? row.operation || null : undefined;
    const key = `${row.applicationId}:${bucket}:${operation}`;
    let cell = cells.get(key);
    if (!cell) {
      cells.set(key, (cell = { projectId: row.projectId, applicationId: row.applicationId, bucket, errors: 0, durations: [] }));
      if (operation !== undefined) cell.operation = operation;
    }
    cell.durations.push(row.durationMs);
    if ((row.responseStatus ?? 0) >= 500) cell.errors++;
  }
  return [...cells.values()].sort((a, b) => a.applicationId - b.applicationId || byOperation(a.operation, b.operation) || a.bucket - b.bucket);
}

/** Counts and errors exactly as the recomputation, p50, p95 and p99 within 1%. */
export function expectSameAsRecomputed(cells: MetricsCell[], expected: Recomputed[]): void {
  const shape = (c: { projectId: number; applicationId: number; bucket: number; errors: number; operation?: string | null }, requests: number) =>
    ({ projectId: c.projectId, applicationId: c.applicationId, operation: c.operation, bucket: c.bucket, requests, errors: c.errors });
  expect(cells.map((c) => shape(c, c.requests))).toEqual(expected.map((e) => shape(e, e.durations.length)));
  cells.forEach((cell, i) => {
    for (const q of [0.5, 0.95, 0.99]) {
      const exact = exactQuantile(expected[i]!.durations, q);
      const got = cell.sketch.quantile(q);
      expect(got).not.toBeNull();
      expect(Math.abs(got! - exact)).toBeLessThanOrEqual(exact * 0.01);
    }
  });
}

/**
 * readMetrics and the recomputation from raw spans agree for this query, per application and per operation (the
 * per-operation rollups follow every rule the others do: repeats, late parents, hours, the purge).
 */
export async function expectRollupsTrue(store: Store, query: MetricsQuery): Promise<MetricsCell[]> {
  const cells = await store.readMetrics(query);
  expectSameAsRecomputed(cells, await recompute(store, query));
  const perOperation = { ...query, byOperation: true };
  expectSameAsRecomputed(await store.readMetrics(perOperation), await recompute(store, perOperation));
  return cells;
}
