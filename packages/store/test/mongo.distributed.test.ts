import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db, Document } from 'mongodb';
import { newId, toIso } from '@lantern/domain';
import type { Cursor, Store } from '@lantern/store';
import { describeStoreContract } from '@lantern/store/contract';
import { INDEXES, TTL_INDEX, createMongoStore } from '@lantern/store/mongo';
import { collectionsOf } from '../src/mongo/collections.js';
import { OP_LEASE_MS, completeOp } from '../src/mongo/rollup-ops.js';
import { newOpId } from '../src/mongo/rollups.js';
import { MONGO_INDEX_CHUNK, SEGMENT_LEASE_MS, indexLogsStep } from '../src/mongo/log-indexer.js';
import { MERGE_FANIN, SWEEP_AFTER_MS } from '../src/mongo/log-merge.js';
import { BLOCK_LOGS, attributeKey } from '../src/log-postings.js';
import { pairHash } from '../src/attribute-pairs.js';
import { writeSegment } from '../src/mongo/log-segments.js';
import { searchGramsOf, searchPage } from '../src/mongo/log-search.js';
import { waitIndexed } from './mongo-wait.js';
import type { MongoStoreOptions } from '@lantern/store/mongo';
import { T0, collect, lateParentTraces, logBatch, logEntry, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import { expectRollupsTrue } from '../src/contract/metrics-recompute.js';

// The server comes from scripts/infra/mongo.mjs (pnpm test:distributed starts it and sets this variable).
const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) {
  throw new Error(
    'LANTERN_TEST_MONGO_URL is not set. Run `pnpm test:distributed`, or `node scripts/infra/mongo.mjs start` and export the env of .infra/mongo/endpoint.json.',
  );
}
const url = urlEnv;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DAY = 24 * 60 * 60;
const HOUR_MS = 3_600_000;

// The test's own client: to look at what the store wrote, and to drop each test's database.
const admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
afterAll(() => admin.close());

/** A database of its own for every store a test opens (names: at most 64 characters, no dots). */
const uniqueDatabase = (): string => `lantern_test_${newId().replace(/-/g, '')}`;

describeStoreContract('mongo', async () => {
  const database = uniqueDatabase();
  const store = await createMongoStore({ url, database });
  return { store, cleanup: async () => void (await admin.db(database).dropDatabase()) };
});

// Every stream again with tiny batches, so that batch and page boundaries fall everywhere.
describeStoreContract('mongo (pages of 3)', async () => {
  const database = uniqueDatabase();
  const store = await createMongoStore({ url, database, pageSize: 3 });
  return { store, cleanup: async () => void (await admin.db(database).dropDatabase()) };
});

const opened: { store: Store; database: string }[] = [];
afterEach(async () => {
  const done = opened.splice(0);
  await Promise.all(done.map(({ store }) => store.close()));
  for (const database of new Set(done.map((d) => d.database))) await admin.db(database).dropDatabase();
});

/** A store on a new database, or on `database` (a second process on the same data); closed and dropped after the test. */
async function openStore(options: Partial<MongoStoreOptions> = {}): Promise<{ store: Store; database: string; db: Db }> {
  const database = options.database ?? uniqueDatabase();
  const store = await createMongoStore({ url, ...options, database });
  opened.push({ store, database });
  return { store, database, db: admin.db(database) };
}

interface IndexInfo {
  name: string;
  key: Record<string, number>;
  unique?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: object;
}

async function indexesOf(db: Db): Promise<Record<string, IndexInfo[]>> {
  const names = [...Object.keys(INDEXES), 'idempotencyKeys', 'operationNames'];
  const entries = await Promise.all(names.map(async (name) => {
    const list = (await db.collection(name).listIndexes().toArray()) as unknown as IndexInfo[];
    return [name, list.map(({ name: n, key, unique, expireAfterSeconds, partialFilterExpression }) => ({
      name: n, key, ...(unique ? { unique } : {}), ...(expireAfterSeconds === undefined ? {} : { expireAfterSeconds }),
      ...(partialFilterExpression ? { partialFilterExpression } : {}),
    })).sort((a, b) => a.name.localeCompare(b.name))] as const;
  }));
  return Object.fromEntries(entries);
}

const ttlOf = (indexes: Record<string, IndexInfo[]>, name: string) => indexes[name]?.find((i) => i.name === TTL_INDEX);

