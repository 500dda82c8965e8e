#!/usr/bin/env node
// `pnpm test:distributed`: starts the real servers (scripts/infra/*.mjs), runs the jest suites named
// *.distributed.test.ts against them, and stops the servers again (LANTERN_INFRA_KEEP=1 leaves them running),
// also when the run fails or is interrupted (SIGINT/SIGTERM are forwarded to jest, then the servers stop). The data
// of a mongod this run started is deleted as it stops: it lives on tmpfs (scripts/infra/mongo.mjs), where it would
// hold memory until a reboot; a mongod found running keeps its data.
// Each server's endpoint.json names the environment variables the tests read (LANTERN_TEST_*).
//   node scripts/test-distributed.mjs [--infra kafka,mongo,minio] [jest options and path patterns]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, isAlive, log, readEndpoint, readPid } from './infra/lib.mjs';

const ALL = ['kafka', 'mongo', 'minio'];
/** What the servers are built or run with; checked first, so a missing tool is one clear line, not a stack. */
const TOOLS = { kafka: [['java', '-version'], ['mvn', '-v']], mongo: [], minio: [['go', 'version']] };

let args = process.argv.slice(2);
let servers = ALL;
const at = args.indexOf('--infra');
if (at !== -1) {
  servers = (args[at + 1] ?? '').split(',').filter(Boolean);
  const unknown = servers.filter((s) => !ALL.includes(s));
  if (unknown.length) {
    process.stderr.write(`--infra takes a comma-separated list of ${ALL.join(', ')} (unknown: ${unknown.join(', ')})\n`);
    process.exit(2);
  }
  args = [...args.slice(0, at), ...args.slice(at + 2)];
}

const missing = servers.flatMap((s) => TOOLS[s]).filter(([cmd, flag]) => spawnSync(cmd, [flag], { stdio: 'ignore' }).status !== 0).map(([cmd]) => cmd);
if (missing.length) {
  process.stderr.write(`test:distributed: ${[...new Set(missing)].join(', ')} not found on PATH (Kafka needs Java 17 and Maven, MinIO is built with Go)\n`);
  process.exit(2);
}

const infra = (name, verb) => spawnSync(process.execPath, [join(ROOT, 'scripts/infra', `${name}.mjs`), verb], { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
/** Whether the server runs already: its pid file names a live process (as its own `status` decides). */
const running = (name) => {
  const pid = readPid(name);
  return pid !== undefined && isAlive(pid);
};
const started = [];
/** The servers this run started itself (not found running): only their data is deleted at the end. */
const fresh = new Set();
let stopped = false;
/** The servers this run started, and the nginx the clusters of the tests started. */
function stopAll() {
  if (stopped || process.env.LANTERN_INFRA_KEEP === '1') return;
  stopped = true;
  infra('nginx', 'stop');
  for (const name of [...started].reverse()) infra(name, name === 'mongo' && fresh.has(name) ? 'clean' : 'stop');
}

let jest;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log('test', `${signal}: stopping the tests and the servers`);
    if (jest && jest.exitCode === null) jest.kill(signal);
    else {
      stopAll();
      process.exit(130);
    }
  });
}

let status = 1;
try {
  const env = { ...process.env };
  for (const name of servers) {
    if (!existsSync(join(ROOT, 'scripts/infra', `${name}.mjs`))) throw new Error(`scripts/infra/${name}.mjs is missing`);
    log(name, 'starting');
    started.push(name);
    if (!running(name)) fresh.add(name);
    if (!infra(name, 'start')) throw new Error(`${name} did not start (see the lines above)`);
    Object.assign(env, readEndpoint(name)?.env ?? {});
  }
  jest = spawn(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(ROOT, 'node_modules/jest/bin/jest.js'), '-c', join(ROOT, 'jest.distributed.config.js'), ...args],
    { stdio: 'inherit', env, cwd: ROOT },
  );
  status = await new Promise((resolve) => jest.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
} catch (error) {
  process.stderr.write(`test:distributed: ${error.message}\n`);
} finally {
  stopAll();
}
process.exit(status);
