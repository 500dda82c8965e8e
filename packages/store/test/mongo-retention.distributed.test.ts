import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import { HOUR, collect, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';

/*
 * Retention on a real mongod: the TTL indexes the store creates from retentionDays (indexes.ts) make mongod's TTL
 * monitor delete old telemetry by itself, no purge called. scripts/infra/mongo.mjs starts mongod with
 * ttlMonitorSleepSecs=1, so a pass of the monitor comes every second (MongoDB's default is 60 s).
 */

const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
const url = urlEnv;
const DAY = 24 * HOUR;
/** How long a test waits for the TTL monitor: many passes at one a second. */
const TTL_WAIT_MS = 30_000;

const admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
const opened: { store: Store; database: string }[] = [];
afterEach(async () => {
  const done = opened.splice(0);
  await Promise.all(done.map(({ store }) => store.close()));
  for (const database of new Set(done.map((d) => d.database))) await admin.db(database).dropDatabase();
});
afterAll(() => admin.close());

async function openStore(retentionDays: number, database = `lantern_ttl_${newId().replace(/-/g, '')}`): Promise<{ store: Store; db: Db; database: string }> {
  const store = await createMongoStore({ url, database, retentionDays });
  opened.push({ store, database });
  return { store, db: admin.db(database), database };
}

/** Passes of the TTL monitor since mongod started (serverStatus). */
async function ttlPasses(): Promise<number> {
  const status = await admin.db('admin').command({ serverStatus: 1 });
  return Number(status.metrics?.ttl?.passes ?? Number.NaN);
}

/** Resolves after `count` whole passes of the TTL monitor from now; fails if they do not come in time. */
async function afterTtlPasses(count: number): Promise<void> {
  const target = (await ttlPasses()) + count + 1; // + 1: the pass under way may have looked before our writes
  const deadline = Date.now() + TTL_WAIT_MS;
  while ((await ttlPasses()) < target) {
    if (Date.now() > deadline) throw new Error(`the TTL monitor made no ${count} passes in ${TTL_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits until `count()` is 0; fails with the last count when it is not within the TTL wait. */
async function untilNone(what: string, count: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + TTL_WAIT_MS;
  for (let left = await count(); left > 0; left = await count()) {
    if (Date.now() > deadline) throw new Error(`${left} ${what} still there after ${TTL_WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A trace of two spans and two logs at `at`, and a span batch under an idempotency key received at `at`. */
async function writeTelemetry(store: Store, w: World, at: number): Promise<{ traceId: string; key: string }> {
  const traceId = newId();
  const key = `key-${newId()}`;
  const root = rootSpan(traceId, at);
  await store.writeSpans(spanBatch(w.app, [root, span(traceId, at + 1, { parentSpanId: root.spanId })], { idempotencyKey: key, receivedAt: at }));
  await store.writeLogs(logBatch(w.app, [logEntry(w.app, at, { traceId }), logEntry(w.app, at + 1)]));
  return { traceId, key };
}

const olderThan = (db: Db, collection: string, field: string, ms: number) => () =>
  db.collection(collection).countDocuments({ [field]: { $lt: new Date(Date.now() - ms) } });

describe('mongo store: retention by TTL indexes on mongod', () => {
  it('deletes telemetry older than retentionDays, and idempotency keys older than 24 h, by itself; keeps the rest', async () => {
    // Written first without retention, so the test sees the old telemetry stored before the monitor can delete it.
    const { store, db, database } = await openStore(0);
    const w = await makeWorld(store);
    const now = Date.now();
    await writeTelemetry(store, w, now - 3 * DAY);
    const fresh = await writeTelemetry(store, w, now - HOUR);
    expect(await db.collection('traces').countDocuments({})).toBe(2);
    expect(await db.collection('spans').countDocuments({})).toBe(4);
    expect(await db.collection('logs').countDocuments({})).toBe(4);

    // A process of the store starts with RETENTION_DAYS=1: it creates the TTL indexes, and mongod does the rest.
    await openStore(1, database);
    await untilNone('trace records older than a day', olderThan(db, 'traces', 'ts', DAY));
    await untilNone('spans older than a day', olderThan(db, 'spans', 'ts', DAY));
    await untilNone('logs older than a day', olderThan(db, 'logs', 'ts', DAY));
    await untilNone('idempotency keys older than 24 h', olderThan(db, 'idempotencyKeys', 'createdAt', DAY));
    // The rollups of that time, per application and per operation, and the names its hour kept: a minute's a
    // minute after the retention, an hour's an hour and a minute after; the fresh ones stay.
    const rollups = { rollups: 'minute', rollupHours: 'hour', operationRollups: 'minute', operationRollupHours: 'hour', operationNames: 'hour' };
    for (const [collection, field] of Object.entries(rollups)) {
      await untilNone(`${collection} older than a day`, olderThan(db, collection, field, DAY + HOUR + 60_000));
      expect(await db.collection(collection).countDocuments({})).toBe(1);
    }

    const traces = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(traces.map((t) => [t.traceId, t.telemetry.length])).toEqual([[fresh.traceId, 2]]);
    const logs = await collect(store.streamLogs({ userId: w.user.id }));
    expect(logs.map((l) => Date.parse(l.timestamp))).toEqual([now - HOUR + 1, now - HOUR]);
    expect((await db.collection('idempotencyKeys').find({}).toArray()).map((k) => k.key)).toEqual([fresh.key]);
  }, 60_000);

  it('keeps telemetry of any age when retentionDays is 0 (idempotency keys still expire)', async () => {
    const { store, db } = await openStore(0);
    const w = await makeWorld(store);
    const old = await writeTelemetry(store, w, Date.now() - 400 * DAY);
    await untilNone('idempotency keys older than 24 h', olderThan(db, 'idempotencyKeys', 'createdAt', DAY));
    await afterTtlPasses(2);
    expect(await db.collection('spans').countDocuments({})).toBe(2);
    expect((await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).map((t) => t.traceId)).toEqual([old.traceId]);
    expect(await collect(store.streamLogs({ userId: w.user.id }))).toHaveLength(2);
  }, 60_000);

  it('applies a shorter retentionDays to telemetry already stored, at the next start-up', async () => {
    const { store, db, database } = await openStore(30);
    const w = await makeWorld(store);
    await writeTelemetry(store, w, Date.now() - 3 * DAY);
    await afterTtlPasses(2);
    expect(await db.collection('spans').countDocuments({})).toBe(2);
    expect(await db.collection('logs').countDocuments({})).toBe(2);

    // Another process starts with a retention of one day (collMod of the TTL indexes).
    await openStore(1, database);
    await untilNone('spans', () => db.collection('spans').countDocuments({}));
    await untilNone('trace records', () => db.collection('traces').countDocuments({}));
    await untilNone('logs', () => db.collection('logs').countDocuments({}));
    expect(await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toEqual([]);
  }, 60_000);
});