async function eventually<T>(step: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

describe('mongo store: indexes', () => {
  it('creates every index at start-up, TTL indexes from retentionDays, and a second start-up changes nothing', async () => {
    const { store, database, db } = await openStore({ retentionDays: 7 });
    const w = await makeWorld(store);
    const now = Date.now();
    await store.writeSpans(spanBatch(w.app, [rootSpan(newId(), now)], { receivedAt: now, idempotencyKey: 'k' }));
    const first = await indexesOf(db);
    for (const [name, specs] of Object.entries(INDEXES)) {
      for (const spec of specs ?? []) {
        expect(first[name]).toContainEqual(expect.objectContaining({
          name: spec.name, key: spec.key, ...(spec.unique ? { unique: true } : {}),
          ...(spec.partialFilterExpression ? { partialFilterExpression: spec.partialFilterExpression } : {}),
        }));
      }
    }
    for (const name of ['traces', 'spans', 'logs']) {
      expect(ttlOf(first, name)).toEqual({ name: TTL_INDEX, key: { ts: 1 }, expireAfterSeconds: 7 * DAY });
    }
    expect(ttlOf(first, 'idempotencyKeys')).toEqual({ name: TTL_INDEX, key: { createdAt: 1 }, expireAfterSeconds: DAY });
    // A minute's rollup expires once the whole minute is past the retention.
    expect(ttlOf(first, 'rollups')).toEqual({ name: TTL_INDEX, key: { minute: 1 }, expireAfterSeconds: 7 * DAY + 60 });
    // An hour's with its last minute's.
    expect(ttlOf(first, 'rollupHours')).toEqual({ name: TTL_INDEX, key: { hour: 1 }, expireAfterSeconds: 7 * DAY + 3600 + 60 });
    // The per-operation rollups as those, and the names an hour keeps with its hour documents.
    expect(ttlOf(first, 'operationRollups')).toEqual({ name: TTL_INDEX, key: { minute: 1 }, expireAfterSeconds: 7 * DAY + 60 });
    for (const name of ['operationRollupHours', 'operationNames']) {
      expect(ttlOf(first, name)).toEqual({ name: TTL_INDEX, key: { hour: 1 }, expireAfterSeconds: 7 * DAY + 3600 + 60 });
    }
    // The calls between applications as well.
    expect(ttlOf(first, 'callRollups')).toEqual({ name: TTL_INDEX, key: { minute: 1 }, expireAfterSeconds: 7 * DAY + 60 });
    expect(ttlOf(first, 'callRollupHours')).toEqual({ name: TTL_INDEX, key: { hour: 1 }, expireAfterSeconds: 7 * DAY + 3600 + 60 });

    const again = await openStore({ database, retentionDays: 7 });
    expect(await indexesOf(db)).toEqual(first);
    expect(await collect(again.store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toHaveLength(1);
  });

  it('keeps the postings in _id order with no other index, and drops the chunks\' text index of before', async () => {
    const database = uniqueDatabase();
    const db = admin.db(database);
    // A database of the version before the postings: the chunks' text index.
    await db.collection('chunks').createIndex({ tenantId: 1, text: 'text' }, { name: 'tenant_text', default_language: 'none' });
    await openStore({ database });
    const names = (await db.collection('chunks').listIndexes().toArray()).map((i) => i.name).sort();
    expect(names).toEqual(['_id_', 'document_index']);
    const [postings] = await db.listCollections({ name: 'postings' }).toArray();
    expect(postings).toMatchObject({ options: { clusteredIndex: { key: { _id: 1 }, unique: true } } });
    // A second start-up finds it made.
    await openStore({ database });
    expect(await db.listCollections({ name: 'postings' }).toArray()).toEqual([postings]);
  });

  it('follows a changed retentionDays: a new TTL, and none for telemetry when 0', async () => {
    const { database, db } = await openStore({ retentionDays: 7 });
    await openStore({ database, retentionDays: 30 });
    const longer = await indexesOf(db);
    for (const name of ['traces', 'spans', 'logs']) expect(ttlOf(longer, name)?.expireAfterSeconds).toBe(30 * DAY);
    await openStore({ database, retentionDays: 0 });
    const none = await indexesOf(db);
    for (const name of ['traces', 'spans', 'logs']) expect(ttlOf(none, name)).toBeUndefined();
    expect(ttlOf(none, 'idempotencyKeys')?.expireAfterSeconds).toBe(DAY);
  });
});

describe('mongo store: ids and idempotent writes', () => {
  it('gives increasing integer ids from its counters under concurrency, across two clients', async () => {
    const { store, database } = await openStore();
    const other = (await openStore({ database })).store;
    const w = await makeWorld(store);
    const projects = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      (i % 2 ? store : other).createProject({ name: `p${i}`, organizationId: w.org.id })));
    const ids = projects.map((p) => p.id).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => w.project.id + 1 + i));
    expect((await store.listProjects(w.org.id, w.user.id)).map((p) => p.id)).toEqual([w.project.id, ...ids]);
    const apps = await Promise.all(Array.from({ length: 30 }, (_, i) =>
      (i % 2 ? other : store).createApplication({ name: `a${i}`, projectId: w.project.id })));
    expect(apps.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => w.app.id + 1 + i));
  });

  it('stores each span and log once when a batch is written again and concurrently by two clients', async () => {
    const { store: a, database, db } = await openStore();
    const b = (await openStore({ database })).store;
    const w = await makeWorld(a);
    const traceBatch = (n: number) => spanBatch(w.app, Array.from({ length: n }, () => newId()).flatMap((t, i) => {
      const root = rootSpan(t, T0 + i * 100, { durationMs: 1000 + i });
      return [root, ...Array.from({ length: 9 }, (_, j) => span(t, T0 + i * 100 + j + 1, { parentSpanId: root.spanId }))];
    }));
    const first = traceBatch(20);
    await a.writeSpans(first);
    await Promise.all([a.writeSpans(first), b.writeSpans(first), b.writeSpans(first)]);
    const second = traceBatch(20);
    await Promise.all([a.writeSpans(second), b.writeSpans(second)]);
    expect(await db.collection('spans').countDocuments({})).toBe(400);
    expect(await db.collection('traces').countDocuments({})).toBe(40);
    const records = await collect(b.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(records.map((r) => r.telemetry.length)).toEqual(Array(40).fill(10));
    expect(await collect(a.streamTraces({ userId: w.user.id, projectId: w.project.id, minDurationMs: 1000 }))).toHaveLength(40);

    const logs = logBatch(w.app, Array.from({ length: 300 }, (_, i) => logEntry(w.app, T0 + i)));
    await Promise.all([a.writeLogs(logs), b.writeLogs(logs), a.writeLogs(logs)]);
    expect(await db.collection('logs').countDocuments({})).toBe(300);
  });

  it('completes a batch retried after failing half-way (spans stored, trace records and key not yet)', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const t = newId();
    const root = rootSpan(t, T0, { durationMs: 900, responseStatus: 503 });
    const batch = spanBatch(w.app, [span(t, T0 + 5, { parentSpanId: root.spanId }), root], { idempotencyKey: 'k' });
    const traces = () => collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    await store.writeSpans(batch);
    const whole = await traces();
    // What a crash between the span upserts and the trace records leaves behind.
    await db.collection('traces').deleteMany({});
    await db.collection('idempotencyKeys').deleteMany({});
    expect(await traces()).toEqual([]);
    await store.writeSpans(batch);
    expect((await traces()).map(({ id: _, ...r }) => r)).toEqual(whole.map(({ id: _, ...r }) => r));
    expect(await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, minDurationMs: 900, status: { min: 500, max: 599 } })))
      .toHaveLength(1);
    expect(await db.collection('spans').countDocuments({})).toBe(2);
    // The key is recorded now: another batch under it is skipped.
    await store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0)], { idempotencyKey: 'k' }));
    expect(await traces()).toHaveLength(1);
  });
});

