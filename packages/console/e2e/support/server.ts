import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is packages/console/e2e/support/server.ts). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface LanternServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  port: number;
  dataDir: string;
  /** The last 64 KiB of the server's stdout and stderr, for a failing test's message. */
  output(): string;
  /** SIGTERM, then waits for the exit (SIGKILL after 15 s); removes the data directory. */
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Added to the server's environment (e.g. RATE_LIMIT_ENABLED=false for a test that signs up many times). */
  env?: Record<string, string>;
  timeoutMs?: number;
}

const RUNNING = /Lantern is running on http:\/\/localhost:(\d+)/;
const KEEP = 64 * 1024;

/**
 * The built server, started the way `pnpm start` starts it (`node gateway/dist/main.js` in the repository, after
 * `pnpm build`), on a free port and a fresh data directory, on 127.0.0.1. Resolves once it printed that it is running.
 */
export async function startServer(options: StartServerOptions = {}): Promise<LanternServer> {
  for (const built of ['gateway/dist/main.js', 'packages/console/dist/index.html']) {
    if (!existsSync(join(ROOT, built))) throw new Error(`${built} is missing: run \`pnpm build\` first (pnpm test:console does)`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'lantern-console-e2e-'));
  const child = spawn(process.execPath, ['gateway/dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-KEEP);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let port: number;
  try {
    port = await waitForStart(child, () => out, options.timeoutMs ?? 30_000);
  } catch (err) {
    await stopChild(child, exited);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    output: () => out,
    async stop() {
      await stopChild(child, exited);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function waitForStart(child: ChildProcess, output: () => string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', onExit);
      fn();
    };
    const check = () => {
      const m = RUNNING.exec(output());
      if (m) done(() => resolve(Number(m[1])));
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(() => reject(new Error(`the server exited during its start (${code ?? signal}):\n${output()}`)));
    const timer = setTimeout(() => done(() => reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output()}`))), timeoutMs);
    child.stdout!.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}
