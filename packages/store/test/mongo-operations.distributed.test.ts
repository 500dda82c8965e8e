import { describe, expect, it } from '@jest/globals';
import type { Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { MetricsCell, MetricsQuery, Store } from '@lantern/store';
import { HOUR, T0, makeWorld, rootSpan, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { mongoStores } from './mongo-stores.js';
import { expectRollupsTrue, expectSameAsRecomputed, recompute } from '../src/contract/metrics-recompute.js';
import { MAX_OPERATIONS_PER_HOUR } from '../src/operation-rollups.js';

/*
 * The per-operation rollups on MongoDB beyond the contract: the names an hour keeps, decided by several writers at
 * once without transactions (operation-names.ts), and the purge's partial hour read per operation (rollups.ts).
 */

const { openStore } = mongoStores();
const MINUTE = 60_000;

/** Requests per operation over the cells (null: the other operations). */
const perOperation = (cells: MetricsCell[]): Map<string | null, number> => {
  const out = new Map<string | null, number>();
  for (const c of cells) out.set(c.operation ?? null, (out.get(c.operation ?? null) ?? 0) + c.requests);
  return out;
};
const hourOf = (w: World, extra: Partial<MetricsQuery> = {}): MetricsQuery =>
  ({ userId: w.user.id, applicationId: w.app.id, from: T0, to: T0 + HOUR, bucketMs: HOUR, byOperation: true, ...extra });

describe('mongo store: the operation names an hour keeps', () => {
  it(`two clients writing ${MAX_OPERATIONS_PER_HOUR + 40} names at once into one hour keep exactly ${MAX_OPERATIONS_PER_HOUR}, each span counted once`, async () => {
    const { store: a, db, database } = await openStore();
    const { store: b } = await openStore({ database });
    const w = await makeWorld(a);
    const names = Array.from({ length: MAX_OPERATIONS_PER_HOUR + 40 }, (_, i) => `GET /route/${i}`);
    // Eight batches of 60 names each (every name in two batches), all in the same hour, each sent by both clients.
    const batches = Array.from({ length: 8 }, (_, k) => spanBatch(w.app, Array.from({ length: 60 }, (_, i) =>
      rootSpan(newId(), T0 + (k * 60 + i) * 7000, { name: names[(k * 30 + i) % names.length] }))));
    await Promise.all(batches.flatMap((batch, k) => [a.writeSpans(batch), b.writeSpans(batches[(k + 3) % batches.length]!)]));

    const [doc, ...more] = await db.collection('operationNames').find({}).toArray();
    expect(more).toEqual([]);
    const kept = doc!['names'] as string[];
    expect(kept).toHaveLength(MAX_OPERATIONS_PER_HOUR);
    expect(new Set(kept).size).toBe(MAX_OPERATIONS_PER_HOUR);

    const sent = new Map<string, number>();
    for (const s of batches.flatMap((batch) => batch.spans)) sent.set(s['name'] as string, (sent.get(s['name'] as string) ?? 0) + 1);
    const expected = new Map<string | null, number>(kept.map((name) => [name, sent.get(name)!]));
    expected.set(null, [...sent].filter(([name]) => !kept.includes(name)).reduce((n, [, count]) => n + count, 0));
    expect(expected.get(null)).toBeGreaterThan(0);
    const hour = perOperation(await a.readMetrics(hourOf(w)));
    expect(hour).toEqual(expected);
    // The minute documents agree with the hour's, and all of them with the application's own cells.
    expect(perOperation(await b.readMetrics(hourOf(w, { bucketMs: MINUTE })))).toEqual(expected);
    // (Not expectRollupsTrue: its recomputation per operation does not apply the bound.)
    const total = await a.readMetrics(hourOf(w, { byOperation: false }));
    expectSameAsRecomputed(total, await recompute(a, hourOf(w, { byOperation: false })));
    expect(total.map((c) => c.requests)).toEqual([batches.length * 60]);
  });

  it('keeps names that look like operators of an update pipeline as they are', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const names = ['$names', '$$held', '$literal', '$$ROOT', 'GET /a.b'];
    await store.writeSpans(spanBatch(w.app, names.map((name) => rootSpan(newId(), T0 + MINUTE, { name }))));
    expect((await db.collection('operationNames').findOne({}))?.['names']).toEqual(names);
    expect(perOperation(await expectRollupsTrue(store, hourOf(w)))).toEqual(new Map(names.map((name) => [name, 1])));
  });
});

describe('mongo store: the purge and the per-operation rollups', () => {
  it('reads the cut-off hour by the minute for the operations the purge marked, whole for a name new since; drops the names of the hours before', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const at = (ms: number, name: string): Span => rootSpan(newId(), ms, { name });
    await store.writeSpans(spanBatch(w.app, [
      at(T0 - HOUR + 5 * MINUTE, 'GET /old'), at(T0 + 10 * MINUTE, 'GET /a'), at(T0 + 40 * MINUTE, 'GET /a'), at(T0 + 41 * MINUTE, 'GET /b'),
    ]));
    await store.purgeTelemetryBefore(T0 + 30 * MINUTE);
    // The hour before went with its names; the cut-off hour's documents are marked, its names stay.
    expect(await db.collection('operationNames').countDocuments({})).toBe(1);
    expect(await db.collection('operationRollupHours').countDocuments({ partialBefore: { $exists: true } })).toBe(2);
    // Written after the purge: a name new in the hour (its hour document not marked), and one of the kept names.
    await store.writeSpans(spanBatch(w.app, [at(T0 + 45 * MINUTE, 'GET /c'), at(T0 + 46 * MINUTE, 'GET /a')]));
    expect(await db.collection('operationRollupHours').countDocuments({ partialBefore: { $exists: false } })).toBe(1);
    const window = hourOf(w, { from: T0 - HOUR, to: T0 + HOUR });
    expect(perOperation(await expectRollupsTrue(store, window))).toEqual(new Map([['GET /a', 2], ['GET /b', 1], ['GET /c', 1]]));
    expect((await expectRollupsTrue(store, { ...window, byOperation: false })).map((c) => c.requests)).toEqual([4]);
    expect((await db.collection('operationNames').findOne({}))?.['names']).toEqual(['GET /a', 'GET /b', 'GET /c']);
  });
});
