#!/usr/bin/env node
// `pnpm test:distributed`: starts the real servers (scripts/infra/*.mjs), runs the jest suites named
// *.distributed.test.ts against them, and stops the servers again (LANTERN_INFRA_KEEP=1 leaves them running).
// Each server's endpoint.json names the environment variables the tests read (LANTERN_TEST_*).
//   node scripts/test-distributed.mjs [--infra kafka,mongo,minio] [jest options and path patterns]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, log, readEndpoint } from './infra/lib.mjs';

const ALL = ['kafka', 'mongo', 'minio'];
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

const infra = (name, verb) => spawnSync(process.execPath, [join(ROOT, 'scripts/infra', `${name}.mjs`), verb], { stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
const started = [];
let status = 1;
try {
  const env = { ...process.env };
  for (const name of servers) {
    if (!existsSync(join(ROOT, 'scripts/infra', `${name}.mjs`))) throw new Error(`scripts/infra/${name}.mjs is missing`);
    log(name, 'starting');
    started.push(name);
    if (!infra(name, 'start')) throw new Error(`${name} did not start (see the lines above)`);
    Object.assign(env, readEndpoint(name)?.env ?? {});
  }
  const jest = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', join(ROOT, 'node_modules/jest/bin/jest.js'), '-c', join(ROOT, 'jest.distributed.config.js'), ...args],
    { stdio: 'inherit', env, cwd: ROOT },
  );
  status = jest.status ?? 1;
} catch (error) {
  process.stderr.write(`test:distributed: ${error.message}\n`);
} finally {
  if (process.env.LANTERN_INFRA_KEEP !== '1') for (const name of started.reverse()) infra(name, 'stop');
}
process.exit(status);
