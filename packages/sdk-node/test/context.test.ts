import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { FaultServer } from './helpers/fault-server.js';
import { testClient, type TestClient } from './helpers/clients.js';
import { sleep } from './helpers/wait.js';

/** Per-request context: concurrency, nesting through awaits, timers and emitters, helpers outside a request. */

let ingest: FaultServer;
let c: TestClient;

beforeAll(async () => {
  ingest = await FaultServer.start();
  c = testClient(ingest.url, { maxQueueSize: 100_000, maxBatchSize: 5_000 });
});
afterAll(async () => {
  await c.lantern.close({ timeoutMs: 5_000 });
  await ingest.close();
});

type Span = Record<string, unknown> & { traceId: string; spanId: string; parentSpanId: string | null; requestMethod: string; requestURL: string };
const spans = () => ingest.items('traces') as Span[];

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function get(agent: http.Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('10,000 concurrent requests', () => {
  it('each keeps its own trace through await, setTimeout and an EventEmitter inside service()', async () => {
    const { lantern } = c;
    const { server, url } = await listen(
      lantern.wrap(async (req, res) => {
        const root = lantern.currentTrace()!;
        const seen = await lantern.service('work', async () => {
          await sleep(Math.random() * 5);
          const inTimer = await new Promise<ReturnType<typeof lantern.currentTrace>>((resolve) => setTimeout(() => resolve(lantern.currentTrace()), Math.random() * 5));
          const emitter = new EventEmitter();
          const inEmitter = new Promise<ReturnType<typeof lantern.currentTrace>>((resolve) => emitter.once('done', () => resolve(lantern.currentTrace())));
          setImmediate(() => emitter.emit('done'));
          return { inTimer, inEmitter: await inEmitter };
        });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ root, ...seen, after: lantern.currentTrace() }));
      }),
    );
    const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
    const N = 10_000;
    const WAVE = 500;
    const answers: Array<{ i: number; root: { traceId: string; spanId: string }; inTimer: { traceId: string; spanId: string }; inEmitter: { traceId: string; spanId: string }; after: { traceId: string; spanId: string } }> = [];
    try {
      for (let start = 0; start < N; start += WAVE) {
        const wave = await Promise.all(Array.from({ length: WAVE }, (_, k) => get(agent, `${url}/r/${start + k}?secret=1`)));
        wave.forEach((r, k) => {
          expect(r.status).toBe(200);
          answers.push({ i: start + k, ...JSON.parse(r.body) });
        });
      }
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
    await c.lantern.flush();
    const all = spans();
    const roots = new Map(all.filter((s) => s.requestMethod === 'controller:GET').map((s) => [s.spanId, s]));
    const children = new Map(all.filter((s) => s.requestMethod === 'service:work').map((s) => [s.parentSpanId, s]));
    expect(roots.size).toBe(N);
    expect(children.size).toBe(N);
    const traceIds = new Set<string>();
    for (const a of answers) {
      const root = roots.get(a.root.spanId)!;
      expect(root.requestURL).toBe(`/r/${a.i}`);
      expect(root.traceId).toBe(a.root.traceId);
      expect(root.parentSpanId).toBeNull();
      const child = children.get(a.root.spanId)!;
      expect(child.traceId).toBe(a.root.traceId);
      expect(child.requestURL).toBe(`/r/${a.i}`);
      expect(a.inTimer).toEqual({ traceId: a.root.traceId, spanId: child.spanId });
      expect(a.inEmitter).toEqual({ traceId: a.root.traceId, spanId: child.spanId });
      expect(a.after).toEqual(a.root);
      traceIds.add(a.root.traceId);
    }
    expect(traceIds.size).toBe(N);
    expect(c.lantern.stats().traces).toMatchObject({ dropped: 0, sent: 2 * N });
  }, 180_000);
});

