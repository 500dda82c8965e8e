#!/usr/bin/env node
// The virtualenv of the OpenTelemetry Python SDK for `pnpm test:otel`: made once, kept under ~/.cache, keyed by the
// hash of requirements.txt (as scripts/schemathesis/run.mjs keeps its own). Prints the virtualenv's python on its
// last line of stdout; the installs' output goes to stderr.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const requirements = join(here, 'requirements.txt');

function otelPython() {
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lantern-otel-python', hash);
  const python = join(dir, 'bin', 'python');
  // The marker is written last: a virtualenv whose install was cut short is made again.
  const done = join(dir, '.installed');
  if (existsSync(done)) return python;
  console.error(`Installing ${readFileSync(requirements, 'utf8').match(/^opentelemetry-sdk==\S+/m)?.[0]} into ${dir} (once)...`);
  const run = (cmd, args) => {
    const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 2] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  };
  rmSync(dir, { recursive: true, force: true });
  run(process.env.PYTHON ?? 'python3', ['-m', 'venv', dir]);
  run(join(dir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
  writeFileSync(done, '');
  return python;
}

console.log(otelPython());
