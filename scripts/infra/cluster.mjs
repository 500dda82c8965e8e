// Every Lantern service as a process of its own (`node gateway/dist/cli.js <service>`) on the servers that
// scripts/infra started (Kafka, mongod, MinIO), behind nginx (scripts/infra/nginx.mjs with gateway/nginx.conf).
// Used by the distributed tests (gateway/test/distributed/cluster.ts) and the benches (bench/distributed,
// bench/fairness, bench/ai/knowledge --distributed). Each cluster gets its own database, topic prefix and bucket.
// Services log to .infra/cluster-logs/.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT, STATE, readEndpoint } from './lib.mjs';

export const SERVICES = ['accounts', 'ingest', 'writer', 'query', 'ai', 'ai-worker'];
const CLI = join(ROOT, 'gateway/dist/cli.js');
const LOGS = join(STATE, 'cluster-logs');

function required(env, name) {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: start the servers first (pnpm test:distributed, or pnpm infra:up and export what it prints)`);
  return value;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(port, state, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (state.exitedWith !== undefined) throw new Error(`the service on port ${port} exited during its start (${state.exitedWith}); see ${LOGS}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the service on port ${port} was not ready within ${timeoutMs} ms; see ${LOGS}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function launch(service, port, env, tag) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`pnpm build\` first`);
  mkdirSync(LOGS, { recursive: true });
  const logFile = join(LOGS, `${tag}-${service}-${port}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [CLI, service], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const state = {};
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      state.exitedWith = String(code ?? signal);
      resolve({ code, signal });
    }),
  );
  return { service, port, child, exited, state, logFile };
}

function nginx(args) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/infra/nginx.mjs'), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/infra/nginx.mjs ${args[0]} failed:\n${r.stderr}`);
}

/**
 * Starts `counts[service]` processes of each service (default 1) and nginx in front of them (the writer and the
 * ai-worker consume Kafka and are not behind it).
 * `baseEnv` (default process.env) must hold LANTERN_TEST_MONGO_URL, LANTERN_TEST_KAFKA_BROKERS and LANTERN_TEST_MINIO_URL;
 * `extraEnv` is added to every service's environment.
 */
export async function startCluster({ counts = {}, baseEnv = process.env, extraEnv = {} } = {}) {
  const tag = randomUUID().slice(0, 8);
  const env = {
    ...baseEnv,
    HOST: '127.0.0.1',
    LANTERN_STORE: 'mongo',
    LANTERN_MONGO_URL: required(baseEnv, 'LANTERN_TEST_MONGO_URL'),
    LANTERN_MONGO_DATABASE: `e2e_${tag}`,
    LANTERN_BUS: 'kafka',
    LANTERN_KAFKA_BROKERS: required(baseEnv, 'LANTERN_TEST_KAFKA_BROKERS'),
    LANTERN_KAFKA_TOPIC_PREFIX: `e2e-${tag}.`,
    LANTERN_KAFKA_PARTITIONS: '6',
    LANTERN_BLOBS: 'minio',
    LANTERN_MINIO_URL: required(baseEnv, 'LANTERN_TEST_MINIO_URL'),
    LANTERN_MINIO_BUCKET: `e2e-${tag}`,
    JWT_SECRET: `distributed-test-secret-${tag}-0123456789`,
    RATE_LIMIT_ENABLED: 'false',
    API_KEY_CACHE_MS: '0',
    TRUST_PROXY: '1',
    LOG_LEVEL: 'warn',
    SHUTDOWN_TIMEOUT_MS: '5000',
    RETENTION_DAYS: '0',
    ...extraEnv,
  };
  const procs = Object.fromEntries(SERVICES.map((s) => [s, []]));
  const all = () => Object.values(procs).flat();
  try {
    // accounts first: it creates the store's indexes and counters before the others race to.
    for (const service of ['accounts', 'writer', 'ingest', 'query', 'ai', 'ai-worker']) {
      const started = [];
      for (let i = 0; i < (counts[service] ?? 1); i++) started.push(launch(service, await freePort(), env, tag));
      procs[service].push(...started);
      await Promise.all(started.map((p) => waitReady(p.port, p.state)));
    }
    const upstreams = Object.fromEntries(['accounts', 'ingest', 'query', 'ai'].map((s) => [s, procs[s].map((p) => `127.0.0.1:${p.port}`)]));
    const port = await freePort();
    nginx(['start', '--upstreams', JSON.stringify(upstreams), '--port', String(port)]);
    return {
      url: `http://127.0.0.1:${port}`,
      procs,
      env,
      async kill(service, index, signal = 'SIGKILL') {
        const p = procs[service][index];
        p.child.kill(signal);
        await p.exited;
      },
      async restart(service, index) {
        const p = launch(service, procs[service][index].port, env, tag);
        procs[service][index] = p;
        await waitReady(p.port, p.state);
      },
      async stop() {
        nginx(['stop']);
        await Promise.all(
          all().map(async (p) => {
            if (p.state.exitedWith === undefined) p.child.kill('SIGTERM');
            const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
            await p.exited;
            clearTimeout(timer);
          }),
        );
      },
    };
  } catch (err) {
    for (const p of all()) p.child.kill('SIGKILL');
    throw err;
  }
}

/**
 * Kafka, mongod and MinIO started if they are not (`node scripts/infra/<name>.mjs start`, progress on stderr): the
 * LANTERN_TEST_* variables startCluster's `baseEnv` needs (the benches; the tests have scripts/test-distributed.mjs).
 */
export function startInfra(names = ['kafka', 'mongo', 'minio']) {
  const env = {};
  for (const name of names) {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/infra', `${name}.mjs`), 'start'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`scripts/infra/${name}.mjs start failed`);
    Object.assign(env, readEndpoint(name)?.env ?? {});
  }
  return env;
}

/** `node scripts/infra/<name>.mjs <verb>` (fault tests stop and start Kafka and mongod). */
export function infra(name, verb) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/infra', `${name}.mjs`), verb], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scripts/infra/${name}.mjs ${verb} failed:\n${r.stderr}`);
}
