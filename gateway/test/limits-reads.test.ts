import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectDocumentedRefusal } from './limits-helpers.js';
import { sendLogs } from './telemetry-helpers.js';

const MAX = 4;

/**
 * A read held open: the whole-set log stream (about 16 MB, uncompressed: no Accept-Encoding), requested over a
 * real socket whose client does not read, so back-pressure keeps the response, and its slot, in flight.
 */
function heldRead(port: number, token: string): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/ingest/logs', headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.pause();
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
  });
}

/** A per-user limit on reads in flight (issue 18), released when the response ends or the client goes away. */
describe('query: at most MAX_CONCURRENT_READS_PER_USER reads in flight per user', () => {
  let l: Lantern;
  let t: Tenancy;
  let other: Tenancy;
  let server: { port: number; close(): Promise<void> };
  const held: Array<{ close(): void }> = [];
  beforeAll(async () => {
    l = await startLantern({ limits: { maxConcurrentReadsPerUser: MAX } });
    t = await createTenancy(l, 'lim-reads');
    other = await createTenancy(l, 'lim-reads-other');
    for (let batch = 0; batch < 4; batch++) {
      const logs = Array.from({ length: 4000 }, () => ({ level: 'info', message: randomBytes(512).toString('hex'), timestamp: new Date().toISOString() }));
      await sendLogs(l, t.apiKey, { timestamp: new Date().toISOString(), logs }).expect(200);
    }
    server = await listenOnPort(l);
  });
  afterAll(async () => {
    for (const h of held) h.close();
    await server.close();
    await l.stop();
  });

  const probe = (token: string) => l.http.get('/ingest/logs').query({ limit: 1 }).set(bearer(token));

  it(`answers the read past ${MAX} in flight 429 too_many_reads with Retry-After: 1; other users are not affected`, async () => {
    for (let i = 0; i < MAX; i++) {
      const read = await heldRead(server.port, t.token);
      held.push(read);
      expect(read.status).toBe(200);
    }
    for (const path of ['/ingest/logs', '/logs/project', '/metrics', '/metrics/operations', '/metrics/services']) {
      const res = await l.http.get(path).query(path === '/logs/project' ? { id: t.projectId } : path === '/metrics/services' ? { projectId: t.projectId } : {}).set(bearer(t.token));
      expectDocumentedRefusal('GET', path, res);
      expectError(res, 429, 'too_many_reads');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.details).toEqual([{ maxConcurrentReads: MAX }]);
    }
    await probe(other.token).expect(200);
  });

  it('gives the slot back when a client goes away, and after each finished response', async () => {
    held.pop()!.close();
    // The server hears the close on its next turns: the slot is back within a few of them.
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await probe(t.token)).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
    // Finished responses hold nothing: many reads one after the other all pass with three still held.
    for (let i = 0; i < 10; i++) await probe(t.token).expect(200);
    // The slot freed above is free again, the fifth is not.
    const fourth = await heldRead(server.port, t.token);
    held.push(fourth);
    expect(fourth.status).toBe(200);
    expectError(await probe(t.token), 429, 'too_many_reads');
  });
});
