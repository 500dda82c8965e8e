import { afterEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { FaultServer } from './helpers/fault-server.js';
import { testClient, type TestClient } from './helpers/clients.js';
import { waitFor } from './helpers/wait.js';

/** How the root span learns that its response finished or closed: the wrapped ServerResponse#emit (response-watch.ts). */

const cleanup: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function client(): Promise<{ c: TestClient; ingest: FaultServer }> {
  const ingest = await FaultServer.start();
  const c = testClient(ingest.url);
  cleanup.push(() => ingest.close());
  cleanup.push(() => c.lantern.close());
  return { c, ingest };
}

describe('the end of a response', () => {
  it('two clients tracing the same response each record their root span, complete or aborted', async () => {
    const a = await client();
    const b = await client();
    let reached!: () => void;
    const inSlow = new Promise<void>((r) => (reached = r));
    const app = express();
    app.use(b.c.lantern.middleware());
    app.get('/fine', (_req, res) => void res.status(201).json({ ok: true }));
    app.get('/slow', () => reached());
    const url = await listen(a.c.lantern.wrap(app));

    expect((await fetch(`${url}/fine`)).status).toBe(201);
    const aborted = http.get(`${url}/slow`);
    aborted.on('error', () => undefined);
    await inSlow;
    aborted.destroy();
    for (const { c } of [a, b]) await waitFor(() => c.lantern.stats().traces.queued === 2, 'both root spans');
    await Promise.all([a.c.lantern.close(), b.c.lantern.close()]);
    for (const { ingest } of [a, b]) {
      const byUrl = Object.fromEntries(ingest.items('traces').map((s) => [s.requestURL, s]));
      expect(byUrl['/fine']).toMatchObject({ requestMethod: 'controller:GET', responseStatus: 201, route: '/fine' });
      expect(byUrl['/fine']).not.toHaveProperty('aborted');
      expect(byUrl['/slow']).toMatchObject({ responseStatus: 499, aborted: true });
    }
    const traceOf = (ingest: FaultServer) => ingest.items('traces').find((s) => s.requestURL === '/fine')!.traceId;
    expect(traceOf(a.ingest)).not.toBe(traceOf(b.ingest)); // each client its own trace
  });

  it("the application's own listeners still run, with the response as this, the arguments as given and emit's answer unchanged", async () => {
    const { c, ingest } = await client();
    const events: string[] = [];
    let answers: boolean[] = [];
    const url = await listen(
      c.lantern.wrap((_req, res) => {
        res.on('finish', function (this: unknown, ...args: unknown[]) {
          events.push(`finish:${this === res}:${args.length}`);
        });
        res.on('close', function (this: unknown) {
          events.push(`close:${this === res}`);
        });
        const counts: number[] = [];
        res.on('custom', (...args: unknown[]) => counts.push(args.length));
        for (const args of [[], [undefined], [1, 2], [1, 2, 3, 4, 5]]) res.emit('custom', ...args);
        expect(counts).toEqual([0, 1, 2, 5]);
        // emit's answer is the original's (false: nobody listens; true: someone does), and the library itself adds no
        // listener to the response (only the application's 'close' listener is there).
        answers = [res.emit('custom-event-nobody-listens-to'), res.emit('custom'), res.listenerCount('close') === 1];
        res.end('ok');
      }),
    );
    expect(await (await fetch(`${url}/x`)).text()).toBe('ok');
    await waitFor(() => events.length === 2, 'both events');
    expect(events).toEqual(['finish:true:0', 'close:true']);
    expect(answers).toEqual([false, true, true]);
    await c.lantern.close();
    expect(ingest.items('traces')).toEqual([expect.objectContaining({ requestURL: '/x', responseStatus: 200 })]);
  });

  it('a response that is not traced is left alone, in a process where responses are watched', async () => {
    const { c } = await client();
    await fetch(await listen(c.lantern.wrap((_req, res) => void res.end())));
    let closed = 0;
    const url = await listen((_req, res) => {
      res.on('close', () => closed++);
      res.end('plain');
    });
    expect(await (await fetch(url)).text()).toBe('plain');
    await waitFor(() => closed === 1, 'the close listener');
    await c.lantern.flush();
    expect(c.lantern.stats().traces.sent).toBe(1); // the traced request only
  });

  it('an HTTP/2 response (compatibility API, not a node:http ServerResponse) is traced too, complete or aborted', async () => {
    const { c, ingest } = await client();
    let reached!: () => void;
    const inSlow = new Promise<void>((r) => (reached = r));
    const server = http2.createServer(
      c.lantern.wrap((req, res) => {
        if (req.url === '/slow') return reached();
        res.statusCode = 202;
        res.end('h2');
      }) as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    cleanup.push(() => session.destroy());
    const done = session.request({ ':path': '/done' });
    done.resume();
    await new Promise((resolve) => done.on('end', resolve));
    const slow = session.request({ ':path': '/slow' });
    slow.on('error', () => undefined);
    await inSlow;
    slow.close(http2.constants.NGHTTP2_CANCEL);
    await waitFor(() => c.lantern.stats().traces.queued === 2, 'both root spans');
    await c.lantern.close();
    const byUrl = Object.fromEntries(ingest.items('traces').map((s) => [s.requestURL, s]));
    expect(byUrl['/done']).toMatchObject({ responseStatus: 202 });
    expect(byUrl['/done']).not.toHaveProperty('aborted');
    expect(byUrl['/slow']).toMatchObject({ responseStatus: 499, aborted: true });
  });
});
