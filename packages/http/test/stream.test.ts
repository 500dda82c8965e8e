import { once } from 'node:events';
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { errors } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import { Router } from 'express';
import request from 'supertest';
import { createServiceApp, handle, streamJsonArray, take } from '../src/index.js';

/** A service app with one route streaming `items()` as a JSON array. */
function serviceApp(items: () => AsyncIterable<unknown>) {
  const router = Router();
  router.get('/items', handle((_req, res) => streamJsonArray(res, items(), { 'X-Extra': 'yes' })));
  return createServiceApp({ logger: createLogger({ service: 'http-test', silent: true }), routers: [router] });
}
const appStreaming = (items: () => AsyncIterable<unknown>) => request(serviceApp(items));

/** Runs `use` with `app` listening on a free port, and stops listening after. */
async function onPort<T>(app: ReturnType<typeof serviceApp>, use: (port: number) => Promise<T>): Promise<T> {
  const server = app.listen(0);
  await once(server, 'listening');
  try {
    return await use((server.address() as AddressInfo).port);
  } finally {
    server.close();
  }
}

/** A plain GET that reports whether the response body ended normally or the connection was cut. */
function rawGet(app: ReturnType<typeof serviceApp>, path: string): Promise<{ status: number; text: string; complete: boolean }> {
  return onPort(app, (port) =>
    new Promise((resolve) => {
      get({ port, path, host: '127.0.0.1' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text, complete: res.complete }));
        res.on('error', () => resolve({ status: res.statusCode!, text, complete: false }));
        res.on('aborted', () => resolve({ status: res.statusCode!, text, complete: false }));
      }).on('error', () => resolve({ status: 0, text: '', complete: false }));
    }));
}

async function* from<T>(values: T[], failAt = -1, failure: Error = new Error('boom')): AsyncGenerator<T> {
  for (let i = 0; i < values.length; i++) {
    if (i === failAt) throw failure;
    yield values[i]!;
  }
  if (failAt === values.length) throw failure;
}

describe('streamJsonArray', () => {
  it('streams an empty set as []', async () => {
    const res = await appStreaming(() => from([])).get('/items').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([]);
  });

  it('streams many items (more than one write chunk) as one valid JSON array, with the extra headers', async () => {
    const values = Array.from({ length: 5000 }, (_, i) => ({ i, text: `item ${i} ${'x'.repeat(20)}` }));
    const res = await appStreaming(() => from(values)).get('/items').expect(200);
    expect(res.headers['x-extra']).toBe('yes');
    expect(res.text.length).toBeGreaterThan(16_384 * 4);
    expect(JSON.parse(res.text)).toEqual(values);
  });

  it('an AppError before the first item gets the contract error body and status', async () => {
    const res = await appStreaming(() => from([1, 2], 0, errors.unavailable('store'))).get('/items');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['x-extra']).toBeUndefined();
  });

  it('any other error before the first item is a 500 internal body, never a stack', async () => {
    const res = await appStreaming(() => from([1], 0, new Error('SQLITE_CORRUPT at /srv/db.ts:42'))).get('/items');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'internal', message: expect.any(String) } });
    expect(res.text).not.toMatch(/SQLITE_CORRUPT|db\.ts|\n\s+at /);
  });

  it('an error midway ends the connection: the client never gets a short but valid array', async () => {
    const values = Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'p'.repeat(40) }));
    const { status, text, complete } = await rawGet(serviceApp(() => from(values, 2500)), '/items');
    expect(status).toBe(200);
    expect(text.length).toBeGreaterThan(0);
    expect(complete).toBe(false);
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe('streamJsonArray with a client that compresses, pauses or leaves', () => {
  it('a read_timeout midway ends the array with the error body as its last element: the JSON stays valid', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => ({ i, pad: 'x'.repeat(20) }));
    const res = await rawGet(serviceApp(() => from(many, 2500, errors.readTimeout(50))), '/items');
    expect(res.status).toBe(200);
    expect(res.complete).toBe(true);
    const items = JSON.parse(res.text) as unknown[];
    expect(items).toHaveLength(2501);
    expect(items.slice(0, 2500)).toEqual(many.slice(0, 2500));
    expect(items[2500]).toEqual({ error: { code: 'read_timeout', message: expect.stringContaining('50 ms'), details: [{ budgetMs: 50 }] } });
  });

  it('a read_timeout before the first item is the normal 503 error body', async () => {
    const res = await appStreaming(() => from([1, 2], 0, errors.readTimeout(50))).get('/items').expect(503);
    expect(res.body.error.code).toBe('read_timeout');
  });

  it('a long gzip stream, read slowly, adds no listeners per chunk and arrives whole', async () => {
    const values = Array.from({ length: 20_000 }, (_, i) => ({ i, pad: `${i}`.repeat(30) }));
    let waits = 0;
    const counts: Record<string, number> = {};
    const router = Router();
    router.get('/items', handle(async (_req, res) => {
      const write = res.write.bind(res) as (chunk: string) => boolean;
      // Counts the writes that asked to wait, so the test knows back-pressure was exercised.
      res.write = ((chunk: string) => {
        const ok = write(chunk);
        if (!ok) waits++;
        return ok;
      }) as typeof res.write;
      await streamJsonArray(res, from(values));
      for (const name of ['close', 'error', 'drain', 'finish']) counts[name] = res.listenerCount(name);
    }));
    const app = createServiceApp({ logger: createLogger({ service: 'http-test', silent: true }), routers: [router] });
    await onPort(app, async (port) => {
      const body = await new Promise<Buffer>((resolve, reject) => {
        get({ port, path: '/items', host: '127.0.0.1', headers: { 'accept-encoding': 'gzip' } }, (res) => {
          expect(res.headers['content-encoding']).toBe('gzip');
          const chunks: Buffer[] = [];
          // A slow reader: pause after every chunk, so the server's writes fill up and wait.
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            res.pause();
            setTimeout(() => res.resume(), 1);
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        }).on('error', reject);
      });
      expect(JSON.parse(gunzipSync(body).toString('utf8'))).toEqual(values);
      expect(waits).toBeGreaterThan(10);
      // What Express and Node add per response, not one more per wait.
      for (const name of ['close', 'error', 'drain', 'finish']) expect(counts[name]).toBeLessThan(5);
    });
  });

  it('a client that leaves while the next item is read ends the stream and closes the source', async () => {
    let closed = false;
    let produced = 0;
    async function* slow() {
      try {
        for (let i = 0; i < 1000; i++) {
          produced++;
          yield { i, pad: 'x'.repeat(20_000) };
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        closed = true;
      }
    }
    await onPort(serviceApp(slow), async (port) => {
      await new Promise<void>((resolve) => {
        const req = get({ port, path: '/items', host: '127.0.0.1' }, (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', () => undefined);
      });
      const deadline = Date.now() + 3000;
      while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(closed).toBe(true);
      expect(produced).toBeLessThan(1000);
    });
  });
});

describe('take', () => {
  it('yields at most `limit` items and stops reading the source', async () => {
    let read = 0;
    async function* counting() {
      for (let i = 0; i < 100; i++) {
        read++;
        yield i;
      }
    }
    const out: number[] = [];
    for await (const v of take(counting(), 3)) out.push(v);
    expect(out).toEqual([0, 1, 2]);
    expect(read).toBeLessThanOrEqual(4);
  });
});