describe('mongo store: metrics rollups without transactions', () => {
  const MINUTE = 60_000;
  const requestsOf = async (store: Store, userId: string) =>
    (await expectRollupsTrue(store, { userId, from: T0 - 10 * MINUTE, to: T0 + 10 * MINUTE, bucketMs: MINUTE })).reduce((n, c) => n + c.requests, 0);

  it('a batch retried after the rollups were added but before its spans were flagged counts once', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const batch = spanBatch(w.app, Array.from({ length: 30 }, (_, i) => rootSpan(newId(), T0 + i * 7000, { durationMs: 10 + i })), { idempotencyKey: 'k' });
    await store.writeSpans(batch);
    expect(await requestsOf(store, w.user.id)).toBe(30);
    // What a crash after the rollup updates leaves: the spans still marked with the operation, not flagged yet.
    const [doc] = await db.collection('rollups').find({}).toArray();
    const op = (doc!['ops'] as string[])[0]!;
    await db.collection('spans').updateMany({}, { $set: { counted: false, op } });
    await db.collection('idempotencyKeys').deleteMany({});
    await store.writeSpans(batch);
    expect(await requestsOf(store, w.user.id)).toBe(30);
    expect(await db.collection('spans').countDocuments({ counted: true, op: { $exists: false } })).toBe(30);
  });

  it('a batch retried after its spans were marked but before the rollups were added counts them then', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const batch = spanBatch(w.app, Array.from({ length: 30 }, (_, i) => rootSpan(newId(), T0 + i * 7000)), { idempotencyKey: 'k' });
    await store.writeSpans(batch);
    // What a crash between marking the spans and updating the rollups leaves (per application and per operation).
    for (const rollups of ['rollups', 'operationRollups']) await db.collection(rollups).deleteMany({});
    await db.collection('spans').updateMany({}, { $set: { counted: false, op: 'lost-op-1' } });
    await db.collection('idempotencyKeys').deleteMany({});
    expect((await store.readMetrics({ userId: w.user.id, from: T0 - MINUTE, to: T0 + 10 * MINUTE, bucketMs: MINUTE }))).toEqual([]);
    await store.writeSpans(batch);
    expect(await requestsOf(store, w.user.id)).toBe(30);
  });

  it('two clients writing the same batches, late parents and children at once end with the rollups of the raw spans', async () => {
    const { store: a, database } = await openStore();
    const b = (await openStore({ database })).store;
    const w = await makeWorld(a);
    const { parents, children, roots } = lateParentTraces(40);
    const kids = spanBatch(w.app, [...children, ...roots.slice(0, 20)]);
    const ups = spanBatch(w.app, [...parents, ...roots.slice(10)]);
    await Promise.all([a.writeSpans(kids), b.writeSpans(ups), b.writeSpans(kids), a.writeSpans(ups)]);
    expect(await requestsOf(a, w.user.id)).toBe(40);
  });

  // What the test above failed on now and then, made to happen every time: a writer found another's
  // operation while that one's marks were still landing, and completed it with the marks it saw.
  const countedOf = async (store: Store, db: Db, userId: string) => ({
    requests: (await store.readMetrics({ userId, from: T0 - 10 * MINUTE, to: T0 + 10 * MINUTE, bucketMs: MINUTE })).reduce((n, c) => n + c.requests, 0),
    flagged: await db.collection('spans').countDocuments({ counted: true }),
    marked: await db.collection('spans').countDocuments({ op: { $exists: true } }),
  });
  const fourEntries = async (onCommand?: (e: CommandStartedEvent) => void) => {
    const { store: a, db, database } = await openStore();
    const b = (await openStore({ database, ...(onCommand === undefined ? {} : { onCommand }) })).store;
    const w = await makeWorld(a);
    // Four controller spans whose parents are not stored: four entries.
    const batch = spanBatch(w.app, Array.from({ length: 4 }, (_, i) => rootSpan(newId(), T0 + i * 1000, { parentSpanId: newId() })));
    await a.writeSpans(batch);
    expect(await countedOf(a, db, w.user.id)).toEqual({ requests: 4, flagged: 4, marked: 0 });
    const ids = (await db.collection('spans').find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id as unknown as string);
    return { a, b, db, w, batch, ids, c: collectionsOf(db) };
  };

  it('an operation found while its owner is still marking is waited for, not completed with the marks landed so far', async () => {
    let op = '';
    let looked: () => void = () => {};
    const lookedAtOp = new Promise<void>((resolve) => { looked = resolve; });
    const { a, b, db, w, batch, ids, c } = await fourEntries((e) => {
      if (e.commandName === 'find' && (e.command.filter as { op?: unknown } | undefined)?.op === op) looked();
    });
    // A writer taking the four out (their parents arrived) has seen them and marked two of them so far (its
    // operation begins now: the lease counts from here, not from the set-up above).
    await db.collection('spans').updateMany({}, { $set: { parentSeen: true } });
    op = newOpId();
    await db.collection('spans').updateMany({ _id: { $in: ids.slice(0, 2) } } as object, { $set: { op } });
    // Another writer stores the batch again meanwhile: it finds the operation on the spans it counts, and reads
    // the spans under it (waiting for its owner, or, as before, completing it with the two it sees).
    const again = b.writeSpans(batch);
    await Promise.race([lookedAtOp, again]);
    await db.collection('spans').updateMany({ _id: { $in: ids.slice(2) } } as object, { $set: { op } });
    await completeOp(c, op);
    await again;
    expect(await countedOf(a, db, w.user.id)).toEqual({ requests: 0, flagged: 0, marked: 0 });
  });

  it('an operation stamped ahead by its owner\'s clock is waited for one lease at most, then completed', async () => {
    const { a, b, db, w, batch, ids } = await fourEntries();
    await db.collection('spans').updateMany({}, { $set: { parentSeen: true } });
    const op = `${(Date.now() + 3_600_000).toString(36)}.ahead`; // an owner whose clock is an hour fast, then stopped
    await db.collection('spans').updateMany({ _id: { $in: ids.slice(0, 3) } } as object, { $set: { op } });
    const began = Date.now();
    await b.writeSpans(batch);
    expect(Date.now() - began).toBeGreaterThanOrEqual(OP_LEASE_MS - 100);
    expect(Date.now() - began).toBeLessThan(OP_LEASE_MS + 20_000);
    expect(await countedOf(a, db, w.user.id)).toEqual({ requests: 1, flagged: 1, marked: 0 });
  });

  it('an operation older than its lease (its owner stopped half-way) is completed by whoever finds it, at once', async () => {
    const { a, b, db, w, batch, ids } = await fourEntries();
    await db.collection('spans').updateMany({}, { $set: { parentSeen: true } });
    const op = `${(Date.now() - OP_LEASE_MS - 1000).toString(36)}.stopped`;
    await db.collection('spans').updateMany({ _id: { $in: ids.slice(0, 3) } } as object, { $set: { op } });
    const began = Date.now();
    await b.writeSpans(batch);
    expect(Date.now() - began).toBeLessThan(OP_LEASE_MS / 2);
    // The three marked were taken out (the owner's delta as far as it got); the fourth stays counted.
    expect(await countedOf(a, db, w.user.id)).toEqual({ requests: 1, flagged: 1, marked: 0 });
  });
});

describe('mongo store: streaming', () => {
  it('reads batch by batch from a server cursor, and closes the cursor when the reader stops early', async () => {
    const events: CommandStartedEvent[] = [];
    const { store, db } = await openStore({ pageSize: 100, onCommand: (e) => events.push(e) });
    const w = await makeWorld(store);
    await store.writeLogs(logBatch(w.app, Array.from({ length: 1000 }, (_, i) => logEntry(w.app, T0 + i))));
    expect(await waitIndexed(db)).toBe(0);
    await store.writeSpans(spanBatch(w.app, Array.from({ length: 500 }, (_, i) => rootSpan(newId(), T0 + i))));
    const on = (collection: string) => events.filter((e) =>
      ['find', 'getMore', 'killCursors'].includes(e.commandName) && [e.command.find, e.command.collection, e.command.killCursors].includes(collection));

    events.length = 0;
    const firstFive = [];
    for await (const log of store.streamLogs({ userId: w.user.id })) {
      firstFive.push(log);
      if (firstFive.length === 5) break;
    }
    expect(firstFive.map((l) => l.timestamp)).toEqual([0, 1, 2, 3, 4].map((i) => toIso(T0 + 999 - i)));
    expect(on('logs').map((e) => [e.commandName, e.command.batchSize])).toEqual([['find', 100], ['killCursors', undefined]]);

    events.length = 0;
    expect(await collect(store.streamLogs({ userId: w.user.id }))).toHaveLength(1000);
    const reads = on('logs');
    expect(reads[0]?.commandName).toBe('find');
    expect(reads.filter((e) => e.commandName === 'getMore').length).toBeGreaterThanOrEqual(9);
    expect(reads.every((e) => e.commandName === 'killCursors' || e.command.batchSize === 100)).toBe(true);

    events.length = 0;
    let records = 0;
    for await (const record of store.streamTraces({ userId: w.user.id, projectId: w.project.id })) {
      expect(record.telemetry).toHaveLength(1);
      if (++records === 3) break;
    }
    expect(on('traces').map((e) => e.commandName)).toEqual(['find', 'killCursors']);
  });
});

