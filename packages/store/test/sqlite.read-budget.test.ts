import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, newId } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Store } from '@lantern/store';
import { collect, logBatch, logEntry, makeWorld, rootSpan, spanBatch, T0 } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';

/**
 * The read budget of the SQLite store (port.ts, ReadBudget), on the request thread and on the read workers: the
 * budget is checked before every statement, so a budget of 0 ms stops every read before its first statement, and
 * the error that crosses from a worker is the same AppError (503 read_timeout) a route turns into its body.
 */
const variants: Array<[string, (file: string) => Promise<Store>]> = [
  ['on the request thread', (file) => openSqliteStore({ file })],
  ['on read workers', (file) => openSqliteStore({ file, writerThread: true, readWorkers: 2 })],
];

describe.each(variants)('sqlite read budget %s', (_name, open) => {
  let dir: string;
  let store: Store;
  let w: World;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-budget-'));
    store = await open(join(dir, 'lantern.db'));
    w = await makeWorld(store, 'budget');
    await store.writeSpans(spanBatch(w.app, Array.from({ length: 50 }, (_, i) => rootSpan(newId(), T0 + i * 1000))));
    await store.writeLogs(logBatch(w.app, Array.from({ length: 50 }, (_, i) => logEntry(w.app, T0 + i * 1000))));
  });

  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const timeout = (budgetMs: number) => expect.objectContaining({ status: 503, code: 'read_timeout', details: [{ budgetMs }] });

  it('stops every kind of read past its budget with 503 read_timeout, an AppError', async () => {
    const window = { from: T0, to: T0 + 3_600_000 };
    const reads: Array<Promise<unknown>> = [
      collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, budgetMs: 0 })),
      collect(store.streamLogs({ userId: w.user.id, budgetMs: 0 })),
      collect(store.streamRootSpans({ userId: w.user.id, ...window, budgetMs: 0 })),
      store.readMetrics({ userId: w.user.id, ...window, bucketMs: 60_000, budgetMs: 0 }),
    ];
    for (const err of await Promise.all(reads.map((read) => read.then(() => undefined, (e: unknown) => e)))) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toEqual(timeout(0));
    }
  });

  it('answers the same reads whole within a budget they fit in', async () => {
    const window = { from: T0, to: T0 + 3_600_000 };
    expect(await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, budgetMs: 60_000 }))).toHaveLength(50);
    expect(await collect(store.streamLogs({ userId: w.user.id, budgetMs: 60_000 }))).toHaveLength(50);
    expect(await collect(store.streamRootSpans({ userId: w.user.id, ...window, budgetMs: 60_000 }))).toHaveLength(50);
    const cells = await store.readMetrics({ userId: w.user.id, ...window, bucketMs: 3_600_000, budgetMs: 60_000 });
    expect(cells.reduce((n, c) => n + c.requests, 0)).toBe(50);
    expect(cells[0]!.sketch.quantile(0.5)).not.toBeNull();
  });
});
