import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { checkingIntervalMs } from '@lantern/gateway';
import { expectServerError, healthz, listenWithLimits, rawConnection, settledWithin, sleep, untilReceived, type RawConnection } from './abuse-helpers.js';
import { startLantern, type Lantern } from './harness.js';

/**
 * Abusive clients, part 1 (issue 13): the server's own timeouts and connection cap, on real sockets against the
 * server every Lantern process runs (createHttpServer), with small bounds so each case takes a second or two.
 * Full-size figures: bench/abuse/run.mjs and docs/benchmarks.md, "Abusive clients".
 */
describe('abusive connections: headers timeout, idle keep-alive, connection cap', () => {
  let l: Lantern;
  let listening: Awaited<ReturnType<typeof listenWithLimits>> | undefined;
  const opened: RawConnection[] = [];
  beforeAll(async () => {
    l = await startLantern();
  });
  afterEach(async () => {
    for (const c of opened.splice(0)) c.socket.destroy();
    await listening?.close();
    listening = undefined;
  });
  afterAll(() => l.stop());

  it('checks the timeouts often enough for the bounds to hold (a tenth of the shorter, 50 ms..1 s)', () => {
    expect(checkingIntervalMs({ headersTimeoutMs: 15_000, requestTimeoutMs: 300_000 })).toBe(1000);
    expect(checkingIntervalMs({ headersTimeoutMs: 600, requestTimeoutMs: 2000 })).toBe(60);
    expect(checkingIntervalMs({ headersTimeoutMs: 100, requestTimeoutMs: 100 })).toBe(50);
  });

  it('answers 408 request_timeout and closes connections whose headers trickle in past headersTimeout, while /healthz answers at once', async () => {
    // requestTimeout far above: only headersTimeout can close these connections within the bound checked below.
    listening = await listenWithLimits(l, { headersTimeoutMs: 600, requestTimeoutMs: 60_000 });
    const slow: RawConnection[] = [];
    for (let i = 0; i < 20; i++) slow.push(await rawConnection(listening.port));
    opened.push(...slow);
    const started = Date.now();
    for (const c of slow) c.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\n');
    // One more header line every 100 ms, never the blank line that ends them.
    const drip = setInterval(() => {
      for (const c of slow) if (!c.isClosed()) c.socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 100);
    try {
      const probe = await healthz(listening.port);
      expect(probe.status).toBe(200);
      // Still open before the bound...
      await sleep(300);
      expect(slow.filter((c) => c.isClosed())).toHaveLength(0);
      // ...and every one answered 408 with the error body and closed after it (generous: a loaded CI machine).
      await Promise.all(slow.map((c) => c.closed));
      expect(Date.now() - started).toBeLessThan(10_000);
      for (const c of slow) expectServerError(c.received(), 408, 'request_timeout');
      expect((await healthz(listening.port)).status).toBe(200);
    } finally {
      clearInterval(drip);
    }
  });

  it('answers headers over 16 KiB 431 headers_too_large, and bytes that are not HTTP 400 bad_request, each with the error body, then closes', async () => {
    listening = await listenWithLimits(l, {});
    const big = await rawConnection(listening.port);
    const junk = await rawConnection(listening.port);
    opened.push(big, junk);
    big.socket.write(`GET /healthz HTTP/1.1\r\nHost: lantern\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
    junk.socket.write('NOT HTTP AT ALL\r\n\r\n');
    await Promise.all([settledWithin(big.closed, 5000), settledWithin(junk.closed, 5000)]);
    expect(big.isClosed() && junk.isClosed()).toBe(true);
    expectServerError(big.received(), 431, 'headers_too_large');
    expectServerError(junk.received(), 400, 'bad_request');
  });

  it('closes an idle keep-alive connection after keepAliveTimeout, not before', async () => {
    listening = await listenWithLimits(l, { keepAliveTimeoutMs: 1000 });
    const c = await rawConnection(listening.port);
    opened.push(c);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\nConnection: keep-alive\r\n\r\n');
    await untilReceived(c.received, '{"status":"ok"}');
    expect(c.received()).toMatch(/Keep-Alive: timeout=1\r\n/);
    expect(await settledWithin(c.closed, 300)).toBe('pending');
    // Closed by the server (the client never ends it), within a generous bound.
    expect(await settledWithin(c.closed, 10_000)).toBeUndefined();
  });

  it('refuses connections past maxConnections while the open ones keep working, and accepts again once one closes', async () => {
    listening = await listenWithLimits(l, { maxConnections: 3 });
    const held: RawConnection[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await rawConnection(listening.port);
      held.push(c);
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\n\r\n');
      await untilReceived(c.received, '{"status":"ok"}');
    }
    opened.push(...held);
    // The fourth is accepted by the kernel, then closed by the server without an answer.
    const extra = await rawConnection(listening.port);
    opened.push(extra);
    extra.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\n\r\n');
    expect(await settledWithin(extra.closed, 5000)).toBeUndefined();
    expect(extra.received()).toBe('');
    // Those already open still get answers.
    held[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\n\r\n');
    await untilReceived(held[0]!.received, '{"status":"ok"}', 5000, 2);
    expect(held[0]!.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    // One closes: a new connection is served again.
    held[1]!.socket.destroy();
    await held[1]!.closed;
    await sleep(50);
    expect((await healthz(listening.port)).status).toBe(200);
  });
});
