import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  childEnv, killLeftovers, oneSpan, openRaw, parseInit, parseResponse, runCli, startServer, tempDataDir, tryConnect, waitFor, within,
  type Printed, type Server,
} from './process-helpers.js';

/**
 * SIGTERM while a request is in flight: the server stops accepting, the request still completes, idle
 * keep-alive connections are closed rather than waited for, the bus drains, the store closes, exit code 0.
 * The in-flight request is a POST /ingest/traces whose body is held back: `Expect: 100-continue` makes the
 * server say when it has the headers, so the signal arrives with the request provably in flight.
 */
describe('graceful shutdown of the server process', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let printed: Printed;
  let server: Server;

  beforeAll(async () => {
    data = await tempDataDir();
    const init = await runCli(['init', '--email', 'ops@example.com', '--password', 'a long password 91x'], childEnv({ DATA_DIR: data.dir }));
    expect(init.code).toBe(0);
    printed = parseInit(init.stdout);
    // Far longer than the test may take: a shutdown that waits for the timeout fails the test.
    server = await startServer(childEnv({ DATA_DIR: data.dir, SHUTDOWN_TIMEOUT_MS: '600000' }));
  });
  afterAll(async () => {
    killLeftovers();
    await data.remove();
  });

  it('finishes the in-flight request, refuses new connections, closes idle ones, exits 0 with the data on disk', async () => {
    const traceId = randomUUID();
    const body = oneSpan(traceId, randomUUID());
    const half = Math.floor(body.length / 2);

    // An idle keep-alive connection: one finished request, the socket left open.
    const idle = await openRaw(server.port);
    idle.socket.write('GET /healthz HTTP/1.1\r\nHost: lantern\r\nConnection: keep-alive\r\n\r\n');
    const health = await waitFor('the /healthz response', () => parseResponse(idle.received()));
    expect(health.status).toBe(200);
    expect(idle.closed()).toBe(false);

    // The in-flight request: headers sent and taken, half the body sent.
    const slow = await openRaw(server.port);
    slow.socket.write(
      `POST /ingest/traces HTTP/1.1\r\nHost: lantern\r\nContent-Type: application/json\r\nx-api-key: ${printed.apiKey}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    await waitFor('100 Continue', () => (slow.received().startsWith('HTTP/1.1 100 Continue\r\n') ? true : undefined));
    slow.socket.write(body.slice(0, half));

    server.child.kill('SIGTERM');
    const shutdown = await waitFor('the shutdown log line', () => server.logLines().find((l) => l['message'] === 'shutting down'));
    expect(shutdown).toMatchObject({ signal: 'SIGTERM', inFlight: 1 });

    // Stops accepting: new connections are refused while the request is still in flight.
    expect(await waitFor('new connections to be refused', async () => ((await tryConnect(server.port)) === 'ECONNREFUSED' ? true : undefined))).toBe(true);
    // The idle keep-alive connection is closed, not waited for.
    await waitFor('the idle connection to be closed', () => (idle.closed() ? true : undefined));
    expect(slow.closed()).toBe(false);
    expect(server.child.exitCode).toBeNull();

    slow.socket.write(body.slice(half));
    const response = await waitFor('the in-flight response', () => parseResponse(slow.received()));
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ accepted: 1, rejected: [] });
    expect(response.headers['connection']).toBe('close');
    await waitFor('the in-flight connection to be closed', () => (slow.closed() ? true : undefined));

    expect(await within('the exit after SIGTERM', server.exited)).toEqual({ code: 0, signal: null });
    const messages = server.logLines().map((l) => l['message']);
    expect(messages).toContain('stopped');
    expect(messages).not.toContain('shutdown timed out; closing open connections');
    expect(server.logLines()).toContainEqual(expect.objectContaining({ message: 'request', method: 'POST', route: '/ingest/traces', status: 200 }));

    // Reopen the same DATA_DIR: the span acknowledged during the shutdown is there.
    server = await startServer(childEnv({ DATA_DIR: data.dir }));
    const read = await fetch(`${server.url}/logs/project?id=${printed.projectId}&traceId=${traceId}`, { headers: { Authorization: `Bearer ${printed.jwt}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual([expect.objectContaining({ traceId, projectId: printed.projectId })]);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  it('a request that never completes is cut after SHUTDOWN_TIMEOUT_MS, and the process still stops cleanly', async () => {
    server = await startServer(childEnv({ DATA_DIR: data.dir, SHUTDOWN_TIMEOUT_MS: '300' }));
    const stuck = await openRaw(server.port);
    stuck.socket.write(
      `POST /ingest/logs HTTP/1.1\r\nHost: lantern\r\nContent-Type: application/json\r\nx-api-key: ${printed.apiKey}\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    );
    await waitFor('100 Continue', () => (stuck.received().startsWith('HTTP/1.1 100 Continue\r\n') ? true : undefined));
    server.child.kill('SIGTERM');
    expect(await within('the exit after the shutdown timeout', server.exited)).toEqual({ code: 0, signal: null });
    expect(stuck.closed()).toBe(true);
    const messages = server.logLines().map((l) => l['message']);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'shutdown timed out; closing open connections', 'stopped']));
    expect(server.logLines()).toContainEqual(expect.objectContaining({ message: 'request', route: '/ingest/logs', aborted: true }));
  });

  it('SIGINT (Ctrl-C) stops an idle server the same way', async () => {
    server = await startServer(childEnv({ DATA_DIR: data.dir }));
    server.child.kill('SIGINT');
    expect(await within('the exit after SIGINT', server.exited)).toEqual({ code: 0, signal: null });
    expect(server.logLines().map((l) => l['message'])).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
  });

  /** A server holding one request that never completes, so a shutdown lasts until its timeout. */
  async function holdingARequest(shutdownTimeoutMs: number) {
    server = await startServer(childEnv({ DATA_DIR: data.dir, SHUTDOWN_TIMEOUT_MS: String(shutdownTimeoutMs) }));
    const stuck = await openRaw(server.port);
    stuck.socket.write(
      `POST /ingest/logs HTTP/1.1\r\nHost: lantern\r\nContent-Type: application/json\r\nx-api-key: ${printed.apiKey}\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    );
    await waitFor('100 Continue', () => (stuck.received().startsWith('HTTP/1.1 100 Continue\r\n') ? true : undefined));
    return server;
  }

  it('a Ctrl-C delivered twice at once (terminal and pnpm) is one clean shutdown, not an abrupt exit', async () => {
    const s = await holdingARequest(700);
    s.child.kill('SIGINT');
    s.child.kill('SIGINT');
    expect(await within('the exit after the shutdown timeout', s.exited)).toEqual({ code: 0, signal: null });
    const messages = s.logLines().map((l) => l['message']);
    expect(messages).toEqual(expect.arrayContaining(['shutting down', 'stopped']));
    expect(messages).not.toContain('second signal: stopping now');
  });

  it('a second signal more than a second after the first stops at once with 128 + its number (143 for SIGTERM)', async () => {
    const s = await holdingARequest(60_000);
    s.child.kill('SIGTERM');
    await waitFor('the shutdown to begin', () => (s.logLines().some((l) => l['message'] === 'shutting down') ? true : undefined));
    await new Promise((r) => setTimeout(r, 1200));
    s.child.kill('SIGTERM');
    expect(await within('the exit after the second signal', s.exited)).toEqual({ code: 143, signal: null });
    expect(s.logLines().map((l) => l['message'])).toContain('second signal: stopping now');
  });
});
