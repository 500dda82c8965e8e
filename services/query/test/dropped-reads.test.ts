import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTokenService } from '@lantern/auth';
import { JSON_BATCHES, newId, type JsonBatches } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';
import { makeWorld, rootSpan, spanBatch, T0, type World } from '../../../packages/store/src/contract/fixtures.js';
import { createQueryApp, type QueryStore } from '../src/app.js';

const MAX = 4;
const TRACES = 50_000;

/** One read the store served, as the store saw it: how it ended (`done`: it read to the end of its set). */
interface Read {
  method: string;
  url: string;
  state: 'running' | 'done' | 'returned' | 'threw';
  order: { start: number; end?: number };
}

/**
 * A client that drops its reads and asks again gets no more reads running at once than one that waits (issue 18,
 * MAX_CONCURRENT_READS_PER_USER), and a read whose client has gone stops. Real HTTP against the query app on a
 * real SQLite store with its read workers; the store is only observed (when each read starts and how it ends),
 * not replaced. The dropped reads look for a `url` that none of 50k traces has: without being stopped, each
 * scans the whole set (about half a second alone, seconds for four on the user's one heavy worker).
 */
describe('query: a dropped read keeps its slot until it has stopped, and stops', () => {
  let dir: string;
  let store: Store;
  let w: World;
  let token: string;
  let server: http.Server;
  let port: number;
  const reads: Read[] = [];
  let clock = 0;

  /** The records of a read, and its serialised batches (the whole-set path), both observed. */
  function observed<T>(method: string, url: string, items: AsyncIterable<T>): AsyncIterable<T> & JsonBatches {
    async function* track<U>(source: AsyncIterable<U>): AsyncGenerator<U> {
      const read: Read = { method, url, state: 'running', order: { start: ++clock } };
      reads.push(read);
      try {
        yield* source;
        read.state = 'done';
      } catch (e) {
        read.state = 'threw';
        throw e;
      } finally {
        if (read.state === 'running') read.state = 'returned';
        read.order.end = ++clock;
      }
    }
    const batches = (items as Partial<JsonBatches>)[JSON_BATCHES];
    return {
      [Symbol.asyncIterator]: () => track(items)[Symbol.asyncIterator](),
      [JSON_BATCHES]: () => track(batches!.call(items)),
    };
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-dropped-'));
    store = await openSqliteStore({ file: join(dir, 'lantern.db'), writerThread: true, readWorkers: 2 });
    w = await makeWorld(store, 'dropped');
    for (let b = 0; b < TRACES / 1000; b++) {
      await store.writeSpans(spanBatch(w.app, Array.from({ length: 1000 }, (_, i) => rootSpan(newId(), T0 + (b * 1000 + i) * 10))));
    }
    const tokens = createTokenService({ secret: 'test-secret-that-is-long-enough-0123456789', ttlSeconds: 3600, versions: store });
    token = tokens.issue(w.user.id, 0);
    const queryStore: QueryStore = {
      getProject: (...a) => store.getProject(...a),
      readMetrics: (...a) => store.readMetrics(...a),
      readLogVolume: (...a) => store.readLogVolume(...a),
      streamTraces: (q) => observed('traces', q.urlContains ?? '', store.streamTraces(q)),
      streamLogs: (q) => observed('logs', '', store.streamLogs(q)),
    };
    const app = createQueryApp({
      store: queryStore, tokens, logger: createLogger({ service: 'test', silent: true }), maxConcurrentReadsPerUser: MAX,
      budgets: { readBudgetMs: 60_000, streamBudgetMs: 60_000 },
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  }, 120_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A read on a raw socket, to be dropped: the request is sent, its answer never awaited. */
  function dropLater(path: string): () => void {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${token}` } });
    req.on('error', () => undefined); // the socket we destroy
    return () => req.destroy();
  }

  const until = async (what: () => boolean) => {
    while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it(`refuses the read after ${MAX} dropped ones until one of them has stopped, and every dropped read stops`, async () => {
    const nowhere = `nomatch-${newId()}`;
    // Two whole sets (streamJsonArray) and two pages (sendPage), all scanning for a url nobody has.
    const drops = [
      dropLater(`/logs/project?id=${w.project.id}&url=${nowhere}`),
      dropLater(`/logs/project?id=${w.project.id}&url=${nowhere}`),
      dropLater(`/logs/project?id=${w.project.id}&url=${nowhere}&limit=10`),
      dropLater(`/logs/project?id=${w.project.id}&url=${nowhere}&limit=10`),
    ];
    const dropped = () => reads.filter((r) => r.url === nowhere);
    await until(() => dropped().length === MAX); // all four are reading
    for (const drop of drops) drop();

    // Ask again at once, and until a slot comes back: every refusal is the documented 429.
    let res = await request(server).get('/ingest/logs').query({ limit: 1 }).set('Authorization', `Bearer ${token}`);
    while (res.status === 429) {
      expect(res.body.error.code).toBe('too_many_reads');
      res = await request(server).get('/ingest/logs').query({ limit: 1 }).set('Authorization', `Bearer ${token}`);
    }
    expect(res.status).toBe(200);
    const probe = reads.find((r) => r.method === 'logs')!;
    // The slot it got was one a dropped read gave back after its read had ended in the store.
    expect(dropped().filter((r) => r.order.end !== undefined && r.order.end < probe.order.start).length).toBeGreaterThan(0);

    // And every dropped read stops: none goes on to the end of its set.
    await until(() => dropped().every((r) => r.state !== 'running'));
    expect(dropped().map((r) => r.state)).not.toContain('done');
  });
});
