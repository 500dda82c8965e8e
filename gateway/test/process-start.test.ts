import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { childEnv, jsonLines, killLeftovers, parseInit, runCli, sh, startServer, tempDataDir, type Printed, type Server } from './process-helpers.js';

const EMAIL = 'first.user@example.com';
const PASSWORD = 'a long password 7f3k';

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe('pnpm start and pnpm lantern init, as processes on a fresh DATA_DIR', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  let server: Server;
  let printed: Printed;
  let initOutput = '';
  const serverOutputs: string[] = [];
  const traceId = randomUUID();

  beforeAll(async () => {
    data = await tempDataDir();
  });
  afterAll(async () => {
    killLeftovers();
    await data.remove();
  });

  it('on an empty store, the first lines give the address and say to run `pnpm lantern init`', async () => {
    server = await startServer(childEnv({ DATA_DIR: data.dir }));
    const [first, second] = server.stdout().split('\n');
    expect(first).toBe(`Lantern is running on http://localhost:${server.port} (embedded mode, data in ${data.dir})`);
    expect(second).toMatch(/store is empty/i);
    expect(second).toContain('pnpm lantern init');
  });

  it('answers GET /healthz and GET /readyz with 200, readiness naming its checks', async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { store: 'ok', bus: 'ok', blobs: 'ok' } });
  });

  it('`lantern init` on the same DATA_DIR prints the API key, the JWT and curl commands for ingest and read', async () => {
    const run = await runCli(['init', '--email', EMAIL, '--password', PASSWORD], childEnv({ DATA_DIR: data.dir, PORT: String(server.port) }));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    initOutput = run.stdout;
    printed = parseInit(run.stdout);
    expect(printed.apiKey).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect(printed.jwt).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(run.stdout).toContain(EMAIL);
    // The password was chosen by the caller: it is not echoed back.
    expect(run.stdout).not.toContain(PASSWORD);
    const base = `http://localhost:${server.port}`;
    expect(printed.curls).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`curl -s -X POST ${base}/ingest/traces -H 'Content-Type: application/json' -H 'x-api-key: ${printed.apiKey}'`),
        expect.stringContaining(`curl -s -X POST ${base}/ingest/logs`),
        `curl -s '${base}/logs/project?id=${printed.projectId}' -H 'Authorization: Bearer ${printed.jwt}'`,
        `curl -s ${base}/ingest/logs -H 'Authorization: Bearer ${printed.jwt}'`,
      ]),
    );
  });

  it('the printed API key ingests a span into the running server and the printed JWT reads it back', async () => {
    const now = new Date().toISOString();
    const batch = { timestamp: now, traces: [{ traceId, spanId: randomUUID(), parentSpanId: null, timestamp: now, requestMethod: 'controller:GET', requestURL: '/checkout', responseStatus: 200, durationMs: 7 }] };
    const ingest = await fetch(`${server.url}/ingest/traces`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'x-api-key': printed.apiKey }, body: JSON.stringify(batch) });
    expect(ingest.status).toBe(200);
    expect(await ingest.json()).toEqual({ accepted: 1, rejected: [] });

    const read = await fetch(`${server.url}/logs/project?id=${printed.projectId}&traceId=${traceId}`, { headers: { Authorization: `Bearer ${printed.jwt}` } });
    expect(read.status).toBe(200);
    const traces = (await read.json()) as { traceId: string; telemetry: { requestURL: string }[] }[];
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({ traceId, projectId: printed.projectId, telemetry: [{ requestURL: '/checkout' }] });
  });

  (hasCurl ? it : it.skip)('the printed curl commands work as pasted into a shell', async () => {
    const results = [];
    for (const command of printed.curls) {
      const run = await sh(command);
      expect({ command, code: run.code, stderr: run.stderr }).toEqual({ command, code: 0, stderr: '' });
      results.push(JSON.parse(run.stdout) as unknown);
    }
    const [traces, logs, readTraces, readLogs, metrics] = results as [unknown, unknown, { telemetry: { requestURL: string }[] }[], { message: string }[], { requests?: unknown }];
    expect(traces).toEqual({ accepted: 1, rejected: [] });
    expect(logs).toEqual({ accepted: 1, rejected: [] });
    expect(readTraces.flatMap((t) => t.telemetry.map((s) => s.requestURL)).sort()).toEqual(['/checkout', '/hello']);
    expect(readLogs.map((l) => l.message)).toEqual(['payment failed']);
    expect(typeof metrics).toBe('object');
    expect(printed.curls).toHaveLength(5);
  });

  it('`lantern init` a second time with the same email exits non-zero with a message naming the email', async () => {
    const run = await runCli(['init', '--email', EMAIL.toUpperCase(), '--password', 'another long password'], childEnv({ DATA_DIR: data.dir }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toBe(`${EMAIL} already has an account: pass --email with another address.\n`);
    expect(run.stdout).not.toContain('lk_');
  });

  it('stops on SIGTERM with exit code 0, and a restart no longer says the store is empty and still has the span', async () => {
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    serverOutputs.push(server.stdout());

    server = await startServer(childEnv({ DATA_DIR: data.dir }));
    const start = server.stdout().split('\n').slice(0, 2).join('\n');
    expect(start).not.toMatch(/empty/i);
    expect(start).toContain(`API reference: http://localhost:${server.port}/openapi.json`);

    const read = await fetch(`${server.url}/logs/project?id=${printed.projectId}&traceId=${traceId}`, { headers: { Authorization: `Bearer ${printed.jwt}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual([expect.objectContaining({ traceId })]);
    const login = await fetch(`${server.url}/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    expect(login.status).toBe(200);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    serverOutputs.push(server.stdout());
  });

  it('the servers logged one JSON line per request and never the API key, the JWT or the password', () => {
    const text = serverOutputs.join('\n');
    expect(initOutput).toContain(printed.apiKey);
    for (const secret of [printed.apiKey, printed.jwt, PASSWORD, printed.apiKey.slice(3, 20)]) expect(text).not.toContain(secret);
    const requests = serverOutputs.flatMap(jsonLines).filter((line) => line['message'] === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(6);
    expect(requests).toContainEqual(expect.objectContaining({ method: 'POST', route: '/ingest/traces', status: 200, requestId: expect.any(String), durationMs: expect.any(Number) }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', route: '/logs/project', status: 200 }));
    expect(requests).toContainEqual(expect.objectContaining({ method: 'POST', route: '/auth/login', status: 200 }));
    expect(text).not.toContain('traceId=');
  });
});
