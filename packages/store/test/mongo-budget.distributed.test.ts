import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db } from 'mongodb';
import { AppError, newId } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import { createGuard } from '../src/mongo/errors.js';
import { HOUR, collect, logBatch, logEntry, makeWorld, rootSpan, sleep, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { waitIndexed } from './mongo-wait.js';

/*
 * Every read of the MongoDB store honours `budgetMs` (issue 18): its queries carry `maxTimeMS` (what is left of
 * the budget), the clock is checked between pages, and past the budget the read ends with the 503 read_timeout
 * AppError, from the promise or the iterator. With a budget it has time for, a read returns what it returns
 * without one.
 */

const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
const database = `lantern_budget_${newId().replace(/-/g, '')}`;
const admin = new MongoClient(urlEnv, { serverSelectionTimeoutMS: 10_000 });
const db: Db = admin.db(database);
const sent: CommandStartedEvent[] = [];
let store: Store;
let w: World;

/** One trace (an entry span) and one log a minute over N minutes: N minute rollups, 30 pages of 200 of each stream. */
const N = 6000;
const MINUTE = 60_000;
const END = Math.floor(Date.now() / MINUTE) * MINUTE - HOUR;
const START = END - N * MINUTE;

beforeAll(async () => {
  store = await createMongoStore({ url: urlEnv, database, onCommand: (event) => sent.push(event) });
  w = await makeWorld(store, 'budget');
  for (let start = 0; start < N; start += 1000) {
    const minutes = Array.from({ length: 1000 }, (_, k) => START + (start + k) * MINUTE);
    await store.writeSpans(spanBatch(w.app, minutes.map((at, k) => rootSpan(newId(), at, { requestURL: `/items/${start + k}`, durationMs: k % 50 }))));
    await store.writeLogs(logBatch(w.app, minutes.map((at) => logEntry(w.app, at))));
  }
  expect(await waitIndexed(db)).toBe(0);
}, 240_000);

afterAll(async () => {
  await store?.close();
  await db.dropDatabase();
  await admin.close();
});

/** Each read of the store, given a budget (or none). */
const reads = {
  traces: (budgetMs?: number) => collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, budgetMs })),
  'traces by a rare url, limit 1': (budgetMs?: number) =>
    collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, urlContains: 'zzzz', limit: 1, budgetMs })),
  logs: (budgetMs?: number) => collect(store.streamLogs({ userId: w.user.id, budgetMs })),
  'logs by a text (trigram search pages)': (budgetMs?: number) => collect(store.streamLogs({ userId: w.user.id, messageContains: 'log at', budgetMs })),
  'logs by a short text': (budgetMs?: number) => collect(store.streamLogs({ userId: w.user.id, messageContains: 'at', budgetMs })),
  'root spans': (budgetMs?: number) => collect(store.streamRootSpans({ userId: w.user.id, from: START, to: END, budgetMs })),
  'metrics by the minute': (budgetMs?: number) => store.readMetrics({ userId: w.user.id, from: START, to: END, bucketMs: MINUTE, budgetMs }),
};

const readTimeout = (budgetMs: number) => expect.objectContaining({ status: 503, code: 'read_timeout', message: expect.stringContaining(`${budgetMs}`) });

describe('mongo store: reads within their budget', () => {
  it.each(Object.keys(reads) as (keyof typeof reads)[])('%s: a budget of 1 ms ends the read with read_timeout', async (name) => {
    const error = await reads[name](1).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toEqual(readTimeout(1));
  });

  it.each(Object.keys(reads) as (keyof typeof reads)[])('%s: a budget it has time for returns what no budget returns, each query with maxTimeMS', async (name) => {
    const unbounded = await reads[name]();
    sent.length = 0;
    const bounded = await reads[name](60_000);
    expect(bounded).toEqual(unbounded);
    // Every query of the read's data carries what was left of the budget (the access checks before them do not).
    const queries = sent.splice(0).filter((e) => ['find', 'aggregate'].includes(e.commandName)
      && ['traces', 'spans', 'logs', 'rollups', 'rollupHours'].includes(String(e.command[e.commandName])));
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) expect(q.command.maxTimeMS).toEqual(expect.any(Number));
    for (const q of queries) expect(q.command.maxTimeMS).toBeLessThanOrEqual(60_000);
  });

  it('a stream whose consumer outlasts the budget ends with read_timeout at the next page, after what it yielded', async () => {
    const seen: unknown[] = [];
    const read = async () => {
      for await (const log of store.streamLogs({ userId: w.user.id, budgetMs: 300 })) {
        if (seen.push(log) === 1) await sleep(400);
      }
    };
    await expect(read()).rejects.toEqual(readTimeout(300));
    // The first page (200 logs) was read before the budget was spent; the next page's check ended the stream.
    expect(seen).toHaveLength(200);
  });

  it('the budget counts from the call, not from the first item asked for', async () => {
    const logs = store.streamLogs({ userId: w.user.id, budgetMs: 50 });
    await sleep(100);
    await expect(collect(logs)).rejects.toEqual(readTimeout(50));
  });

  it('a query the server stops at its maxTimeMS (MaxTimeMSExpired, code 50) is the read\'s read_timeout', async () => {
    // A real MaxTimeMSExpired from mongod: a query that sleeps 50 ms per document, allowed 10 ms.
    await db.collection('slow').insertMany([{ n: 1 }, { n: 2 }]);
    const slow = () => db.collection('slow').find({ $where: 'sleep(50) || true' }, { maxTimeMS: 10 }).toArray();
    const raw = await slow().then(() => undefined, (e: unknown) => e);
    expect(raw).toMatchObject({ code: 50 });
    await expect(createGuard().run(slow, { budgetMs: 10 })).rejects.toEqual(readTimeout(10));
    // Without a budget it stays the driver's error (no read of the store sends maxTimeMS without one).
    await expect(createGuard().run(slow)).rejects.toMatchObject({ code: 50 });
  });
});
