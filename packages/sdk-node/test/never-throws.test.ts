import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { FaultServer } from './helpers/fault-server.js';
import { testClient, type TestClient } from './helpers/clients.js';
import { waitFor } from './helpers/wait.js';

/** Whatever the service answers, whatever the handler does: the host keeps serving and nothing is thrown into it. */

const cleanup: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
afterAll(() => void process.removeListener('unhandledRejection', onUnhandled));

async function instrumentedApp(c: TestClient): Promise<string> {
  const app = express();
  app.use(c.lantern.middleware());
  app.get('/ok', (_req, res) => {
    c.lantern.service('work', () => c.lantern.log.error('logged'));
    res.send('fine');
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Serves 20 requests while the client keeps failing to deliver, then closes without rejecting. */
async function keepsServing(c: TestClient, until: () => boolean) {
  const url = await instrumentedApp(c);
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/ok`);
    expect(await res.text()).toBe('fine');
    if (i % 5 === 0) await c.lantern.flush();
  }
  await waitFor(until, 'the problem to be reported');
  await expect(c.lantern.close({ timeoutMs: 300 })).resolves.toBeDefined();
  expect(unhandled).toEqual([]);
}

describe('whatever the server answers', () => {
  it('a 200 that is not the ingest answer: reported as bad_response, counted as sent, not retried', async () => {
    const server = await FaultServer.start();
    cleanup.push(() => server.close());
    server.decide = () => ({ do: 'garbage' });
    const c = testClient(server.url);
    await keepsServing(c, () => c.errors.some((e) => e.code === 'bad_response'));
    expect(c.lantern.stats().logs.retried).toBe(0);
  });

  it('bytes that are not HTTP: a network error, retried, reported', async () => {
    const server = await FaultServer.start();
    cleanup.push(() => server.close());
    server.decide = () => ({ do: 'not-http' });
    const c = testClient(server.url);
    await keepsServing(c, () => c.errors.some((e) => e.code === 'network' && e.retrying));
  });

  it('a host that does not resolve (DNS failure)', async () => {
    // The resolver answers ENOTFOUND at once, without asking a name server (the tests send nothing off this machine).
    const lookup = dns.lookup;
    const notFound = (host: string, ...rest: unknown[]) => {
      if (!host.endsWith('.invalid')) return (lookup as (...a: unknown[]) => void)(host, ...rest);
      const callback = rest[rest.length - 1] as (e: NodeJS.ErrnoException) => void;
      process.nextTick(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })));
    };
    (dns as { lookup: unknown }).lookup = notFound;
    cleanup.push(() => void ((dns as { lookup: unknown }).lookup = lookup));
    const c = testClient('http://lantern-ingest.invalid', { requestTimeoutMs: 1_000 });
    await keepsServing(c, () => c.errors.some((e) => e.code === 'network' && e.message.includes('ENOTFOUND')));
  });

  it('an address nothing can connect to (port 0), and a port nobody listens on', async () => {
    const c = testClient('http://127.0.0.1:0');
    await keepsServing(c, () => c.errors.some((e) => e.code === 'network'));
    const closedPort = testClient('http://127.0.0.1:1');
    await keepsServing(closedPort, () => closedPort.errors.some((e) => e.code === 'network' && /ECONNREFUSED/.test(e.message)));
  });

  it('hooks that throw do not reach the host', async () => {
    const c = testClient('http://127.0.0.1:1', {
      maxQueueSize: 1,
      maxBatchSize: 1,
      onError: () => {
        throw new Error('hook bug');
      },
      onDrop: () => {
        throw new Error('hook bug');
      },
    });
    const warn = console.warn;
    const warned: string[] = [];
    console.warn = (m: string) => void warned.push(m);
    try {
      for (let i = 0; i < 5; i++) c.lantern.log.info('x');
      await c.lantern.flush();
      await new Promise((r) => setImmediate(r));
      await c.lantern.close({ timeoutMs: 100 });
    } finally {
      console.warn = warn;
    }
    expect(warned[0]).toMatch(/^\[lantern\] onError hook threw: hook bug/);
    expect(warned.length).toBeLessThanOrEqual(1);
  });
});

describe('whatever the application does', () => {
  it('a plain node:http handler that throws or rejects answers 500, is recorded, and the server keeps serving', async () => {
    const ingest = await FaultServer.start();
    cleanup.push(() => ingest.close());
    const c = testClient(ingest.url);
    const server = http.createServer(
      c.lantern.wrap(async (req, res) => {
        if (req.url === '/sync') throw new Error('sync failure');
        if (req.url === '/async') {
          await new Promise((r) => setTimeout(r, 1));
          throw new Error('async failure');
        }
        if (req.url === '/late') {
          res.writeHead(200);
          res.write('partial');
          throw new Error('after headers');
        }
        res.end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect((await fetch(`${url}/sync`)).status).toBe(500);
    expect((await fetch(`${url}/async`)).status).toBe(500);
    await expect(fetch(`${url}/late`).then((r) => r.text())).rejects.toThrow();
    expect(await (await fetch(`${url}/fine`)).text()).toBe('ok');
    await waitFor(() => c.lantern.stats().traces.queued === 4, 'four root spans');
    await c.lantern.close();
    const byUrl = Object.fromEntries(ingest.items('traces').map((s) => [s.requestURL, s]));
    expect(byUrl['/sync']).toMatchObject({ responseStatus: 500, error: 'sync failure' });
    expect(byUrl['/async']).toMatchObject({ responseStatus: 500, error: 'async failure' });
    expect(byUrl['/late']).toMatchObject({ responseStatus: 500, error: 'after headers' });
    expect(byUrl['/fine']).toMatchObject({ responseStatus: 200 });
    expect(byUrl['/fine']).not.toHaveProperty('error');
    expect(unhandled).toEqual([]);
  });

  it('a client that aborts: the root span is recorded with 499 and aborted: true', async () => {
    const ingest = await FaultServer.start();
    cleanup.push(() => ingest.close());
    const c = testClient(ingest.url);
    let reached!: () => void;
    const inHandler = new Promise<void>((r) => (reached = r));
    const server = http.createServer(
      c.lantern.wrap((_req, res) => {
        reached();
        setTimeout(() => res.end('too late'), 300);
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const req = http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`);
    req.on('error', () => undefined);
    await inHandler;
    req.destroy();
    await waitFor(() => c.lantern.stats().traces.queued === 1, 'the root span');
    await c.lantern.close();
    expect(ingest.items('traces')[0]).toMatchObject({ requestURL: '/slow', responseStatus: 499, aborted: true });
  });

  it('fields that JSON cannot hold (cycles, BigInt, functions, forbidden keys, deep nesting) are cleaned, the log is sent', async () => {
    const ingest = await FaultServer.start();
    cleanup.push(() => ingest.close());
    const c = testClient(ingest.url);
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 30; i++) deep = { deeper: deep };
    c.lantern.log.error(new Error('as an error'), { cyclic, big: 10n, fn: () => 1, 'a.b': 1, $where: 2, constructor: 3, deep, when: new Date(0), long: 'x'.repeat(70_000) });
    await c.lantern.close();
    const [log] = ingest.items('logs');
    expect(log).toMatchObject({ message: 'as an error', error: { name: 'Error', message: 'as an error' }, cyclic: { name: 'loop', self: '[Circular]' }, big: '10', a_b: 1, _where: 2, _constructor: 3, when: '1970-01-01T00:00:00.000Z' });
    expect(log).not.toHaveProperty('fn');
    expect((log!.long as string).length).toBe(65_536);
    expect(JSON.stringify(log)).toContain('[Truncated]');
    expect(c.errors).toEqual([]);
  });
});
