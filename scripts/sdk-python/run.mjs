#!/usr/bin/env node
// The tests of the Python client library (packages/sdk-python): a virtualenv with the pinned test requirements,
// made once and kept under ~/.cache keyed by the hash of requirements-test.txt (as scripts/otel-python/venv.mjs
// keeps its own); the library's wheel built from a copy of the package (not cached: the library changes) and
// installed into it; then pytest, whose closing summary line ends the output. Exits with pytest's code.
// The tests that need the embedded Lantern start `node gateway/dist/main.js`: build the checkout first.
// Extra arguments go to pytest (e.g. `-k fork`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = join(root, 'packages', 'sdk-python');
const requirements = join(pkg, 'requirements-test.txt');

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 2], ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

/** The cached virtualenv with the test requirements; its python. */
function virtualenv() {
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lantern-sdk-python', hash);
  const python = join(dir, 'bin', 'python');
  // The marker is written last: a virtualenv whose install was cut short is made again.
  const done = join(dir, '.installed');
  if (existsSync(done)) return python;
  console.error(`Installing the test requirements into ${dir} (once)...`);
  rmSync(dir, { recursive: true, force: true });
  run(process.env.PYTHON ?? 'python3', ['-m', 'venv', dir]);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements]);
  writeFileSync(done, '');
  return python;
}

const python = virtualenv();

// The wheel, built once from a copy (setuptools writes build/ and *.egg-info beside the sources), then installed.
const work = mkdtempSync(join(tmpdir(), 'lantern-sdk-python-build-'));
try {
  const source = join(work, 'src');
  cpSync(pkg, source, { recursive: true, filter: (p) => !/(^|\/)(build|dist|tests|__pycache__|[^/]*\.egg-info)$/.test(p.slice(pkg.length)) });
  const wheels = join(work, 'wheels');
  console.error('Building the lantern-sdk wheel...');
  run(python, ['-m', 'pip', 'wheel', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-build-isolation', '-w', wheels, source]);
  const wheel = readdirSync(wheels).find((f) => /^lantern_sdk-.*\.whl$/.test(f));
  if (!wheel) {
    console.error('no lantern_sdk wheel was built');
    process.exit(1);
  }
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--force-reinstall', join(wheels, wheel)]);

  // From the repository's root, so that `lantern` is the installed package, not the source directory.
  const r = spawnSync(python, ['-m', 'pytest', '-p', 'no:cacheprovider', 'packages/sdk-python/tests', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      LANTERN_SDK_PYTHON_REQUIRE_EMBEDDED: process.env.LANTERN_SDK_PYTHON_REQUIRE_EMBEDDED ?? '1',
      LANTERN_SDK_PYTHON_WHEEL: join(wheels, wheel),
      PYTHONDONTWRITEBYTECODE: '1',
    },
  });
  process.exitCode = r.status ?? 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
