#!/usr/bin/env node
// `pnpm infra:up [kafka,mongo,minio]` starts the real servers for local work on the distributed mode and prints
// the environment variables the tests and services read; `pnpm infra:down` stops them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, readEndpoint } from './lib.mjs';

const ALL = ['kafka', 'mongo', 'minio'];
const down = process.argv.includes('--down');
const names = process.argv.slice(2).find((a) => !a.startsWith('--'))?.split(',') ?? ALL;
let failed = false;
for (const name of down ? [...names].reverse() : names) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/infra', `${name}.mjs`), down ? 'stop' : 'start'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) failed = true;
  else if (!down) for (const [k, v] of Object.entries(readEndpoint(name)?.env ?? {})) process.stdout.write(`export ${k}=${JSON.stringify(v)}\n`);
}
process.exit(failed ? 1 : 0);
