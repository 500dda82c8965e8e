import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Lantern as a user runs it: `node gateway/dist/main.js` and `node gateway/dist/cli.js` as child processes
 * of the test, talking to a real listening server. Needs the compiled output (`pnpm test` builds first).
 */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'gateway/dist/main.js');
const CLI = join(ROOT, 'gateway/dist/cli.js');

/** Generous: a cold child start on a loaded CI machine. */
export const START_TIMEOUT_MS = 20_000;

/** Every variable loadConfig reads, so the parent's environment never leaks into a child. */
const CONFIG_VARS = [
  'PORT', 'HOST', 'DATA_DIR', 'JWT_SECRET', 'JWT_TTL_SECONDS', 'LOG_LEVEL', 'RATE_LIMIT_ENABLED', 'RATE_LIMIT_INGEST_PER_MINUTE',
  'RATE_LIMIT_AUTH_PER_MINUTE', 'RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE', 'RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE',
  'RATE_LIMIT_UPLOADS_PER_MINUTE', 'RATE_LIMIT_UPLOADS_ORGANIZATION_PER_MINUTE', 'MAX_API_KEYS_PER_APPLICATION',
  'MAX_CONCURRENT_READS_PER_USER', 'STORAGE_QUOTA_BYTES', 'API_KEY_CACHE_MS', 'TRUST_PROXY', 'SHUTDOWN_TIMEOUT_MS', 'RETENTION_DAYS',
  'READ_BUDGET_MS', 'STREAM_BUDGET_MS', 'READ_WORKERS', 'HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS', 'KEEP_ALIVE_TIMEOUT_MS', 'MAX_CONNECTIONS',
  'MAX_CONCURRENT_UPLOADS', 'UPLOAD_WAIT_MS', 'DOCUMENT_THREADS', 'DOCUMENT_LEASE_MS',
  'LANTERN_STORE', 'LANTERN_MONGO_URL', 'LANTERN_MONGO_DATABASE', 'LANTERN_BUS', 'LANTERN_KAFKA_BROKERS', 'LANTERN_KAFKA_TOPIC_PREFIX',
  'LANTERN_KAFKA_PARTITIONS', 'LANTERN_BLOBS', 'LANTERN_MINIO_URL', 'LANTERN_MINIO_BUCKET',
];

export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARS) delete env[name];
  return { ...env, HOST: '127.0.0.1', ...vars };
}

const children = new Set<ChildProcess>();

/** For afterAll: ends any child a failed test left running (only the ones this file started). */
export function killLeftovers(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

export async function tempDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'lantern-process-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Polls `check` until it returns a value (not undefined), or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = START_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** `promise`, or a failure naming `what` after `timeoutMs`. */
export function within<T>(what: string, promise: Promise<T>, timeoutMs = START_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
}

function spawnNode(script: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`pnpm build\` first (\`pnpm test\` does).`);
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exited };
}

export interface CliRun extends Exit {
  stdout: string;
  stderr: string;
}

/** `node gateway/dist/cli.js ...args` to completion. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = spawnNode(CLI, args, env);
  const exit = await within('the lantern CLI to exit', run.exited);
  return { ...exit, stdout: run.stdout(), stderr: run.stderr() };
}

/** `node gateway/dist/main.js` that exited during its start (a configuration error). */
export async function startFailing(env: NodeJS.ProcessEnv): Promise<CliRun> {
  const run = spawnNode(MAIN, [], env);
  const exit = await within('the server to exit', run.exited);
  return { ...exit, stdout: run.stdout(), stderr: run.stderr() };
}

export interface Server extends Spawned {
  port: number;
  url: string;
  /** The JSON lines the server logged so far (the human start lines are skipped). */
  logLines(): Record<string, unknown>[];
  /** SIGTERM, then the exit. */
  stop(): Promise<Exit>;
}

/** The complete JSON lines of an output (a line still being written is left for later). */
export function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Starts the server and resolves once it printed the address it listens on (PORT=0 picks a free port). */
export async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  const run = spawnNode(MAIN, [], { PORT: '0', ...env });
  let exit: Exit | undefined;
  void run.exited.then((e) => (exit = e));
  const port = await waitFor('the server to print its address', () => {
    if (exit) throw new Error(`The server exited (${exit.code ?? exit.signal}) during its start:\n${run.stderr()}${run.stdout()}`);
    const m = /running on http:\/\/localhost:(\d+)/.exec(run.stdout());
    return m ? Number(m[1]) : undefined;
  });
  return {
    ...run,
    port,
    url: `http://127.0.0.1:${port}`,
    logLines: () => jsonLines(run.stdout()),
    async stop() {
      run.child.kill('SIGTERM');
      return within('the server to exit after SIGTERM', run.exited);
    },
  };
}

/** Resolves with the connection error code, or 'connected' (the socket is then closed). */
export function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** A raw HTTP/1.1 connection: what was received so far, and whether the server closed it. */
export interface RawConnection {
  socket: Socket;
  received(): string;
  closed(): boolean;
}

export async function openRaw(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  let closed = false;
  socket.setEncoding('utf8').on('data', (d: string) => (data += d));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return { socket, received: () => data, closed: () => closed };
}

/** The status, headers and body of the last complete response in `raw` (Content-Length bodies only). */
export function parseResponse(raw: string): { status: number; headers: Record<string, string>; body: string } | undefined {
  const start = raw.lastIndexOf('HTTP/1.1 ');
  if (start < 0 || /^HTTP\/1\.1 100 /.test(raw.slice(start))) return undefined;
  const end = raw.indexOf('\r\n\r\n', start);
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.slice(start, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const body = raw.slice(end + 4);
  if (Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return undefined;
  return { status: Number(statusLine!.split(' ')[1]), headers, body };
}

/** The values `lantern init` printed once. */
export interface Printed {
  apiKey: string;
  jwt: string;
  projectId: number;
  /** The copy-paste commands, continuation lines joined. */
  curls: string[];
}

export function parseInit(stdout: string): Printed {
  const field = (label: string) => new RegExp(`^\\s*${label}\\s+(\\S+)\\s*$`, 'm').exec(stdout)?.[1];
  const apiKey = field('API key');
  const jwt = field('JWT');
  const projectId = Number(field('project'));
  if (!apiKey || !jwt || !Number.isInteger(projectId)) throw new Error(`lantern init printed no API key, JWT or project:\n${stdout}`);
  const curls = stdout
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('curl '));
  return { apiKey, jwt, projectId, curls };
}

export function sh(command: string): Promise<CliRun> {
  const child = spawn('sh', ['-c', command], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return within(command, new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }))));
}

/** A valid span batch of one span. */
export function oneSpan(traceId: string, spanId: string): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    timestamp: now,
    traces: [{ traceId, spanId, parentSpanId: null, timestamp: now, requestMethod: 'controller:GET', requestURL: '/checkout', responseStatus: 200, durationMs: 7 }],
  });
}
