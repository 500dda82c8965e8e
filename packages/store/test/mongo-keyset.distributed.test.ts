import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Application, LogEntry, Project, TraceRecord } from '@lantern/domain';
import type { LogQuery, Store, TraceQuery } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import { HOUR, collect, cursorOf, logBatch, logEntry, makeWorld, rootSpan, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { costsOf } from './mongo-explain.js';
import type { FindCost } from './mongo-explain.js';
import { PART_LOGS } from '../src/mongo/log-indexer.js';
import { waitIndexed } from './mongo-wait.js';

/*
 * Keyset paging where the cursor is the index bound (issue 18): with a time window and a cursor, a page's index
 * range starts at the cursor, not at the window's edge. Each test reads the first page of a large window and the
 * page at 95 % of its depth through the store, has mongod explain the finds they sent (executionStats), and
 * asserts that the deep page examines about as many index keys and documents as the first, on an index scan.
 * Timestamps come in pairs, so a cursor often falls between two records of one instant (the tie-break on id).
 */

const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
const database = `lantern_keyset_${newId().replace(/-/g, '')}`;
const admin = new MongoClient(urlEnv, { serverSelectionTimeoutMS: 10_000 });
const db: Db = admin.db(database);
const sent: CommandStartedEvent[] = [];
let store: Store;

/** Records per kind in the project: a window of them, read 50 at a time. */
const N = 8000;
const LIMIT = 50;
const T0 = Date.now() - 2 * HOUR;
const at = (i: number): number => T0 + Math.floor(i / 2) * 100;
const window = { from: T0 - 1000, to: T0 + N * 100 };
let w: World;
let second: Application;
let other: Project;

beforeAll(async () => {
  store = await createMongoStore({ url: urlEnv, database, onCommand: (event) => sent.push(event) });
  w = await makeWorld(store, 'keyset');
  second = await store.createApplication({ name: 'second', projectId: w.project.id });
  other = await store.createProject({ name: 'other', organizationId: w.org.id });
  const otherApp = await store.createApplication({ name: 'other app', projectId: other.id });
  for (let start = 0; start < N; start += 1000) {
    const indexes = Array.from({ length: 1000 }, (_, k) => start + k);
    const appOf = (i: number) => (i % 4 === 0 ? second : w.app);
    for (const app of [w.app, second]) {
      await store.writeSpans(spanBatch(app, indexes.filter((i) => appOf(i) === app)
        .map((i) => rootSpan(newId(), at(i), { responseStatus: i % 10 ? 200 : 500, requestURL: `/items/${i % 3}/${i}` }))));
      await store.writeLogs(logBatch(app, indexes.filter((i) => appOf(i) === app)
        .map((i) => logEntry(app, at(i), { level: i % 10 ? 'info' : 'error' }))));
    }
    await store.writeLogs(logBatch(otherApp, indexes.filter((i) => i % 2 === 0).map((i) => logEntry(otherApp, at(i)))));
  }
  expect(await waitIndexed(db)).toBe(0);
}, 240_000);

afterAll(async () => {
  await store?.close();
  await db.dropDatabase();
  await admin.close();
});

/** Runs a read and returns what it yielded and the cost of its finds on `collection`. */
async function measured<T>(read: () => AsyncIterable<T>, collection: string): Promise<{ items: T[]; costs: FindCost[] }> {
  sent.length = 0;
  const items = await collect(read());
  return { items, costs: await costsOf(db, sent.splice(0), collection) };
}

/**
 * The first page and the page at 95 % depth of the same read: the deep page returns the records after its
 * cursor, and each of its finds examines about what the same find of the first page does (a few more keys: the
 * records of the cursor's own instant), on an index scan, never a collection scan.
 */
async function expectDeepPageCheap<T extends { id: string; timestamp: string }>(
  read: (page: { limit?: number; cursor?: { ts: number; id: string } }) => AsyncIterable<T>, collection: string, { totals = false } = {},
): Promise<void> {
  const all = await collect(read({}));
  expect(all.length).toBeGreaterThan(LIMIT * 10);
  const depth = Math.floor(all.length * 0.95);
  const first = await measured(() => read({ limit: LIMIT }), collection);
  const deep = await measured(() => read({ limit: LIMIT, cursor: cursorOf(all[depth]!) }), collection);
  expect(first.items.map((r) => r.id)).toEqual(all.slice(0, LIMIT).map((r) => r.id));
  expect(deep.items.map((r) => r.id)).toEqual(all.slice(depth + 1, depth + 1 + LIMIT).map((r) => r.id));
  if (totals) {
    // A search of the postings fetches its candidates in as many finds as it takes: their sums are compared. The
    // deep page may also fetch the candidates of the part its cursor falls in (PART_LOGS logs: those newer than
    // the cursor are fetched, then filtered); without the cursor as its bound it would fetch ~7,600 here.
    const sum = (costs: FindCost[], k: 'keysExamined' | 'docsExamined') => costs.reduce((n, c) => n + c[k], 0);
    for (const cost of deep.costs) expect(cost.stages).not.toContain('COLLSCAN');
    expect(sum(deep.costs, 'keysExamined')).toBeLessThanOrEqual(sum(first.costs, 'keysExamined') * 1.5 + PART_LOGS + 10);
    expect(sum(deep.costs, 'docsExamined')).toBeLessThanOrEqual(sum(first.costs, 'docsExamined') * 1.5 + PART_LOGS + 10);
    return;
  }
  expect(deep.costs.length).toBe(first.costs.length);
  expect(deep.costs.length).toBeGreaterThan(0);
  deep.costs.forEach((cost, i) => {
    const base = first.costs[i]!;
    expect(cost.stages).toContain('IXSCAN');
    expect(cost.stages).not.toContain('COLLSCAN');
    expect(cost.indexes).toEqual(base.indexes);
    // Without the cursor as the bound, the deep page examines 95 % of the window: thousands of keys here.
    expect(cost.keysExamined).toBeLessThanOrEqual(base.keysExamined * 1.5 + 10);
    expect(cost.docsExamined).toBeLessThanOrEqual(base.docsExamined * 1.5 + 10);
  });
}

describe('mongo store: a page deep in a window costs what the first page costs', () => {
  const traces = (query: Partial<TraceQuery> = {}) => (page: Partial<TraceQuery>): AsyncIterable<TraceRecord> =>
    store.streamTraces({ userId: w.user.id, projectId: w.project.id, ...window, ...query, ...page });
  const logs = (query: Partial<LogQuery> = {}) => (page: Partial<LogQuery>): AsyncIterable<LogEntry> =>
    store.streamLogs({ userId: w.user.id, projectId: w.project.id, ...window, ...query, ...page });

  it('trace records of a project', async () => {
    await expectDeepPageCheap(traces(), 'traces');
  });

  it('trace records of an application', async () => {
    await expectDeepPageCheap(traces({ applicationId: second.id }), 'traces');
  });

  it('trace records by root status and by url', async () => {
    await expectDeepPageCheap(traces({ status: { min: 500, max: 599 } }), 'traces');
    await expectDeepPageCheap(traces({ urlContains: 'ITEMS/1/' }), 'traces');
  });

  it('logs of a project, of an application, by level', async () => {
    await expectDeepPageCheap(logs(), 'logs');
    await expectDeepPageCheap(logs({ applicationId: second.id }), 'logs');
    await expectDeepPageCheap(logs({ level: 'error' }), 'logs');
  });

  it('logs of every visible project at once', async () => {
    await expectDeepPageCheap(logs({ projectId: undefined }), 'logs');
  });

  it('logs by message: the finds of each search page (short texts down the time index)', async () => {
    await expectDeepPageCheap(logs({ messageContains: 'log at' }), 'logs', { totals: true });
    await expectDeepPageCheap(logs({ messageContains: 'log at' }), 'logPostings', { totals: true });
    await expectDeepPageCheap(logs({ messageContains: 'at' }), 'logs');
  });
});

describe('mongo store: the keyset bound keeps pages exact at the window\'s edges', () => {
  /** What a page after `cursor` within [from, to) must hold: the newest-first list, filtered in memory. */
  const expected = (all: LogEntry[], from: number, to: number, cursor: { ts: number; id: string }) => all.filter((l) => {
    const ts = Date.parse(l.timestamp);
    return ts >= from && ts < to && (ts < cursor.ts || (ts === cursor.ts && l.id < cursor.id));
  }).slice(0, LIMIT).map((l) => l.id);

  it('a cursor inside, at the end of, past and before the window; a cursor between two logs of one instant', async () => {
    const all = await collect(store.streamLogs({ userId: w.user.id, projectId: w.project.id }));
    const mid = all[Math.floor(all.length / 2)]!;
    const midTs = Date.parse(mid.timestamp);
    // The logs come in pairs of one instant: `mid`'s twin is just before or after it in the list.
    const twins = all.filter((l) => l.timestamp === mid.timestamp);
    expect(twins.length).toBe(2);
    const cases = [
      { from: midTs - 10_000, to: midTs + 10_000, cursor: { ts: midTs, id: mid.id } },
      { from: midTs - 10_000, to: midTs + 10_000, cursor: { ts: midTs, id: twins[0]!.id } },
      { from: midTs - 10_000, to: midTs, cursor: { ts: midTs, id: mid.id } },
      { from: midTs - 10_000, to: midTs - 5_000, cursor: { ts: midTs, id: mid.id } },
      { from: midTs + 1, to: midTs + 10_000, cursor: { ts: midTs, id: mid.id } },
      { from: midTs - 10_000, to: midTs + 10_000, cursor: { ts: midTs - 10_000, id: '' } },
    ];
    const sizes: number[] = [];
    for (const { from, to, cursor } of cases) {
      const page = await collect(store.streamLogs({ userId: w.user.id, projectId: w.project.id, from, to, cursor, limit: LIMIT }));
      expect(page.map((l) => l.id)).toEqual(expected(all, from, to, cursor));
      sizes.push(page.length);
    }
    // Full pages where the window holds logs after the cursor, none where it holds none.
    expect(sizes).toEqual([LIMIT, LIMIT, LIMIT, LIMIT, 0, 0]);
  });
});