describe('mongo store: records written before rootUrl, message and grams were stored', () => {
  it('finds them by url and q all the same: the root among the record\'s spans, the message in its data or field', async () => {
    const { store, db, database } = await openStore({ pageSize: 2 });
    const w = await makeWorld(store);
    const ids = { plain: newId(), called: newId(), orphan: newId(), bare: newId() };
    const plainRoot = rootSpan(ids.plain, T0, { requestURL: '/Old/Root', durationMs: 40 });
    const entry = span(ids.called, T0 + 10, { parentSpanId: newId(), requestMethod: 'controller:POST', requestURL: '/old/entry', durationMs: 900, responseStatus: 502 });
    const nested = span(ids.called, T0 + 12, { parentSpanId: newId(), requestMethod: 'controller:charge', requestURL: '/old/nested', durationMs: 5, responseStatus: 200 });
    await store.writeSpans(spanBatch(w.app, [
      span(ids.plain, T0 + 1, { parentSpanId: plainRoot.spanId, requestURL: '/old/child' }), plainRoot, entry, nested,
      span(ids.orphan, T0 + 20, { parentSpanId: newId(), requestURL: '/old/orphan' }),
      rootSpan(ids.bare, T0 + 30, { requestURL: undefined }),
    ]));
    const oldLogs = Array.from({ length: 6 }, (_, i) => logEntry(w.app, T0 + i * 10, { message: i % 2 ? `Old quiet ${i}` : `old MATCH ${i}` }));
    await store.writeLogs(logBatch(w.app, oldLogs));
    const between = [logEntry(w.app, T0 + 35, { message: 'between MATCH' }), logEntry(w.app, T0 + 36, { message: 'between quiet' })];
    await store.writeLogs(logBatch(w.app, between));
    expect(await waitIndexed(db)).toBe(0);
    // What documents written before these versions look like: no rootUrl; logs without number, and without message
    // (the oldest) or with the trigrams of the index before the postings (the version between); no postings.
    await db.collection('traces').updateMany({}, { $unset: { rootUrl: '' } });
    await db.collection('logs').updateMany({ _id: { $in: oldLogs.map((l) => l.id) } as never }, { $unset: { message: '', seq: '' } });
    await db.collection('logs').updateMany({ _id: { $in: between.map((l) => l.id) } as never }, { $unset: { seq: '' }, $set: { grams: ['bet'] } });
    await db.collection('logSegments').deleteMany({});
    await db.collection('logPostings').deleteMany({});
    expect(await db.collection('traces').countDocuments({ rootUrl: { $exists: true } })).toBe(0);
    expect(await db.collection('logs').countDocuments({ message: { $exists: true } })).toBe(2);
    // And records written since, with the fields, between and around them in time.
    const fresh = { first: newId(), second: newId() };
    await store.writeSpans(spanBatch(w.app, [rootSpan(fresh.first, T0 + 5, { requestURL: '/old/fresh' }), rootSpan(fresh.second, T0 + 40, { requestURL: '/new' })]));
    const newLogs = [logEntry(w.app, T0 + 15, { message: 'new match' }), logEntry(w.app, T0 + 100, { message: 'new quiet' })];
    await store.writeLogs(logBatch(w.app, newLogs));

    const traceIds = async (urlContains: string, limit?: number) =>
      (await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, urlContains, ...(limit ? { limit } : {}) }))).map((t) => t.traceId);
    expect(await traceIds('old/ROOT')).toEqual([ids.plain]);
    expect(await traceIds('/old/entry')).toEqual([ids.called]);
    expect(await traceIds('child')).toEqual([]);
    expect(await traceIds('nested')).toEqual([]);
    expect(await traceIds('orphan')).toEqual([]);
    expect(await traceIds('/OLD/')).toEqual([ids.called, fresh.first, ids.plain]);
    expect(await traceIds('/old/', 2)).toEqual([ids.called, fresh.first]);
    expect(await traceIds('/')).toEqual([fresh.second, ids.called, fresh.first, ids.plain]);

    // The process that starts on such a database: the marker of the old logs' marking is not there yet.
    expect(await waitIndexed(db)).toBe(0);
    await db.collection('counters').deleteOne({ _id: 'migration:log-postings' as never });
    const finds: string[] = [];
    const reader = (await openStore({ database, pageSize: 2, onCommand: (e) => e.commandName === 'find' && finds.push(String(e.command.find)) })).store;
    const messages = async (messageContains: string, limit?: number) =>
      (await collect(reader.streamLogs({ userId: w.user.id, messageContains, ...(limit ? { limit } : {}) }))).map((l) => l.message);
    const expectFound = async () => {
      expect(await messages('match')).toEqual(['old MATCH 4', 'between MATCH', 'old MATCH 2', 'new match', 'old MATCH 0']);
      expect(await messages('match', 3)).toEqual(['old MATCH 4', 'between MATCH', 'old MATCH 2']);
      expect(await messages('QUIET')).toEqual(['new quiet', 'Old quiet 5', 'between quiet', 'Old quiet 3', 'Old quiet 1']);
      expect(await messages('ee')).toEqual(['between quiet', 'between MATCH']);
      expect(await messages(' ')).toHaveLength(10);
    };
    // While the marking runs (the reader then reads down the time index), and once every log is indexed again.
    await expectFound();
    for (let turns = 0; !(await db.collection('counters').findOne({ _id: 'migration:log-postings' as never })) && turns < 200; turns++) {
      await new Promise((done) => setTimeout(done, 25));
    }
    expect(await waitIndexed(db)).toBe(0);
    expect(await db.collection('logs').countDocuments({ $or: [{ seq: { $exists: false } }, { grams: { $exists: true } }, { message: { $exists: false } }] })).toBe(0);
    finds.length = 0;
    await expectFound();
    expect(finds).toContain('logPostings');
  });
});