describe('events of the request itself', () => {
  it('listeners on req (a body streamed slowly) and res run in the request context', async () => {
    const { lantern } = c;
    const { server, url } = await listen(
      lantern.wrap((req, res) => {
        const expected = lantern.currentTrace();
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString()));
        req.once('end', () => {
          const inEnd = lantern.currentTrace();
          res.once('finish', () => void 0);
          res.end(JSON.stringify({ expected, inEnd, body }));
        });
      }),
    );
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const req = http.request(`${url}/upload`, { method: 'POST' }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.write('part one, ');
        setTimeout(() => req.end('part two'), 30);
      });
      const { expected, inEnd, body } = JSON.parse(answer);
      expect(body).toBe('part one, part two');
      expect(expected.traceId).toMatch(/^[0-9a-f-]{36}$/);
      expect(inEnd).toEqual(expected);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('listeners on the response of an outgoing call run in the calling request\'s context, also on a kept-alive socket another request opened', async () => {
    const { lantern } = c;
    const upstream = await listen((_req, res) => res.end('up'));
    // One socket for every call: the second request's call reuses the socket the first request's call opened.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const { server, url } = await listen(
      lantern.wrap((_req, res) => {
        const expected = lantern.currentTrace();
        http.get(upstream.url, { agent }, (up) => {
          up.resume();
          up.on('end', () => res.end(JSON.stringify({ expected, inEnd: lantern.currentTrace() })));
        });
      }),
    );
    try {
      const plain = new http.Agent();
      const first = JSON.parse((await get(plain, `${url}/one`)).body);
      const second = JSON.parse((await get(plain, `${url}/two`)).body);
      expect(second.expected.traceId).not.toBe(first.expected.traceId);
      expect(first.inEnd).toEqual(first.expected);
      expect(second.inEnd).toEqual(second.expected);
    } finally {
      agent.destroy();
      for (const s of [server, upstream.server]) {
        s.closeAllConnections();
        s.close();
      }
    }
  });

  it('a listener added outside any trace is registered as it is', async () => {
    const { lantern } = c;
    const seen: Array<{ same: boolean; trace: unknown }> = [];
    const server = http.createServer((req, res) => {
      const listener = () => undefined;
      req.on('end', listener); // before the trace begins: not wrapped
      seen.push({ same: req.listeners('end').includes(listener) && req.rawListeners('end').includes(listener), trace: lantern.currentTrace() });
      lantern.wrap((_r, s) => s.end())(req, res);
      req.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await get(new http.Agent(), `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(seen).toEqual([{ same: true, trace: undefined }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('removeListener still finds a listener added through the bound emitter', async () => {
    const { lantern } = c;
    let calls = 0;
    const { server, url } = await listen(
      lantern.wrap((req, res) => {
        const listener = () => calls++;
        req.on('custom', listener);
        req.removeListener('custom', listener);
        req.emit('custom');
        res.end(String(req.listenerCount('custom')));
      }),
    );
    try {
      const agent = new http.Agent();
      const r = await get(agent, `${url}/`);
      expect(r.body).toBe('0');
      expect(calls).toBe(0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('once listeners behave as on a plain emitter: run once in the request context, removable, counted, no leftovers', async () => {
    const { lantern } = c;
    const seen: Array<string | undefined> = [];
    const { server, url } = await listen(
      lantern.wrap(async (req, res) => {
        const fn = () => seen.push(lantern.currentTrace()?.traceId);
        // once + removeListener(fn) removes it; listenerCount(event, fn) and listeners() see the function itself.
        res.once('x', fn);
        const counted = [res.listenerCount('x', fn), res.listeners('x').includes(fn) ? 1 : 0];
        res.removeListener('x', fn);
        counted.push(res.listenerCount('x'));
        // once fires once, in the request's trace; prependOnceListener too.
        req.once('y', fn);
        req.prependOnceListener('y', fn);
        setImmediate(() => {
          req.emit('y');
          req.emit('y');
        });
        await new Promise((r) => setImmediate(r));
        // events.once() leaves no listener behind (it adds and removes an 'error' listener through once/removeListener).
        const before = req.listenerCount('error');
        const waiting = EventEmitter.once(req, 'z');
        req.emit('z');
        await waiting;
        counted.push(req.listenerCount('error') - before, req.listenerCount('y'));
        res.end(JSON.stringify({ counted, trace: lantern.currentTrace()?.traceId }));
      }),
    );
    try {
      const r = await get(new http.Agent(), `${url}/`);
      const body = JSON.parse(r.body) as { counted: number[]; trace: string };
      expect(body.counted).toEqual([1, 1, 0, 0, 0]);
      expect(seen).toEqual([body.trace, body.trace]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('piping many sources into one traced response leaves no listeners behind (Readable.pipe cleans up with removeListener)', async () => {
    const { lantern } = c;
    const { Readable } = await import('node:stream');
    const { server, url } = await listen(
      lantern.wrap(async (_req, res) => {
        const base = { close: res.listenerCount('close'), finish: res.listenerCount('finish') };
        for (let i = 0; i < 20; i++) {
          const source = Readable.from([`part ${i};`]);
          source.pipe(res, { end: false });
          await new Promise((r) => source.once('end', r));
          await new Promise((r) => setImmediate(r));
        }
        const after = { close: res.listenerCount('close'), finish: res.listenerCount('finish') };
        res.end(JSON.stringify({ base, after }));
      }),
    );
    try {
      const r = await get(new http.Agent(), `${url}/`);
      const { base, after } = JSON.parse(r.body.slice(r.body.indexOf('{'))) as Record<string, { close: number; finish: number }>;
      expect(after).toEqual(base);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('Express with express.json(): the handler after the body parser is in the request trace', async () => {
    const { lantern } = c;
    const app = express();
    app.use(lantern.middleware());
    app.use(express.json());
    app.post('/orders', (req, res) => {
      res.json({ trace: lantern.currentTrace(), body: req.body });
    });
    const { server, url } = await listen(app);
    try {
      const res = await fetch(`${url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 7 }) });
      const { trace, body } = (await res.json()) as { trace: { traceId: string; spanId: string }; body: unknown };
      expect(body).toEqual({ id: 7 });
      await c.lantern.flush();
      const root = spans().find((s) => s.spanId === trace.spanId)!;
      expect(root).toMatchObject({ traceId: trace.traceId, requestMethod: 'controller:POST', requestURL: '/orders', responseStatus: 200, parentSpanId: null, route: '/orders' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('installed more than once', () => {
  it('the middleware twice, inside wrap(): one root span per request', async () => {
    const { lantern } = c;
    const app = express();
    app.use(lantern.middleware());
    app.use(lantern.middleware());
    app.get('/twice', (_req, res) => void res.json(lantern.currentTrace()));
    const { server, url } = await listen(lantern.wrap(app));
    try {
      const trace = (await (await fetch(`${url}/twice`)).json()) as { traceId: string; spanId: string };
      await c.lantern.flush();
      const roots = spans().filter((s) => s.traceId === trace.traceId);
      expect(roots).toHaveLength(1);
      expect(roots[0]).toMatchObject({ spanId: trace.spanId, requestURL: '/twice', responseStatus: 200 });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('span helpers', () => {
  it('outside a request they start a trace of their own; children nest; sync and async values pass through', async () => {
    const { lantern } = c;
    expect(lantern.currentTrace()).toBeUndefined();
    let ids: { outer?: string; inner?: string; trace?: string } = {};
    const value = await lantern.service('nightlyJob', async (outer) => {
      ids = { outer: outer.spanId, trace: outer.traceId };
      const sum = lantern.controller('step', () => lantern.service('add', (inner) => ((ids.inner = inner.spanId), 1 + 2)));
      await sleep(2);
      return sum * 2;
    });
    expect(value).toBe(6);
    await c.lantern.flush();
    const byId = new Map(spans().map((s) => [s.spanId, s]));
    const outer = byId.get(ids.outer!)!;
    const inner = byId.get(ids.inner!)!;
    const step = byId.get(inner.parentSpanId!)!;
    expect(outer).toMatchObject({ requestMethod: 'service:nightlyJob', parentSpanId: null, traceId: ids.trace, responseStatus: 200 });
    expect(step).toMatchObject({ requestMethod: 'controller:step', parentSpanId: ids.outer, traceId: ids.trace });
    expect(inner).toMatchObject({ requestMethod: 'service:add', traceId: ids.trace });
    expect(Number.isInteger(outer.durationMs)).toBe(true);
    expect(outer.durationMs).toBeGreaterThanOrEqual(1);
    expect(outer.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Two traces started outside requests do not share an id.
    const again = lantern.service('other', (s) => s.traceId);
    expect(again).not.toBe(ids.trace);
  });

  it('errors are recorded (500 and the message, no stack) and re-thrown, sync and async', async () => {
    const { lantern } = c;
    let syncId = '';
    let asyncId = '';
    expect(() =>
      lantern.service('syncFails', (s) => {
        syncId = s.spanId;
        throw new Error('sync boom');
      }),
    ).toThrow('sync boom');
    await expect(
      lantern.call('payments', async (_headers, s) => {
        asyncId = s.spanId;
        await sleep(1);
        throw new TypeError('async boom');
      }),
    ).rejects.toThrow('async boom');
    await c.lantern.flush();
    const byId = new Map(spans().map((s) => [s.spanId, s]));
    expect(byId.get(syncId)).toMatchObject({ responseStatus: 500, error: 'sync boom' });
    expect(byId.get(asyncId)).toMatchObject({ responseStatus: 500, error: 'async boom', requestMethod: 'external:payments', requestURL: 'payments' });
    expect(byId.get(asyncId)).not.toHaveProperty('stack');
  });

  it('call() hands over traceparent and tracestate, records the URL without its query and the status it got', async () => {
    const { lantern } = c;
    let seen: { traceparent: string; tracestate: string } | undefined;
    let spanId = '';
    let traceId = '';
    const result = await lantern.call(
      'inventory',
      async (headers, span) => {
        seen = headers;
        spanId = span.spanId;
        traceId = span.traceId;
        return { status: 404, items: [] };
      },
      { url: 'https://user:pw@inventory.internal:8443/items/7?token=secret#x' },
    );
    expect(result).toEqual({ status: 404, items: [] });
    const hex = spanId.replace(/-/g, '');
    expect(seen).toEqual({ traceparent: `00-${traceId.replace(/-/g, '')}-${hex.slice(0, 16)}-01`, tracestate: `lantern=${hex}` });
    await c.lantern.flush();
    const span = spans().find((s) => s.spanId === spanId)!;
    expect(span).toMatchObject({ requestMethod: 'external:inventory', requestURL: 'https://inventory.internal:8443/items/7', responseStatus: 404 });
  });

  it('setStatus() overrides the recorded status', async () => {
    const { lantern } = c;
    const id = lantern.service('teapot', (s) => (s.setStatus(418), s.spanId));
    await c.lantern.flush();
    expect(spans().find((s) => s.spanId === id)).toMatchObject({ responseStatus: 418 });
  });

  it('a listener added inside two clients\' traces runs in both', async () => {
    const other = testClient(ingest.url, { enabled: false });
    const server = http.createServer(
      c.lantern.wrap((req, res) => {
        other.lantern.service('inner', () => {
          const expected = { outer: c.lantern.currentTrace(), inner: other.lantern.currentTrace() };
          req.on('end', () => res.end(JSON.stringify({ expected, inEnd: { outer: c.lantern.currentTrace(), inner: other.lantern.currentTrace() } })));
        });
        req.resume();
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { expected, inEnd } = JSON.parse((await get(new http.Agent(), `http://127.0.0.1:${(server.address() as AddressInfo).port}/`)).body);
      expect(expected.outer.traceId).not.toBe(expected.inner.traceId);
      expect(inEnd).toEqual(expected);
    } finally {
      server.closeAllConnections();
      server.close();
      await other.lantern.close();
    }
  });

  it('two clients in one process keep their traces apart', async () => {
    const other = testClient(ingest.url, { enabled: false });
    const inner = c.lantern.service('a', () => other.lantern.currentTrace());
    expect(inner).toBeUndefined();
    await other.lantern.close();
  });
});
