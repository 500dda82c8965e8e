#!/usr/bin/env node
// `pnpm test:api`: schemathesis (pinned in requirements.txt, in a cached virtualenv) against the embedded server,
// with every check, the stateful phase and a bounded number of examples per operation. Exits non-zero when it
// finds anything. Extra arguments go to `schemathesis run` (e.g. `-- --max-examples 2000 -w 2`).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const requirements = join(here, 'requirements.txt');
/** Examples per operation and phase: with the coverage and stateful phases, under 3 minutes on the 2-core CI machine. */
const MAX_EXAMPLES = process.env.LANTERN_FUZZ_MAX_EXAMPLES ?? '10';

/** The virtualenv for this requirements file: made once, kept under ~/.cache, keyed by the file's hash. */
function virtualenv() {
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lantern-schemathesis', hash);
  const bin = join(dir, 'bin', 'schemathesis');
  if (existsSync(bin)) return bin;
  const python = process.env.PYTHON ?? 'python3';
  console.log(`Installing ${readFileSync(requirements, 'utf8').match(/^schemathesis==\S+/m)?.[0]} into ${dir} (once)...`);
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  };
  rmSync(dir, { recursive: true, force: true });
  run(python, ['-m', 'venv', dir]);
  run(join(dir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
  return bin;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** `pnpm start`'s server, built already (`tsc -b`), on a free port with a data directory of its own. */
async function startServer(dataDir) {
  const port = Number(process.env.LANTERN_FUZZ_PORT ?? (await freePort()));
  const child = spawn(process.execPath, [join(root, 'gateway', 'dist', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      // The fuzzer logs in again after each POST /auth/logout (schemathesis.toml) and sends thousands of register
      // and login requests from one address: at the default of 20 a minute, it would see little but 429s.
      RATE_LIMIT_AUTH_PER_MINUTE: process.env.RATE_LIMIT_AUTH_PER_MINUTE ?? '100000',
      // Its ingest requests all carry the one API key of its one application: at the defaults, POST /v1/logs was
      // mostly 429 (schemathesis's `rate_limited` warning), the logic behind it untested. The limits have tests of
      // their own (gateway/test/limits-ingest.test.ts).
      RATE_LIMIT_INGEST_PER_MINUTE: process.env.RATE_LIMIT_INGEST_PER_MINUTE ?? '1000000',
      RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE: process.env.RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE ?? '1000000',
      RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE: process.env.RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE ?? '1000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('Lantern is running')) resolve();
    });
  });
  child.stdout.resume();
  return { child, base: `http://127.0.0.1:${port}` };
}

async function call(base, method, path, body, headers = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A user with an organization, a project, an application, an API key and a tenant, as a new user would set up. */
async function setUp(base) {
  const email = `fuzz-${Date.now()}@example.com`;
  const password = 'fuzz-password-1';
  const { token } = await call(base, 'POST', '/auth/register', { email, password, name: 'Fuzz' });
  const auth = { authorization: `Bearer ${token}` };
  const org = await call(base, 'POST', '/organizations', { name: 'Fuzz org' }, auth);
  const project = await call(base, 'POST', '/projects', { name: 'Fuzz project', organizationId: org.id }, auth);
  const app = await call(base, 'POST', '/applications', { name: 'Fuzz app', projectId: project.id }, auth);
  const { key } = await call(base, 'POST', `/applications/${app.id}/api-keys`, { name: 'fuzz' }, auth);
  const tenant = await call(base, 'POST', '/ai/tenant', { name: 'Fuzz tenant', organizationId: org.id }, auth);
  return { email, password, key, org, project, app, tenant };
}

async function main() {
  const schemathesis = virtualenv();
  const dataDir = mkdtempSync(join(tmpdir(), 'lantern-fuzz-'));
  const { child, base } = await startServer(dataDir);
  // Stopped from outside (Ctrl-C, a CI timeout): the server and schemathesis stop too.
  let run;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      run?.kill(signal);
      child.kill('SIGTERM');
      process.exitCode = 1;
    });
  }
  let status = 1;
  try {
    const account = await setUp(base);
    const args = [
      '--config-file', join(here, 'schemathesis.toml'),
      'run', `${base}/openapi.json`,
      '--checks', 'all',
      '--phases', 'examples,coverage,fuzzing,stateful',
      '--max-examples', MAX_EXAMPLES,
      // A fixed seed by default: CI generates the same cases each run (a finding reproduces); set another to explore.
      '--seed', process.env.LANTERN_FUZZ_SEED ?? '13',
      '--no-color',
      ...process.argv.slice(2),
    ];
    console.log(`schemathesis ${args.slice(2).join(' ')}`);
    run = spawn(schemathesis, args, {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        SCHEMATHESIS_HOOKS: 'hooks',
        // Its stdout is a pipe here (read line by line below): unbuffered, its progress shows as it happens.
        PYTHONUNBUFFERED: '1',
        PYTHONPATH: here,
        LANTERN_FUZZ_EMAIL: account.email,
        LANTERN_FUZZ_PASSWORD: account.password,
        LANTERN_FUZZ_API_KEY: account.key,
      },
    });
    const exited = new Promise((resolve) => run.once('exit', (code) => resolve(code ?? 1)));
    // schemathesis closes with a banner shaped like pytest's closing line ("==== 1 warning in 157.67s ===="), with
    // no count of the cases it ran: a reader of the CI log that knows pytest's line would take it for a run of no
    // test. It is printed as a plain line under schemathesis's name; its counts are in the summary above it.
    for await (const line of createInterface({ input: run.stdout })) {
      const banner = /^=+ (.+ in [\d.]+s) =+$/.exec(line);
      console.log(banner ? `schemathesis finished: ${banner[1]}` : line);
    }
    status = await exited;
  } finally {
    // A server that already exited (the crash a fuzzer is there to find) has no 'exit' left to wait for.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    } else {
      console.error(`the server had exited during the run (${child.exitCode ?? child.signalCode})`);
      status ||= 1;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(status);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