describe('mongo store: trace records written before rootService and rootOperation', () => {
  it('are named from their root span by the backfill of the next process to start, and found by service and operation', async () => {
    const { store, db, database } = await openStore({ pageSize: 2 });
    const w = await makeWorld(store);
    const ids = { otel: newId(), lantern: newId(), entry: newId(), orphan: newId(), fresh: newId() };
    await store.writeSpans(spanBatch(w.app, [
      rootSpan(ids.otel, T0, { serviceName: 'checkout', name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/cart' }], durationMs: 40 }),
      rootSpan(ids.lantern, T0 + 1, { requestMethod: 'controller:POST', route: '/pay' }),
      span(ids.lantern, T0 + 2, { parentSpanId: newId(), requestMethod: 'service:charge' }),
      span(ids.entry, T0 + 10, { parentSpanId: newId(), requestMethod: 'controller:GET', route: '/entry', durationMs: 900 }),
      span(ids.entry, T0 + 12, { parentSpanId: newId(), requestMethod: 'controller:GET', route: '/nested', durationMs: 5 }),
      span(ids.orphan, T0 + 20, { parentSpanId: newId() }),
    ]));
    await store.close();
    // What records written before these fields look like, and the database before its backfill.
    await db.collection('traces').updateMany({}, { $unset: { rootService: '', rootOperation: '' } });
    await db.collection('counters').deleteOne({ _id: 'migration:trace-names' as never });

    const reader = (await openStore({ database, pageSize: 2 })).store;
    for (let turns = 0; !(await db.collection('counters').findOne({ _id: 'migration:trace-names' as never })) && turns < 200; turns++) {
      await new Promise((done) => setTimeout(done, 25));
    }
    await reader.writeSpans(spanBatch(w.app, [rootSpan(ids.fresh, T0 + 30, { serviceName: 'checkout', name: 'GET /cart', kind: 'server' })]));
    const found = async (query: { service?: string; operation?: string }) =>
      (await collect(reader.streamTraces({ userId: w.user.id, projectId: w.project.id, ...query }))).map((t) => t.traceId);
    expect(await found({ service: 'checkout' })).toEqual([ids.fresh, ids.otel]);
    expect(await found({ operation: 'GET /cart' })).toEqual([ids.fresh, ids.otel]);
    expect(await found({ operation: 'POST /pay' })).toEqual([ids.lantern]);
    expect(await found({ operation: 'charge' })).toEqual([]);
    expect(await found({ operation: 'GET /entry' })).toEqual([ids.entry]);
    expect(await found({ operation: 'GET /nested' })).toEqual([]);
    const named = await db.collection('traces').find({}, { projection: { _id: 0, traceId: 1, rootService: 1, rootOperation: 1 }, sort: { ts: 1 } }).toArray();
    expect(named).toEqual([
      { traceId: ids.otel, rootService: 'checkout', rootOperation: 'GET /cart' },
      { traceId: ids.lantern, rootService: null, rootOperation: 'POST /pay' },
      { traceId: ids.entry, rootService: null, rootOperation: 'GET /entry' },
      { traceId: ids.orphan, rootService: null, rootOperation: null },
      { traceId: ids.fresh, rootService: 'checkout', rootOperation: 'GET /cart' },
    ]);
    await reader.close();
  });
});

describe('mongo store: trace records written before the attribute index', () => {
  it('get their spans\' attribute hashes from the backfill of the next process to start, and are found by attribute', async () => {
    const { store, db, database } = await openStore({ pageSize: 2 });
    const w = await makeWorld(store);
    const ids = { otel: newId(), lantern: newId(), fresh: newId() };
    const resource = [{ key: 'deployment.environment', value: 'prod' }];
    await store.writeSpans(spanBatch(w.app, [
      rootSpan(ids.otel, T0, { serviceName: 'checkout', resource, name: 'GET /cart', kind: 'server', attributes: [{ key: 'cart.items', value: 3 }] }),
      span(ids.otel, T0 + 1, { parentSpanId: newId(), serviceName: 'checkout', resource, attributes: [{ key: 'charge.id', value: 'ch_1' }] }),
      rootSpan(ids.lantern, T0 + 2, { orderId: 'o-9' }),
    ]));
    await store.close();
    // What records written before the fields look like, and the database before its backfill.
    await db.collection('traces').updateMany({}, { $unset: { attrs: '', attrKeys: '', attrsComplete: '' } });
    // A writer of this version reaches one of them before the backfill runs (the marker still there, its pass
    // does not start): a new span, its hashes only.
    const early = (await openStore({ database, pageSize: 2 })).store;
    await early.writeSpans(spanBatch(w.app, [span(ids.lantern, T0 + 3, { parentSpanId: newId(), refund: true })]));
    await early.close();
    expect(await db.collection('traces').countDocuments({ attrsComplete: { $exists: false } })).toBe(2);
    expect(await db.collection('traces').countDocuments({ attrs: { $exists: true } })).toBe(1);
    await db.collection('counters').deleteOne({ _id: 'migration:trace-attrs' as never });
    const reader = (await openStore({ database, pageSize: 2 })).store;
    for (let turns = 0; !(await db.collection('counters').findOne({ _id: 'migration:trace-attrs' as never })) && turns < 200; turns++) {
      await new Promise((done) => setTimeout(done, 25));
    }
    await reader.writeSpans(spanBatch(w.app, [rootSpan(ids.fresh, T0 + 30, { serviceName: 'checkout', resource, name: 'GET /cart', kind: 'server' })]));
    const found = async (...attributes: Array<{ key: string; value?: string }>) =>
      (await collect(reader.streamTraces({ userId: w.user.id, projectId: w.project.id, attributes }))).map((t) => t.traceId);
    expect(await found({ key: 'deployment.environment', value: 'prod' })).toEqual([ids.fresh, ids.otel]);
    expect(await found({ key: 'charge.id', value: 'ch_1' }, { key: 'cart.items', value: '3' })).toEqual([ids.otel]);
    expect(await found({ key: 'service.name', value: 'checkout' })).toEqual([ids.fresh, ids.otel]);
    expect(await found({ key: 'orderId' })).toEqual([ids.lantern]);
    // The record the writer reached first has its older spans' hashes too.
    expect(await found({ key: 'orderId', value: 'o-9' }, { key: 'refund', value: 'true' })).toEqual([ids.lantern]);
    expect(await db.collection('traces').countDocuments({ attrsComplete: { $exists: false } })).toBe(0);
    await reader.close();
  });
});

describe('mongo store: log search', () => {
  /** A pending log as the ingest writes it, straight into the collection (the store's indexer is not kicked). */
  const pendingLog = (w: { project: { id: number }; app: { id: number } }, id: string, ts: number, message: string, level = 'info') => ({
    _id: id as never, projectId: w.project.id, applicationId: w.app.id, level, ts: new Date(ts), message, data: JSON.stringify({ message }), gramsPending: true as const,
  });

  /**
   * The commands a read with `messageContains` sends, over 3,000 indexed logs and, with `pending`, 500 more the
   * indexer has not reached (what a writer under load leaves); each find explained as sent.
   */
  async function planOf(search: string | { attributes: Array<{ key: string; value?: string }> }, pending = false): Promise<{ found: string[]; plans: Array<{ collection: string; plan: string }> }> {
    const events: CommandStartedEvent[] = [];
    const { store, db } = await openStore({ onCommand: (e) => events.push(e) });
    const w = await makeWorld(store);
    const logs = Array.from({ length: 3000 }, (_, i) => logEntry(w.app, T0 + i, i % 1000 === 7
      ? { message: `request ${i} served, zebracorn`, flag: 'zebra' } : { message: `request ${i} served` }));
    for (let i = 0; i < logs.length; i += 1000) await store.writeLogs(logBatch(w.app, logs.slice(i, i + 1000)));
    expect(await waitIndexed(db)).toBe(0);
    if (pending) {
      await db.collection('logs').insertMany(Array.from({ length: 500 }, (_, i) => pendingLog(w, newId(), T0 + 5000 + i, i === 250 ? 'late zebracorn' : `late ${i}`)));
    }
    events.length = 0;
    const found = (await collect(store.streamLogs({ userId: w.user.id, projectId: w.project.id, ...(typeof search === 'string' ? { messageContains: search } : search), limit: 100 })))
      .map((l) => l.message);
    const finds = events.filter((e) => e.commandName === 'find').map((e) => e.command);
    const plans = await Promise.all(finds.map(async (find) => ({
      collection: String(find.find),
      plan: JSON.stringify((await db.command({
        explain: { find: find.find, filter: find.filter, ...(find.sort ? { sort: find.sort } : {}), ...(find.hint ? { hint: find.hint } : {}) }, verbosity: 'queryPlanner',
      })).queryPlanner.winningPlan),
    })));
    return { found, plans };
  }

  /**
   * A search read from the postings: the pending logs on their index, then candidates by number, no scan; the
   * plans of each collection, for what a test checks besides.
   */
  function expectPostingsSearch(search: Awaited<ReturnType<typeof planOf>>): (collection: string) => string[] {
    expect(search.found).toEqual(['request 2007 served, zebracorn', 'request 1007 served, zebracorn', 'request 7 served, zebracorn']);
    const of = (collection: string) => search.plans.filter((p) => p.collection === collection).map((p) => p.plan);
    const [pendingRead, ...candidateReads] = of('logs');
    expect(pendingRead).toContain('"indexName":"project_pending_ts"');
    expect(candidateReads.length).toBeGreaterThan(0);
    for (const plan of candidateReads) expect(plan).toContain('"indexName":"project_seq"');
    for (const { plan } of search.plans) expect(plan).not.toContain('COLLSCAN');
    return of;
  }

  it('reads a rare text from the postings: pending logs, segments, a range per trigram, candidates by number; no scan', async () => {
    const of = expectPostingsSearch(await planOf('ZEBRACORN'));
    expect(of('logSegments')).toEqual([expect.stringContaining('"indexName":"project_state"')]);
    // One range of `_id` per trigram of the text (searchTrigrams: at most 8).
    expect(of('logPostings')).toHaveLength(new Set(searchGramsOf('ZEBRACORN')).size);
    for (const plan of of('logPostings')) expect(plan).toContain('"indexName":"_id_"');
  });

  it('reads a rare attribute from the postings as a text: one range for its pair, candidates by number; a key alone down the time index', async () => {
    const rare = await planOf({ attributes: [{ key: 'flag', value: 'zebra' }] });
    expect(expectPostingsSearch(rare)('logPostings')).toHaveLength(1);
    const key = await planOf({ attributes: [{ key: 'flag' }] });
    expect(key.found).toEqual(rare.found);
    const logReads = key.plans.filter((p) => p.collection === 'logs');
    expect(logReads).toHaveLength(1);
    expect(logReads[0]!.plan).toContain('"indexName":"project_ts"');
    expect(key.plans.filter((p) => p.collection === 'logPostings')).toEqual([]);
  });

  it('finds the logs the indexer has not reached yet, merged newest first with the indexed ones', async () => {
    const rare = await planOf('ZEBRACORN', true);
    expect(rare.found).toEqual(['late zebracorn', 'request 2007 served, zebracorn', 'request 1007 served, zebracorn', 'request 7 served, zebracorn']);
  });

  it('numbers the logs of a project and writes a segment of postings: trigrams, ASCII capitals lowered, and levels', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const [long, short] = [logEntry(w.app, T0, { message: 'AbAbÉ' }), logEntry(w.app, T0 + 1, { message: 'Hi', level: 'warn' })];
    await store.writeLogs(logBatch(w.app, [long, short]));
    expect(await waitIndexed(db)).toBe(0);
    const seqOf = async (id: string) => (await db.collection('logs').findOne({ _id: id as never }))?.['seq'] as number;
    expect([await seqOf(long.id), await seqOf(short.id)]).toEqual([0, 1]);
    const segments = await db.collection('logSegments').find({}).toArray();
    expect(segments.map((g) => [g['state'], g['seq'], g['end'], g['block']])).toEqual([['ready', 0, 2, 0]]);
    const postings = await db.collection('logPostings').find({}).toArray();
    const positions = (b: { buffer: Uint8Array }) => Array.from({ length: b.buffer.length / 2 }, (_, i) => b.buffer[2 * i]! + 256 * b.buffer[2 * i + 1]!);
    // And each key-value attribute of a log (its `type` and its level here: logEntry's fields).
    const pair = (key: string, value: string) => attributeKey(pairHash(key, value));
    expect(Object.fromEntries(postings.map((p) => [String(p._id).split('|')[1], positions(p['b'])]))).toEqual({
      aba: [0], bab: [0], 'abÉ': [0], '\u0001info': [0], '\u0001warn': [1],
      [pair('type', 'app')]: [0, 1], [pair('level', 'info')]: [0], [pair('level', 'warn')]: [1],
    });
    expect(await db.collection('logs').countDocuments({ gramsPending: { $exists: true } })).toBe(0);
  });

  it('finds a log the indexer moves between the two reads of a page, once, on every page size', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0); // the store's indexer idle: only the test moves these logs
    const c = collectionsOf(db);
    const docs = Array.from({ length: 40 }, (_, i) => pendingLog(w, `log-${String(i).padStart(2, '0')}`, T0 + i, i % 3 === 0 ? `match ${i}` : `other ${i}`));
    const expected = docs.filter((d) => d.message.startsWith('match')).map((d) => d.message).reverse();
    const base = (after: Cursor | undefined) => ({ projectId: w.project.id, ...(after ? { $or: [{ ts: { $lt: new Date(after.ts) } }, { ts: new Date(after.ts), _id: { $lt: after.id } }] } : {}) });
    for (const limit of [1, 2, 3, 7, 100]) {
      for (const name of ['logs', 'logSegments', 'logPostings', 'counters']) await db.collection(name).deleteMany({});
      await db.collection('logs').insertMany(docs.slice(0, 20));
      await indexLogsStep(c, 10); // some indexed, the rest pending: both reads of a page have logs
      await db.collection('logs').insertMany(docs.slice(20));
      // After the first read of every page (the pending logs), the indexer takes a few more: they leave that read's
      // range for the postings'.
      const find = c.logs.find.bind(c.logs);
      (c.logs as { find: unknown }).find = (...args: Parameters<typeof find>) => {
        const cursor = find(...args);
        if ((args[1] as { hint?: unknown } | undefined)?.hint !== 'project_pending_ts') return cursor;
        return { toArray: async () => { const read = await cursor.toArray(); await indexLogsStep(c, 3); return read; } };
      };
      const seen: string[] = [];
      try {
        let after: Cursor | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const page = await searchPage(c, { projects: [w.project.id], base }, 'MATCH', searchGramsOf('MATCH'), after, limit);
          seen.push(...page.found.map((f) => f.doc.message!));
          if (!page.next) break;
          after = page.next;
        }
      } finally {
        (c.logs as { find: unknown }).find = find;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('indexes a message of many trigrams like any other, and finds it by any part', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const long = Array.from({ length: 1500 }, (_, i) => ((i * 7919) % 46656).toString(36).padStart(3, '0')).join('');
    await db.collection('logs').insertOne(pendingLog(w, 'long', T0, long));
    expect(await indexLogsStep(collectionsOf(db))).toBe(1);
    expect((await db.collection('logs').findOne({ _id: 'long' as never }))?.['seq']).toBe(0);
    const found = await collect(store.streamLogs({ userId: w.user.id, messageContains: long.slice(2000, 2040).toUpperCase() }));
    expect(found.map((l) => l.id)).toEqual(['long']);
  });

  it('indexes pending logs in chunks, and two indexers at once number each log once, spending no number', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    await db.collection('logs').insertMany(Array.from({ length: 1200 }, (_, i) => pendingLog(w, newId(), T0 + i, `Log ${i}`)));
    const c = collectionsOf(db);
    await Promise.all([indexLogsStep(c, 700), indexLogsStep(c, 700)]);
    while ((await indexLogsStep(c, 700)) > 0);
    expect(await db.collection('logs').countDocuments({ gramsPending: true })).toBe(0);
    const seqs = (await db.collection('logs').find({}, { projection: { seq: 1 } }).toArray()).map((l) => l['seq'] as number);
    expect(seqs.sort((a, b) => a - b)).toEqual(Array.from({ length: 1200 }, (_, i) => i));
    const logs = await collect(store.streamLogs({ userId: w.user.id, messageContains: 'LOG 1' }));
    expect(logs).toHaveLength(1 + 10 + 100 + 200); // Log 1, 10-19, 100-199, 1000-1199
    expect(logs.map((l) => l.message).slice(0, 2)).toEqual(['Log 1199', 'Log 1198']);
  });

  it('merges a block of many segments into one, answers the same before and after, and sweeps the merged ones later', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    let now = Date.now();
    const c = collectionsOf(db);
    await db.collection('logs').insertMany(Array.from({ length: 170 }, (_, i) => pendingLog(w, `m-${String(i).padStart(3, '0')}`, T0 + ((i * 37) % 170),
      i % 10 === 0 ? `merge needle ${i}` : `merge hay ${i}`, i % 4 === 0 ? 'error' : 'info')));
    const read = async (query: Partial<Parameters<Store['streamLogs']>[0]> = {}) =>
      (await collect(store.streamLogs({ userId: w.user.id, messageContains: 'NEEDLE', ...query }))).map((l) => l.id);
    // Fifteen segments of 10: not merged yet.
    for (let i = 0; i < MERGE_FANIN - 1; i++) await indexLogsStep(c, 10, () => now);
    const states = async () => (await db.collection('logSegments').find({}).toArray()).map((g) => g['state'] as string).sort();
    expect(await states()).toEqual(Array(MERGE_FANIN - 1).fill('ready'));
    const before = await read(); // 150 logs in segments, 20 pending
    expect(before).toHaveLength(17);
    expect(await read({ level: 'error', limit: 3 })).toEqual((await read()).filter((id) => Number(id.slice(2)) % 4 === 0).slice(0, 3));
    // The sixteenth makes the merge.
    await indexLogsStep(c, 10, () => now);
    expect(await states()).toEqual([...Array(MERGE_FANIN).fill('merged'), 'ready']);
    const merged = await db.collection('logSegments').findOne({ state: 'ready' });
    expect(merged?.['covers']).toBeUndefined(); // needed only until the covered segments were marked merged
    expect(merged?.['parts']).toHaveLength(MERGE_FANIN);
    expect([merged?.['seq'], merged?.['end']]).toEqual([0, 160]);
    // The rest indexed beside it; the answer the same, and in the same order for every page size.
    await indexLogsStep(c, 10, () => now);
    const all = await read();
    expect(all).toEqual(before);
    for (const limit of [1, 4, 100]) expect(await read({ limit })).toEqual(all.slice(0, limit));
    const postings = await db.collection('logPostings').countDocuments({});
    // Swept once SWEEP_AFTER_MS have passed: the covered segments and their postings.
    now += SWEEP_AFTER_MS + 1;
    await db.collection('logs').insertOne(pendingLog(w, 'm-late', T0 + 500, 'merge needle late'));
    await indexLogsStep(c, 10, () => now);
    expect(await states()).toEqual(['ready', 'ready', 'ready']);
    expect(await db.collection('logPostings').countDocuments({})).toBeLessThan(postings);
    expect(await read()).toEqual(['m-late', ...all]);
  });

  it('merges a block once the project\'s numbers are past it', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const c = collectionsOf(db);
    await db.collection('counters').insertOne({ _id: `logs:${w.project.id}` as never, seq: BLOCK_LOGS - 6 });
    await db.collection('logs').insertMany(Array.from({ length: 10 }, (_, i) => pendingLog(w, `b-${i}`, T0 + i, `edge ${i}`)));
    await indexLogsStep(c, 3);
    await indexLogsStep(c, 3); // block 0 ends with this claim: its two segments are merged
    const segments = await db.collection('logSegments').find({ state: 'ready' }).toArray();
    expect(segments.map((g) => [g['block'], g['seq'], g['end']])).toEqual([[0, BLOCK_LOGS - 6, BLOCK_LOGS]]);
    while ((await indexLogsStep(c, 3)) > 0);
    const found = await collect(store.streamLogs({ userId: w.user.id, messageContains: 'EDGE' }));
    expect(found.map((l) => l.id)).toEqual(Array.from({ length: 10 }, (_, i) => `b-${9 - i}`));
    expect((await db.collection('logs').find({}).toArray()).map((l) => l['seq'])).toEqual(Array.from({ length: 10 }, (_, i) => BLOCK_LOGS - 6 + i));
  });

  it('reads whole a far part that holds a log stamped in the future, rather than every candidate down to it', async () => {
    const events: CommandStartedEvent[] = [];
    const { store, db } = await openStore({ onCommand: (e) => events.push(e) });
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const c = collectionsOf(db);
    const future = T0 + 10 * 365 * 24 * HOUR_MS;
    for (let step = 0; step < 12; step++) {
      await db.collection('logs').insertMany(Array.from({ length: 100 }, (_, i) => {
        const n = step * 100 + i;
        return pendingLog(w, `f-${String(n).padStart(4, '0')}`, step === 0 && i === 50 ? future : T0 + n, `needle ${n}`);
      }));
      await indexLogsStep(c, 100);
    }
    events.length = 0;
    const found = await collect(store.streamLogs({ userId: w.user.id, messageContains: 'NEEDLE', limit: 5 }));
    expect(found.map((l) => l.id)).toEqual(['f-0050', 'f-1199', 'f-1198', 'f-1197', 'f-1196']);
    // One fetch of the newest 500 candidates, then the far part read whole: not the 1,200 candidates down to it.
    const fetches = events.filter((e) => e.commandName === 'find' && e.command.find === 'logs' && e.command.hint === 'project_seq');
    expect(fetches.map((e) => (e.command.filter.$and[0].seq.$in ? 'candidates' : 'part'))).toEqual(['candidates', 'part']);
  });

  it('clears the pending flag a ready segment\'s step left, only for a log its postings hold', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const c = collectionsOf(db);
    await db.collection('logs').insertMany(Array.from({ length: 4 }, (_, i) => pendingLog(w, `k-${i}`, T0 + i, `kept ${i}`)));
    await indexLogsStep(c);
    // The step's clearing failed for k-1; and k-9, numbered inside the segment's range, is in none of its postings.
    await db.collection('logs').updateOne({ _id: 'k-1' as never }, { $set: { gramsPending: true } });
    await db.collection('logSegments').updateOne({}, { $set: { end: 10 } });
    await db.collection('logs').insertOne({ ...pendingLog(w, 'k-9', T0 + 9, 'kept 9'), seq: 9 });
    await indexLogsStep(c);
    const pending = await db.collection('logs').find({ gramsPending: true }).toArray();
    expect(pending.map((l) => l._id)).toEqual(['k-9']);
    expect((await collect(store.streamLogs({ userId: w.user.id, messageContains: 'KEPT' }))).map((l) => l.id)).toEqual(['k-9', 'k-3', 'k-2', 'k-1', 'k-0']);
  });

  it('finds what a step takes on an index, whatever the backlog', async () => {
    const { store, database, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    // A burst the indexer is behind on: 3,000 pending, unnumbered.
    await db.collection('logs').insertMany(Array.from({ length: 3000 }, (_, i) => pendingLog(w, `p-${i}`, T0 + i, `backlog ${i}`)));
    const watched = new MongoClient(url, { monitorCommands: true });
    const finds: Document[] = [];
    watched.on('commandStarted', (e) => e.commandName === 'find' && e.command.find === 'logs' && finds.push(e.command));
    try {
      await indexLogsStep(collectionsOf(watched.db(database)), 100);
    } finally {
      await watched.close();
    }
    const costs = await Promise.all(finds.filter((f) => f.hint === 'pending_seq').map(async (f) => {
      const { find, filter, projection, limit, hint } = f;
      const stats = (await db.command({ explain: { find, filter, projection, limit, hint }, verbosity: 'executionStats' })).executionStats as Document;
      return { keys: Number(stats.totalKeysExamined), docs: Number(stats.totalDocsExamined) };
    }));
    // The next chunk (100 of the 3,000), at the index's null key: not the backlog.
    expect(costs).toHaveLength(1);
    for (const cost of costs) expect(cost.keys).toBeLessThanOrEqual(110);
    for (const cost of costs) expect(cost.docs).toBeLessThanOrEqual(110);
  });

  it('clears the pending flag only of the logs a segment numbered: one another step numbered meanwhile waits for that step', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const c = collectionsOf(db);
    // This step read a and b unnumbered and gave them 0 and 1; another step numbered b 5 first, its segment not ready.
    await db.collection('logs').insertMany([{ ...pendingLog(w, 'a', T0, 'race a'), seq: 0 }, { ...pendingLog(w, 'b', T0 + 1, 'race b'), seq: 5 }]);
    const key = '000000000000-000000000002';
    const segment = { _id: `${w.project.id}|${key}`, projectId: w.project.id, block: 0, key, seq: 0, end: 2,
      minTs: new Date(T0), maxTs: new Date(T0 + 1), state: 'building' as const, at: new Date() };
    await db.collection('logSegments').insertOne(segment as never);
    const logs = await c.logs.find({ _id: { $in: ['a', 'b'] } }).sort({ _id: 1 }).toArray();
    await writeSegment(c, segment, logs.map((log, i) => ({ ...log, seq: i })));
    expect((await db.collection('logs').find({ gramsPending: true }).toArray()).map((l) => l._id)).toEqual(['b']);
    expect((await collect(store.streamLogs({ userId: w.user.id, messageContains: 'RACE' }))).map((l) => l.id)).toEqual(['b', 'a']);
  });

  it('writes again a segment whose builder stopped, once its lease has passed', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    expect(await waitIndexed(db)).toBe(0);
    const c = collectionsOf(db);
    // A builder that numbered its logs and stopped: the segment building, the logs numbered and still pending.
    await db.collection('logs').insertMany(Array.from({ length: 5 }, (_, i) => ({ ...pendingLog(w, `s-${i}`, T0 + i, `stopped ${i}`), seq: i })));
    const key = '000000000000-000000000005';
    await db.collection('logSegments').insertOne({ _id: `${w.project.id}|${key}` as never, projectId: w.project.id, block: 0, key, seq: 0, end: 5,
      minTs: new Date(T0), maxTs: new Date(T0 + 4), state: 'building', at: new Date() });
    const found = async () => (await collect(store.streamLogs({ userId: w.user.id, messageContains: 'STOPPED' }))).map((l) => l.id);
    expect(await found()).toHaveLength(5); // read among the pending
    await indexLogsStep(c);
    expect((await db.collection('logSegments').findOne({}))?.['state']).toBe('building'); // within its lease
    await indexLogsStep(c, MONGO_INDEX_CHUNK, () => Date.now() + SEGMENT_LEASE_MS + 1);
    expect((await db.collection('logSegments').findOne({}))?.['state']).toBe('ready');
    expect(await db.collection('logs').countDocuments({ gramsPending: true })).toBe(0);
    expect(await found()).toEqual(['s-4', 's-3', 's-2', 's-1', 's-0']);
  });
});

