import { describe, expect, it } from '@jest/globals';
import type { Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { SpanBatchMessage } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { T0, collect, lateParentTraces, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { mongoStores } from './mongo-stores.js';
import { expectRollupsTrue } from '../src/contract/metrics-recompute.js';

/*
 * The MongoDB writer stores a delivered group of batches in a few bulk steps without a transaction (span-group.ts).
 * These tests leave the documents as a crash between two of those steps would, deliver the group again, and check
 * that the retry completes it: each span once, the trace records whole, the rollups equal to the raw entry spans.
 */

const { openStore } = mongoStores();
const MINUTE = 60_000;

const requestsOf = async (store: Store, w: World): Promise<number> =>
  (await expectRollupsTrue(store, { userId: w.user.id, from: T0 - 10 * MINUTE, to: T0 + 10 * MINUTE, bucketMs: MINUTE })).reduce((n, c) => n + c.requests, 0);

/** Five batches of 4 traces (a root, a child), two under a key; the last repeats a root of the first. */
function group(w: World): SpanBatchMessage[] {
  const batches = Array.from({ length: 5 }, (_, b) => spanBatch(w.app, Array.from({ length: 4 }, (_, i) => {
    const t = newId();
    const at = T0 + (b * 4 + i) * 3000;
    const root = rootSpan(t, at, { durationMs: 10 + b * 4 + i, responseStatus: i === 3 ? 500 : 200 });
    return [root, span(t, at + 1, { parentSpanId: root.spanId })];
  }).flat(), b % 2 ? { idempotencyKey: `group-${b}` } : {}));
  batches[4]!.spans.push(batches[0]!.spans[0]!);
  return batches;
}

describe('mongo store: a group of batches retried after a failure half-way', () => {
  const recordsOf = async (store: Store, w: World) =>
    (await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).map(({ id: _, ...r }) => r);

  it('after the insert (entry spans marked with the group\'s operation, nothing else written): completes it', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const batches = group(w);
    await store.writeSpanBatches(batches);
    const whole = await recordsOf(store, w);
    expect(whole).toHaveLength(20);
    // What a crash right after the insert leaves: the spans, the entries marked, no records, rollups or keys.
    await db.collection('traces').deleteMany({});
    for (const rollups of ['rollups', 'operationRollups']) await db.collection(rollups).deleteMany({});
    await db.collection('idempotencyKeys').deleteMany({});
    await db.collection('spans').updateMany({}, { $set: { counted: false } });
    await db.collection('spans').updateMany({ parentSpanId: null }, { $set: { op: 'lost-group-op' } });
    await store.writeSpanBatches(batches);
    expect(await recordsOf(store, w)).toEqual(whole);
    expect(await requestsOf(store, w)).toBe(20);
    expect(await db.collection('spans').countDocuments({ op: { $exists: true } })).toBe(0);
    expect(await db.collection('spans').countDocuments({})).toBe(40);
    expect(await db.collection('idempotencyKeys').countDocuments({})).toBe(2);
  });

  it('after the rollups were added, before the spans were flipped: counts each entry once', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const batches = group(w);
    await store.writeSpanBatches(batches);
    const docs = await db.collection('rollups').find({}).toArray();
    const ops = new Set(docs.flatMap((d) => d['ops'] as string[]));
    expect(ops.size).toBe(1);
    // What a crash between the delta and the flip leaves: the rollups added, the entries still marked.
    await db.collection('spans').updateMany({ parentSpanId: null }, { $set: { counted: false, op: [...ops][0]! } });
    await db.collection('idempotencyKeys').deleteMany({});
    await store.writeSpanBatches(batches);
    expect(await requestsOf(store, w)).toBe(20);
    expect(await db.collection('spans').countDocuments({ counted: true, op: { $exists: false } })).toBe(20);
  });

  it('after part of the trace records: completes them, keeps the roots', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const batches = group(w);
    await store.writeSpanBatches(batches);
    const whole = await recordsOf(store, w);
    const some = (await db.collection('traces').find({}, { projection: { _id: 1 } }).limit(7).toArray()).map((t) => t._id);
    await db.collection('traces').deleteMany({ _id: { $in: some } });
    await db.collection('idempotencyKeys').deleteMany({});
    await store.writeSpanBatches(batches);
    expect(await recordsOf(store, w)).toEqual(whole);
    expect(await requestsOf(store, w)).toBe(20);
  });
});

describe('mongo store: groups written by two clients at once', () => {
  it('overlapping groups with late parents and children end with the rollups of the raw spans', async () => {
    const { store: a, database } = await openStore();
    const { store: b } = await openStore({ database });
    const w = await makeWorld(a);
    const { parents, children, roots } = lateParentTraces(40);
    const kids = [spanBatch(w.app, children.slice(0, 20)), spanBatch(w.app, [...children.slice(20), ...roots.slice(0, 20)])];
    const ups = [spanBatch(w.app, parents.slice(0, 25)), spanBatch(w.app, [...parents.slice(25), ...roots.slice(10)])];
    await Promise.all([a.writeSpanBatches(kids), b.writeSpanBatches(ups), b.writeSpanBatches([...kids, ...ups]), a.writeSpanBatches([ups[1]!, kids[0]!])]);
    expect(await requestsOf(a, w)).toBe(40);
    const records = await collect(b.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(records.map((r) => r.telemetry.length).sort()).toEqual([...Array(40).fill(1), ...Array(40).fill(2)].sort());
  });
});
