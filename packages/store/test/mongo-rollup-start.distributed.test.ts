import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { HOUR, T0, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import { mongoStores } from './mongo-stores.js';
import { expectRollupsTrue } from '../src/contract/metrics-recompute.js';

const { admin, openStore } = mongoStores();
const MINUTE = 60_000;
const open = async (database: string): Promise<Store> => (await openStore({ database })).store;

/** Entry spans (roots, called services), controller spans under a parent of their application, over three hours. */
function traffic(app: { id: number; projectId: number }, other: { id: number; projectId: number }) {
  const mine: Span[] = [];
  const theirs: Span[] = [];
  for (let i = 0; i < 90; i++) {
    const t = newId();
    const at = T0 - HOUR + i * 2 * MINUTE + 1000;
    const root = rootSpan(t, at, { durationMs: 5 + i, responseStatus: i % 6 === 0 ? 500 : 200 });
    const call = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:other' });
    mine.push(root, call, rootSpan(t, at + 2, { parentSpanId: root.spanId, durationMs: 9000 }));
    theirs.push(rootSpan(t, at + 3, { parentSpanId: call.spanId, durationMs: 40 + (i % 7) }));
  }
  return [spanBatch(app as never, mine), spanBatch(other as never, theirs)];
}

describe('mongo store: rollups at start-up', () => {
  const windows = (userId: string) => [
    { userId, from: T0 - 2 * HOUR, to: T0 + 3 * HOUR, bucketMs: MINUTE },
    { userId, from: T0 - 2 * HOUR, to: T0 + 3 * HOUR, bucketMs: HOUR },
    { userId, from: T0 - 2 * HOUR + 10 * MINUTE, to: T0 + 3 * HOUR, bucketMs: 2 * HOUR },
  ];

  it('counts the spans stored before the rollups existed, once, with several processes starting at once', async () => {
    const database = `lantern_test_${newId().replace(/-/g, '')}`;
    const first = await open(database);
    const w = await makeWorld(first);
    const other = await first.createApplication({ name: 'other', projectId: w.project.id });
    for (const batch of traffic(w.app, other)) await first.writeSpans(batch);
    const counted = await Promise.all(windows(w.user.id).map((q) => first.readMetrics(q)));
    // What a database written before the rollups holds: spans without `counted` (nor `operation`), no rollups, no
    // start-up records.
    const db = admin.db(database);
    await db.collection('spans').updateMany({}, { $unset: { counted: '', parentSeen: '', operation: '' } });
    for (const rollups of ['rollups', 'rollupHours', 'operationRollups', 'operationRollupHours', 'operationNames']) await db.collection(rollups).deleteMany({});
    await db.collection('counters').deleteMany({ _id: { $in: ['rollupHoursSince', 'rollupBackfillDone'] } as never });
    expect((await first.readMetrics(windows(w.user.id)[0]!))).toEqual([]);

    const [a, b, c] = await Promise.all([open(database), open(database), open(database)]);
    for (const store of [a!, b!, c!]) {
      for (const [i, q] of windows(w.user.id).entries()) {
        const cells = await expectRollupsTrue(store, q);
        expect(cells.map((x) => [x.applicationId, x.bucket, x.requests, x.errors])).toEqual(counted[i]!.map((x) => [x.applicationId, x.bucket, x.requests, x.errors]));
      }
    }
    expect(await db.collection('spans').countDocuments({ controller: true, counted: { $exists: false } })).toBe(0);
    expect(await db.collection('counters').countDocuments({ _id: 'rollupBackfillDone' } as never)).toBe(1);
    // The spans stored before are counted per application only: they have no operation.
    expect(await a!.readMetrics({ ...windows(w.user.id)[1]!, byOperation: true })).toEqual([]);
    // Written since: counted as usual, per operation too, and the backfill does not run again.
    await a!.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 + 5 * MINUTE)]));
    await open(database);
    expect((await expectRollupsTrue(a!, windows(w.user.id)[1]!)).reduce((n, x) => n + x.requests, 0)).toBe(181);
    expect((await a!.readMetrics({ ...windows(w.user.id)[1]!, byOperation: true })).map((x) => [x.applicationId, x.operation, x.requests]))
      .toEqual([[w.app.id, 'GET /items', 1]]);
  });

  it('reads by the minute the hours before the first start with hour documents', async () => {
    const database = `lantern_test_${newId().replace(/-/g, '')}`;
    const first = await open(database);
    const w = await makeWorld(first);
    const other = await first.createApplication({ name: 'other', projectId: w.project.id });
    for (const batch of traffic(w.app, other)) await first.writeSpans(batch);
    // What writers before the hour documents leave: minute documents only; this start records the next hour.
    const db = admin.db(database);
    await db.collection('rollupHours').deleteMany({});
    await db.collection('counters').deleteMany({ _id: 'rollupHoursSince' } as never);
    const later = await open(database);
    const since = await db.collection('counters').findOne({ _id: 'rollupHoursSince' } as never);
    expect(since?.['seq']).toBe(Math.ceil(Date.now() / HOUR) * HOUR);
    for (const q of windows(w.user.id)) expect((await expectRollupsTrue(later, q)).length).toBeGreaterThan(0);
  });
});