describe('mongo store: failures', () => {
  it('answers 503 at start-up when no server listens', async () => {
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => done(free));
      });
    });
    await expect(createMongoStore({ url: `mongodb://127.0.0.1:${port}`, database: uniqueDatabase(), serverSelectionTimeoutMS: 500 }))
      .rejects.toMatchObject({ status: 503, code: 'unavailable' });
  });

  it('answers 503 once closed', async () => {
    const { store } = await openStore();
    await store.close();
    await expect(store.ping()).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    await expect(collect(store.streamLogs({ userId: newId() }))).rejects.toMatchObject({ status: 503 });
  });

  it('starts the key counter of an application created before it from its active keys, once, before a capped creation', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    const key = (n: number, maxActive?: number) => {
      const input = { applicationId: w.app.id, projectId: w.project.id, name: `k${n}`, prefix: `p${n}`, hash: `legacy-${n}-${newId()}` };
      return maxActive === undefined ? store.createApiKey(input) : store.createApiKey(input, { maxActive });
    };
    const revoked = await key(1);
    await key(2);
    await key(3);
    await store.revokeApiKey(revoked!.id);
    // As an application written before the counter: no activeKeys field.
    await db.collection('applications').updateOne({ _id: w.app.id as never }, { $unset: { activeKeys: '' } });
    const made = await Promise.all([4, 5, 6, 7].map((n) => key(n, 3)));
    expect(made.filter((k) => k !== null)).toHaveLength(1);
    expect(await store.countActiveApiKeys(w.app.id)).toBe(3);
    expect((await db.collection('applications').findOne({ _id: w.app.id as never }))?.['activeKeys']).toBe(3);
  });

  it('starts the organization counter of a user stored before it from the organizations they created, once', async () => {
    const { store, db } = await openStore();
    const w = await makeWorld(store);
    await store.createOrganization({ name: 'second', ownerId: w.user.id });
    // As a user written before the counter: no organizationsCreated field.
    await db.collection('users').updateOne({ _id: w.user.id as never }, { $unset: { organizationsCreated: '' } });
    const made = await Promise.all([1, 2, 3, 4].map(() => store.createOrganization({ name: 'capped', ownerId: w.user.id }, { maxCreated: 3 })));
    expect(made.filter((o) => o !== null)).toHaveLength(1);
    expect(await store.listMemberships(w.user.id)).toHaveLength(3);
    expect((await db.collection('users').findOne({ _id: w.user.id as never }))?.['organizationsCreated']).toBe(3);
  });

  it('stamps keys and revocations with its clock, and purges idempotency keys older than 24 h by it', async () => {
    // The store's clock a month ahead of the server's: keys stamped by it are in the server's future, where the
    // TTL monitor leaves them, so only the purge (by the store's clock) removes them.
    const ahead = Date.now() + 30 * 24 * HOUR_MS;
    let now = ahead;
    const { store, db } = await openStore({ now: () => now });
    const w = await makeWorld(store);
    const key = await store.createApiKey({ applicationId: w.app.id, projectId: w.project.id, name: 'k', prefix: 'p', hash: 'h' });
    expect(key.createdAt).toBe(toIso(ahead));
    now = ahead + 1234;
    await store.revokeApiKey(key.id);
    expect((await store.findApiKeyByHash('h'))?.revokedAt).toBe(toIso(ahead + 1234));
    now = ahead;
    await store.writeSpans(spanBatch(w.app, [rootSpan(newId(), ahead)], { idempotencyKey: 'old', receivedAt: ahead - 25 * HOUR_MS }));
    await store.writeSpans(spanBatch(w.app, [rootSpan(newId(), ahead + 1)], { idempotencyKey: 'recent', receivedAt: ahead - HOUR_MS }));
    const keys = async () => (await db.collection('idempotencyKeys').find({}).toArray()).map((k) => k.key as string).sort();
    expect(await keys()).toEqual(['old', 'recent']);
    expect(await store.purgeTelemetryBefore(0)).toBe(0);
    expect(await keys()).toEqual(['recent']);
    now = ahead + 24 * HOUR_MS;
    await store.purgeTelemetryBefore(0);
    expect(await keys()).toEqual([]);
  });

  it('answers 503 while the server is down; after a restart the same store answers again, the data kept', async () => {
    // The restart goes through the script that manages the server: it must be the one the tests were given.
    const state = resolve(process.env.LANTERN_INFRA_STATE || join(ROOT, '.infra'));
    const endpoint = JSON.parse(readFileSync(join(state, 'mongo', 'endpoint.json'), 'utf8')) as { env?: Record<string, string> };
    if (endpoint.env?.LANTERN_TEST_MONGO_URL !== url) {
      throw new Error(`LANTERN_TEST_MONGO_URL (${url}) is not the server scripts/infra/mongo.mjs manages (${JSON.stringify(endpoint.env)}): this test restarts it.`);
    }
    const infra = (verb: 'start' | 'stop') => {
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/infra/mongo.mjs'), verb], { encoding: 'utf8', env: process.env });
      if (run.status !== 0) throw new Error(`scripts/infra/mongo.mjs ${verb} failed:\n${run.stderr}`);
    };
    const { store } = await openStore({ serverSelectionTimeoutMS: 1000 });
    const w = await makeWorld(store);
    const before = rootSpan(newId(), T0);
    await store.writeSpans(spanBatch(w.app, [before]));
    await store.writeLogs(logBatch(w.app, [logEntry(w.app, T0)]));
    const traces = () => collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }));

    infra('stop');
    try {
      await expect(store.ping()).rejects.toMatchObject({ status: 503, code: 'unavailable' });
      await expect(store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 + 1)]))).rejects.toMatchObject({ status: 503 });
      await expect(traces()).rejects.toMatchObject({ status: 503 });
    } finally {
      infra('start');
    }
    await eventually(() => store.ping(), 20_000);
    expect(await store.getUser(w.user.id)).toEqual(w.user);
    expect((await traces()).map((r) => r.telemetry)).toEqual([[before]]);
    expect(await collect(store.streamLogs({ userId: w.user.id }))).toHaveLength(1);
    const after = rootSpan(newId(), T0 + 2);
    await store.writeSpans(spanBatch(w.app, [after]));
    expect((await traces()).map((r) => r.telemetry)).toEqual([[after], [before]]);
  }, 90_000);
});
