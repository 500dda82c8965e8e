import { describe, expect, it } from '@jest/globals';
import type { Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Application, Span } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { HOUR, T0, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { mongoStores } from './mongo-stores.js';
import { expectRollupsTrue } from '../src/contract/metrics-recompute.js';

/*
 * The service map's calls on MongoDB (mongo/call-ops.ts): counted once per called entry span, with two writers
 * storing callers and called spans at once, and after a failure half-way between the steps that count a call.
 */

const { openStore } = mongoStores();
const MINUTE = 60_000;

/** A world of three applications of one project: `a` calls `b`, which calls `c`. */
async function threeApps(store: Store): Promise<{ w: World; a: Application; b: Application; c: Application }> {
  const w = await makeWorld(store);
  const b = await store.createApplication({ name: 'b', projectId: w.project.id });
  const c = await store.createApplication({ name: 'c', projectId: w.project.id });
  return { w, a: w.app, b, c };
}

/**
 * `count` requests from `from` on, one a second: a's root and client span, b's entry span (a quarter of them 503s)
 * and client span, c's entry span. Two calls each, a → b and b → c.
 */
function chains(count: number, from: number): { a: Span[]; b: Span[]; c: Span[] } {
  const out = { a: [] as Span[], b: [] as Span[], c: [] as Span[] };
  for (let i = 0; i < count; i++) {
    const t = newId();
    const at = from + i * 1000;
    const root = rootSpan(t, at, { durationMs: 50 });
    const toB = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:b' });
    const entryB = rootSpan(t, at + 2, { parentSpanId: toB.spanId, durationMs: 10 + i, responseStatus: i % 4 ? 200 : 503 });
    const toC = span(t, at + 3, { parentSpanId: entryB.spanId, requestMethod: 'external:c' });
    out.a.push(root, toB);
    out.b.push(entryB, toC);
    out.c.push(rootSpan(t, at + 4, { parentSpanId: toC.spanId, durationMs: 3 }));
  }
  return out;
}

const window = (w: World) => ({ userId: w.user.id, from: T0 - 10 * MINUTE, to: T0 + 20 * MINUTE, bucketMs: 30 * MINUTE });

/** The calls of the window as [caller, callee, calls, errors]. */
const callsOf = async (store: Store, w: World): Promise<number[][]> =>
  (await store.readMetrics({ ...window(w), byCaller: true })).map((c) => [c.callerApplicationId!, c.applicationId, c.requests, c.errors]);

/** An operation id that began a minute ago (mongo/rollups.ts newOpId): past its lease, completed at once by whoever finds it. */
const staleOp = (): string => `${(Date.now() - MINUTE).toString(36)}.${newId().slice(0, 8)}`;

describe('mongo store: calls written by two clients at once', () => {
  it('callers and called spans racing in overlapping groups end with each call counted once', async () => {
    const { store: one, database, db } = await openStore();
    const { store: two } = await openStore({ database });
    const { w, a, b, c } = await threeApps(one);
    const rounds = 4;
    const perRound = 24;
    for (let round = 0; round < rounds; round++) {
      const spans = chains(perRound, T0 + round * 2 * MINUTE);
      const half = (list: Span[], app: Application) => [spanBatch(app, list.slice(0, list.length / 2)), spanBatch(app, list.slice(list.length / 2))];
      const [a1, a2] = half(spans.a, a);
      const [b1, b2] = half(spans.b, b);
      const [c1, c2] = half(spans.c, c);
      // Each span stored by the first group to reach it; every group looks for callers and called spans alike.
      await Promise.all([one.writeSpanBatches([b1!, c2!]), two.writeSpanBatches([a1!, c1!]), two.writeSpanBatches([b2!, a2!]),
        one.writeSpanBatches([a2!, c1!, b1!]), two.writeSpanBatches([c2!, b2!, a1!])]);
    }
    const calls = rounds * perRound;
    expect(await callsOf(one, w)).toEqual([[a.id, b.id, calls, calls / 4], [b.id, c.id, calls, 0]]);
    // Every called span decided and counted, no operation left, none waiting: the open-calls index is empty.
    expect(await db.collection('spans').countDocuments({ callCounted: true, callerApp: { $gt: 0 } })).toBe(2 * calls);
    expect(await db.collection('spans').countDocuments({ callOp: { $exists: true } })).toBe(0);
    // The entries beside them, as before.
    expect((await expectRollupsTrue(two, { ...window(w), bucketMs: MINUTE })).reduce((n, cell) => n + cell.requests, 0)).toBe(3 * calls);
  });
});

describe('mongo store: a call counted after a failure half-way', () => {
  /** Eight requests a → b → c, each application's spans in one batch, in this order; the calls as they should be. */
  async function written(order: 'callers first' | 'called first') {
    const { store, db } = await openStore();
    const { w, a, b, c } = await threeApps(store);
    const spans = chains(8, T0);
    const batches = { a: spanBatch(a, spans.a), b: spanBatch(b, spans.b), c: spanBatch(c, spans.c) };
    for (const batch of order === 'callers first' ? [batches.a, batches.b, batches.c] : [batches.c, batches.b, batches.a]) await store.writeSpans(batch);
    const expected = [[a.id, b.id, 8, 2], [b.id, c.id, 8, 0]];
    expect(await callsOf(store, w)).toEqual(expected);
    return { store, db, w, a, b, c, batches, expected };
  }

  /** What a crash leaves between the callers decided and the delta: these calls marked with one operation, not counted. */
  async function decidedOnly(db: Db, callerApp: number, op: string): Promise<void> {
    await db.collection('spans').updateMany({ callerApp, callCounted: true }, { $set: { callOp: op }, $unset: { callCounted: '' } });
  }

  for (const order of ['callers first', 'called first'] as const) {
    it(`after the callers were decided, before the delta (${order}): the retry of the deciding group counts each call once`, async () => {
      const { store, db, w, a, batches, expected } = await written(order);
      // The calls a → b only: decided by b's group when a's spans came first (its own spans marked), else by a's
      // group (the marks are on b's spans, found under a's client spans).
      for (const name of ['callRollups', 'callRollupHours']) await db.collection(name).deleteMany({ callerId: a.id });
      await decidedOnly(db, a.id, staleOp());
      await store.writeSpans(order === 'callers first' ? batches.b : batches.a);
      expect(await callsOf(store, w)).toEqual(expected);
      expect(await db.collection('spans').countDocuments({ callOp: { $exists: true } })).toBe(0);
    });
  }

  it('after the delta, before the flip: the retry adds nothing, and flips', async () => {
    const { store, db, w, a, batches, expected } = await written('called first');
    // The operation a's group completed on the documents of the calls a → b, renamed as one that began a minute
    // ago (so nobody waits for its lease), left on b's spans.
    const op = staleOp();
    for (const name of ['callRollups', 'callRollupHours']) {
      expect((await db.collection(name).find({ callerId: a.id }).toArray()).map((d) => (d['ops'] as string[]).length)).toEqual([1]);
      await db.collection(name).updateMany({ callerId: a.id }, { $set: { ops: [op] } });
    }
    await decidedOnly(db, a.id, op);
    await store.writeSpans(batches.a);
    expect(await callsOf(store, w)).toEqual(expected);
    expect(await db.collection('spans').countDocuments({ callCounted: true, callOp: { $exists: false } })).toBe(16);
  });

  it('a purge run again after its take-out was marked takes the call out once', async () => {
    const { store, db } = await openStore();
    const { a, b } = await threeApps(store);
    const cutoff = T0 + 10_000;
    // b's trace starts before the cut-off (its record goes), the call comes after it.
    const t = newId();
    const root = rootSpan(t, T0 + 2 * MINUTE);
    const client = span(t, T0 + 2 * MINUTE + 1, { parentSpanId: root.spanId, requestMethod: 'external:b' });
    const entry = rootSpan(t, T0 + 2 * MINUTE + 2, { parentSpanId: client.spanId });
    await store.writeSpans(spanBatch(a, [root, client]));
    await store.writeSpans(spanBatch(b, [span(t, T0 - MINUTE, { requestMethod: 'service:consumer' }), entry]));
    // What a purge that stopped after marking the take-out leaves: the counted call marked with its operation.
    expect((await db.collection('spans').updateOne({ callCounted: true }, { $set: { callOp: staleOp() } })).modifiedCount).toBe(1);
    await store.purgeTelemetryBefore(cutoff);
    await store.purgeTelemetryBefore(cutoff);
    const docs = await db.collection('callRollups').find({}).toArray();
    expect(docs.map((d) => [d['applicationId'], d['callerId'], d['requests']])).toEqual([[b.id, a.id, 0]]);
    expect((await db.collection('callRollupHours').find({}).toArray()).map((d) => d['requests'])).toEqual([0]);
  });
});

describe('mongo store: the purge and the calls', () => {
  it('reads the cut-off hour by the minute for the callers the purge marked, whole for a caller new since', async () => {
    const { store, db } = await openStore();
    const { w, a, b, c } = await threeApps(store);
    /** A call of `caller`'s root span to an entry span of c, at `at`. */
    const callAt = async (caller: Application, at: number): Promise<void> => {
      const t = newId();
      const root = rootSpan(t, at);
      await store.writeSpans(spanBatch(caller, [root]));
      await store.writeSpans(spanBatch(c, [rootSpan(t, at + 1, { parentSpanId: root.spanId })]));
    };
    for (const at of [T0 - HOUR + 5 * MINUTE, T0 + 10 * MINUTE, T0 + 40 * MINUTE]) await callAt(a, at);
    await store.purgeTelemetryBefore(T0 + 30 * MINUTE);
    // The hour before went; the cut-off hour's document of the calls a → c is marked, its minutes before the cut-off gone.
    expect(await db.collection('callRollupHours').countDocuments({})).toBe(1);
    expect(await db.collection('callRollupHours').countDocuments({ partialBefore: { $exists: true } })).toBe(1);
    // Written after the purge: a caller new in the hour (its hour document not marked), and the marked one again.
    await callAt(b, T0 + 45 * MINUTE);
    await callAt(a, T0 + 46 * MINUTE);
    expect(await db.collection('callRollupHours').countDocuments({ partialBefore: { $exists: false } })).toBe(1);
    const hours = { userId: w.user.id, from: T0 - HOUR, to: T0 + HOUR, bucketMs: 2 * HOUR, byCaller: true };
    const calls = (await store.readMetrics(hours)).map((cell) => [cell.callerApplicationId, cell.applicationId, cell.requests]);
    expect(calls).toEqual([[a.id, c.id, 2], [b.id, c.id, 1]]);
    // By the minute, the same.
    const minutes = (await store.readMetrics({ ...hours, bucketMs: MINUTE })).map((cell) => [cell.callerApplicationId, cell.bucket, cell.requests]);
    expect(minutes).toEqual([[a.id, T0 + 40 * MINUTE, 1], [a.id, T0 + 46 * MINUTE, 1], [b.id, T0 + 45 * MINUTE, 1]]);
  });
});
