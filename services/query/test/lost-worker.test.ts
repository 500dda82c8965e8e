import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createTokenService } from '@lantern/auth';
import { newId } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';
import { makeWorld, rootSpan, spanBatch, T0, type World } from '../../../packages/store/src/contract/fixtures.js';
import { startReadPool, type ReadPool } from '../../../packages/store/src/sqlite/read-pool.js';
import { createQueryApp } from '../src/app.js';

const TRACES = 5000;

/**
 * A whole-set response whose read worker dies midway is cut (the client gets invalid JSON, never a short array
 * that looks complete), and the next read is served by a new worker. Real HTTP on the query app; its reads go to
 * a real read pool on the store's file, whose worker is terminated as a crash would end it.
 */
describe('query: a whole-set response whose read worker dies', () => {
  let dir: string;
  let store: Store;
  let pool: ReadPool;
  let w: World;
  let token: string;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-lost-'));
    const file = join(dir, 'lantern.db');
    store = await openSqliteStore({ file, writerThread: true });
    w = await makeWorld(store, 'lost');
    for (let b = 0; b < TRACES / 1000; b++) {
      await store.writeSpans(spanBatch(w.app, Array.from({ length: 1000 }, (_, i) => rootSpan(newId(), T0 + (b * 1000 + i) * 10))));
    }
    pool = startReadPool(file, 1, 200);
    const tokens = createTokenService({ secret: 'test-secret-that-is-long-enough-0123456789', ttlSeconds: 3600, versions: store });
    token = tokens.issue(w.user.id, 0);
    const app = createQueryApp({
      store: { getProject: (...a) => store.getProject(...a), readMetrics: (...a) => store.readMetrics(...a), readLogVolume: (...a) => store.readLogVolume(...a), streamTraces: pool.streamTraces, streamLogs: pool.streamLogs },
      tokens, logger: createLogger({ service: 'test', silent: true }),
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await pool?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('cuts the connection (the body is not valid JSON), then serves the next read on a new worker', async () => {
    const req = http.get({ host: '127.0.0.1', port, path: `/logs/project?id=${w.project.id}`, headers: { Authorization: `Bearer ${token}` } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    // Take the first chunk and read no more: back-pressure holds the stream between two batches.
    let body = String((await once(res, 'data'))[0]);
    res.pause();
    const [worker] = pool.workersForTest();
    const exited = once(worker!, 'exit');
    await worker!.terminate();
    await exited;

    res.on('error', () => undefined); // 'aborted': what this test expects
    req.on('error', () => undefined);
    const closed = new Promise((resolve) => res.on('close', resolve));
    res.on('data', (chunk: Buffer) => (body += String(chunk)));
    res.resume();
    await closed;
    expect(res.complete).toBe(false);
    expect(() => JSON.parse(body)).toThrow();

    const next = await request(server).get('/logs/project').query({ id: w.project.id, limit: 5 }).set('Authorization', `Bearer ${token}`);
    expect(next.status).toBe(200);
    expect(next.body).toHaveLength(5);
  });
});
