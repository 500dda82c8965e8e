import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { childEnv, killLeftovers, parseInit, runCli, startFailing, startServer, tempDataDir } from './process-helpers.js';

/** A wrong setting stops the start (or `lantern init`) with a non-zero exit and a message naming it. */
describe('configuration errors, as processes', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  beforeAll(async () => {
    data = await tempDataDir();
  });
  afterAll(async () => {
    killLeftovers();
    await data.remove();
  });

  it.each([
    ['PORT', 'abc', 'PORT must be a whole number from 0 to 65535 (got "abc")'],
    ['PORT', '70000', 'PORT must be a whole number from 0 to 65535 (got "70000")'],
    ['JWT_SECRET', 'short', 'JWT_SECRET must be at least 32 characters long'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of error, warn, info, http, verbose, debug, silly (got "loud")'],
    ['RATE_LIMIT_ENABLED', 'maybe', 'RATE_LIMIT_ENABLED must be true or false (got "maybe")'],
    ['SHUTDOWN_TIMEOUT_MS', '-1', 'SHUTDOWN_TIMEOUT_MS must be a whole number from 0 to 600000 (got "-1")'],
  ])('%s=%s: the server exits non-zero naming the variable, before listening', async (name, value, message) => {
    const run = await startFailing(childEnv({ DATA_DIR: data.dir, PORT: '0', [name]: value }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('.env.example');
    expect(run.stdout).not.toContain('running on');
  });

  it('names every wrong variable at once', async () => {
    const run = await startFailing(childEnv({ DATA_DIR: data.dir, PORT: 'x', TRUST_PROXY: '99', API_KEY_CACHE_MS: 'soon' }));
    expect(run.code).toBe(2);
    for (const name of ['PORT', 'TRUST_PROXY', 'API_KEY_CACHE_MS']) expect(run.stderr).toContain(`- ${name} must be`);
  });

  it('DATA_DIR that is a file: the server exits non-zero naming DATA_DIR', async () => {
    const file = join(data.dir, 'not-a-directory');
    await writeFile(file, 'x');
    const run = await startFailing(childEnv({ DATA_DIR: file, PORT: '0' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Lantern failed to start: DATA_DIR ".*not-a-directory" cannot be used: .*Set DATA_DIR to a writable directory\.\n$/);
  });

  it('PORT already in use: the second server exits non-zero naming PORT', async () => {
    const first = await startServer(childEnv({ DATA_DIR: join(data.dir, 'first') }));
    try {
      const run = await startFailing(childEnv({ DATA_DIR: join(data.dir, 'second'), PORT: String(first.port) }));
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`Lantern failed to start: PORT ${first.port} is already in use on 127.0.0.1: stop the other process or set PORT to a free port.\n`);
    } finally {
      expect(await first.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('`lantern init` with a wrong variable exits non-zero naming it', async () => {
    const run = await runCli(['init', '--password', 'a long password'], childEnv({ DATA_DIR: data.dir, JWT_TTL_SECONDS: 'forever' }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('JWT_TTL_SECONDS must be a whole number');
    expect(run.stdout).toBe('');
  });

  it('`lantern init` refuses what the API would refuse, naming the option, and creates nothing', async () => {
    const dir = join(data.dir, 'refused');
    const run = await runCli(['init', '--email', 'not-an-email', '--password', 'short'], childEnv({ DATA_DIR: dir }));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/--email must match format "email"/);
    expect(run.stderr).toMatch(/--password must NOT have fewer than 8 characters/);
    expect(run.stdout).toBe('');
    const unknown = await runCli(['init', '--emial', 'x@example.com'], childEnv({ DATA_DIR: dir }));
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("Unknown option '--emial'");
    expect(unknown.stderr).toContain('Usage: lantern');
  });

  it('`lantern init` before the first start creates DATA_DIR (a fresh clone has no ./data yet)', async () => {
    const dir = join(data.dir, 'fresh', 'data');
    const run = await runCli(['init'], childEnv({ DATA_DIR: dir }));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = parseInit(run.stdout);
    // No --password: a generated one is printed once.
    expect(run.stdout).toMatch(/^\s*password\s+[A-Za-z0-9_-]{16}\s*$/m);
    expect(printed.apiKey).toMatch(/^lk_/);
    const server = await startServer(childEnv({ DATA_DIR: dir }));
    expect(server.stdout()).not.toContain('store is empty');
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });
});
