import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `pnpm demo` end to end, as a newcomer runs it: the compiled demo with --duration, a free port and a temporary
 * data directory. Afterwards Lantern is started again on that directory and the JWT the demo printed reads back
 * what the two apps sent, including the trace of a checkout that crossed from the shop into payments.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DEMO = join(ROOT, 'examples/express-shop/dist/demo.js');
const GATEWAY = join(ROOT, 'gateway/dist/main.js');
const DURATION_S = 8;

interface Span {
  spanId: string;
  parentSpanId?: string | null;
  requestMethod: string;
  traceId: string;
}
interface TraceRecord {
  applicationId: number;
  traceId: string;
  telemetry: Span[];
}
interface LogEntry {
  applicationId: number;
  message: string;
}

const started = new Set<ChildProcess>();
const demoPids: number[] = [];
const dirs: string[] = [];

afterAll(async () => {
  // Only if a test failed half-way: end what this file started, and anything the demo left behind.
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const pid of demoPids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The test's environment without what would change the demo's or Lantern's behaviour. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(LANTERN_|PORT$|HOST$|DATA_DIR$|JWT_|LOG_LEVEL$|RATE_LIMIT|SHUTDOWN_TIMEOUT|API_KEY_CACHE|TRUST_PROXY|NODE_OPTIONS$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv) {
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`pnpm build\` first (\`pnpm test\` does).`);
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, output: () => out, exited };
}

async function within<T>(what: string, promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_r, reject) => (timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function getJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

const match = (text: string, pattern: RegExp, what: string) => {
  const m = pattern.exec(text);
  if (!m?.[1]) throw new Error(`the demo's output has no ${what}:\n${text}`);
  return m[1];
};

describe('pnpm demo', () => {
  it('runs Lantern, both apps and traffic, prints a JWT that reads their traces and logs, and stops everything', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'lantern-demo-'));
    dirs.push(dataDir);
    const demo = run(DEMO, ['--duration', String(DURATION_S), '--port', String(await freePort()), '--data-dir', dataDir], cleanEnv());
    const exit = await within('the demo to stop by itself', demo.exited, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${demo.output()}`);
    });
    const out = demo.output();
    for (const [, , pid] of out.matchAll(/(\w+) pid (\d+)/g)) demoPids.push(Number(pid));

    expect({ exit, out }).toMatchObject({ exit: { code: 0, signal: null } });
    const token = match(out, /^\s*JWT\s+(\S+)$/m, 'JWT');
    const projectId = Number(match(out, /^\s*project\s+(\d+)/m, 'project'));
    const shopId = Number(match(out, /applications: shop (\d+)/, 'shop application'));
    const paymentsId = Number(match(out, /applications: shop \d+, payments (\d+)/, 'payments application'));

    // No child outlived the demo: it waits for each one's exit before it exits itself.
    expect(demoPids).toHaveLength(4);
    expect(demoPids.filter(alive)).toEqual([]);

    // Lantern again on the same data directory (the JWT secret is kept there), to read what was stored.
    const port = await freePort();
    const lantern = run(GATEWAY, [], cleanEnv({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
    const base = `http://127.0.0.1:${port}`;
    await within(
      'Lantern to be ready again',
      (async () => {
        while (!(await fetch(`${base}/readyz`).then((r) => r.ok, () => false))) {
          if (lantern.child.exitCode !== null) throw new Error(`Lantern exited:\n${lantern.output()}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      })(),
      30_000,
    );

    try {
      const traces = await getJson<TraceRecord[]>(`${base}/logs/project?id=${projectId}`, token);
      const shop = traces.filter((t) => t.applicationId === shopId);
      const payments = traces.filter((t) => t.applicationId === paymentsId);
      expect(shop.length).toBeGreaterThan(0);
      expect(payments.length).toBeGreaterThan(0);

      // A checkout: the shop's `external:` span is the parent of the payments request's root span, same trace.
      const crossing = shop.flatMap((record) =>
        record.telemetry
          .filter((span) => span.requestMethod.startsWith('external:'))
          .flatMap((external) =>
            payments
              .filter((p) => p.traceId === record.traceId)
              .flatMap((p) => p.telemetry)
              .filter((span) => span.requestMethod.startsWith('controller:') && span.parentSpanId === external.spanId && span.traceId === external.traceId),
          ),
      );
      expect(crossing.length).toBeGreaterThan(0);

      const logs = await getJson<LogEntry[]>(`${base}/ingest/logs?projectId=${projectId}`, token);
      expect(logs.some((l) => l.applicationId === shopId)).toBe(true);
      expect(logs.some((l) => l.applicationId === paymentsId)).toBe(true);
    } finally {
      lantern.child.kill('SIGTERM');
      await within('Lantern to stop', lantern.exited, 30_000);
    }
  }, 120_000);
});
