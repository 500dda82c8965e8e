import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FaultServer } from './helpers/fault-server.js';
import { testClient } from './helpers/clients.js';
import { waitFor } from './helpers/wait.js';

/**
 * Loss at exit, in real child processes running the built package: an application that simply ends gets its
 * buffers drained (beforeExit); one that calls process.exit() gets them spooled, or the loss reported.
 */

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(packageDir, '../..');
let work: string;
let server: FaultServer;

beforeAll(async () => {
  // The children import dist/: build it (incremental, quick when up to date).
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', packageDir], { stdio: 'pipe' });
  work = await mkdtemp(join(tmpdir(), 'lantern-exit-'));
  server = await FaultServer.start();
}, 120_000);
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

/** Runs an ES module as a child process with `createLantern` imported; resolves with its exit code and output. */
async function runChild(body: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const file = join(work, `child-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, `import { createLantern } from ${JSON.stringify(join(packageDir, 'dist/index.js'))};\n${body}\n`);
  const started = Date.now();
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [file], { timeout: 30_000 }, (error, stdout) => {
      resolvePromise({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, ms: Date.now() - started });
    });
  });
}

const options = (extra: Record<string, unknown>) => JSON.stringify({ apiKey: 'child-key', ingestUrl: server.url, flushIntervalMs: 60_000, retryBaseMs: 10, retryMaxMs: 40, ...extra });

describe('at exit', () => {
  it('an application that just ends: the buffers are sent before the process exits (beforeExit)', async () => {
    const { code } = await runChild(`
      const lantern = createLantern(${options({})});
      lantern.service('lastJob', () => undefined);
      for (let i = 0; i < 3; i++) lantern.log.error('last words ' + i);
    `);
    expect(code).toBe(0);
    expect(server.items('logs').map((l) => l.message)).toEqual(['last words 0', 'last words 1', 'last words 2']);
    expect(server.items('traces').map((s) => s.requestMethod)).toEqual(['service:lastJob']);
  });

  it('the drain at exit is bounded by closeTimeoutMs when the service is down, and the loss is reported', async () => {
    const { code, stdout, ms } = await runChild(`
      const lantern = createLantern({ ...${options({ ingestUrl: 'http://127.0.0.1:1', closeTimeoutMs: 300 })}, onDrop: (d) => console.log(JSON.stringify(d)), onError: () => {} });
      lantern.log.error('unsendable');
    `);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ kind: 'logs', count: 1, reason: 'close_timeout' }]);
  });

  it('process.exit() without a spool: what was in memory is reported as dropped (reason exit), synchronously', async () => {
    const { code, stdout } = await runChild(`
      const lantern = createLantern({ ...${options({})}, onDrop: (d) => console.log(JSON.stringify(d)) });
      for (let i = 0; i < 5; i++) lantern.log.info('cut short');
      process.exit(3);
    `);
    expect(code).toBe(3);
    expect(stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ kind: 'logs', count: 5, reason: 'exit' }]);
  });

  it('process.exit() with a spoolDir: what was in memory is written to disk and sent by the next start', async () => {
    const spoolDir = join(work, 'spool');
    const { code } = await runChild(`
      const lantern = createLantern(${options({ spoolDir })});
      for (let i = 0; i < 5; i++) lantern.log.warn('saved ' + i);
      lantern.service('savedSpan', () => undefined);
      process.exit(0);
    `);
    expect(code).toBe(0);
    const files = (await readdir(spoolDir)).filter((f) => f.endsWith('.ndjson'));
    expect(files.map((f) => f.split('-')[0]).sort()).toEqual(['logs', 'traces']);
    const logFile = await readFile(join(spoolDir, files.find((f) => f.startsWith('logs-'))!), 'utf8');
    expect(logFile.trim().split('\n')).toHaveLength(6); // header + 5 items

    const before = server.items('logs').length;
    const next = testClient(server.url, { spoolDir });
    await waitFor(() => server.items('logs').length === before + 5, 'the spooled logs');
    await next.lantern.close();
    expect(server.items('logs').slice(before).map((l) => l.message)).toEqual(['saved 0', 'saved 1', 'saved 2', 'saved 3', 'saved 4']);
    expect((await readdir(spoolDir)).filter((f) => f.endsWith('.ndjson'))).toEqual([]);
  });

  it('process.exit() with several batches in flight: each is spooled with its key, and the next start stores every log once', async () => {
    const spoolDir = join(work, 'spool-in-flight');
    // Batches of "slow" logs get no answer before the child has exited.
    server.decide = (r) => (String(r.body.logs?.[0]?.message).startsWith('slow') ? { do: 'ok', delayMs: 3_000 } : undefined);
    const before = server.requests('logs').length;
    const { code, stdout } = await runChild(`
      const lantern = createLantern(${options({ spoolDir, maxBatchSize: 10 })});
      // Three answered batches: the client then keeps up to four in flight.
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 10; i++) lantern.log.info('warm ' + round + ' ' + i);
        await lantern.flush();
      }
      for (let i = 0; i < 60; i++) lantern.log.info('slow ' + i);
      while (lantern.stats().logs.inFlight < 40) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 300)); // the four requests reach the server, which holds their answers
      console.log(JSON.stringify(lantern.stats().logs));
      process.exit(0);
    `);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ inFlight: 40, queued: 20, sent: 30 });
    const inFlightKeys = server.requests('logs').slice(before).filter((r) => String(r.body.logs?.[0]?.message).startsWith('slow')).map((r) => r.key);
    expect(inFlightKeys).toHaveLength(4);
    const files = (await readdir(spoolDir)).filter((f) => f.startsWith('logs-'));
    expect(files).toHaveLength(6);
    const headers = await Promise.all(files.map(async (f) => JSON.parse((await readFile(join(spoolDir, f), 'utf8')).split('\n')[0]!) as { key: string }));
    for (const key of inFlightKeys) expect(headers.map((h) => h.key)).toContain(key);

    server.decide = undefined;
    const next = testClient(server.url, { spoolDir });
    await waitFor(() => next.lantern.stats().logs.sent === 60, 'the spooled logs');
    await next.lantern.close();
    const slow = server.items('logs').map((l) => String(l.message)).filter((m) => m.startsWith('slow'));
    expect(slow).toHaveLength(60);
    expect(new Set(slow).size).toBe(60);
  });
});
