#!/usr/bin/env node
// `pnpm run check:deps` (CI runs it right after `pnpm install --frozen-lockfile`): asks the npm registry about every
// package of pnpm-lock.yaml at its locked version. Fails (exit 1) when a direct dependency (dependencies,
// devDependencies, optionalDependencies of any workspace package) is marked deprecated; deprecated transitive packages
// are listed, not failed. A registry that cannot be reached fails with exit 2 and says so. It replaces `pnpm audit`
// in CI, whose advisory service answers 405 from these machines (`pnpm run audit` runs it where it is reachable).
//   node scripts/check-deps.mjs [--concurrency 16] [--timeout-ms 15000] [--root <workspace>]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide, manifestUrl, parseLockfile, parseWorkspace, plan } from './check-deps/lockfile.mjs';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
/** The workspace to check (default this checkout; the tests point it at a fixture). */
const ROOT = resolve(option('--root', join(dirname(fileURLToPath(import.meta.url)), '..')));
const CONCURRENCY = Number(option('--concurrency', 16));
const TIMEOUT_MS = Number(option('--timeout-ms', 15_000));
const ATTEMPTS = 3;
/**
 * Deprecated on npmjs since 2020: a registry (or a mirror in front of it) that does not say so passes no deprecation
 * on, and a run against it cannot find one. Such a run says so in its last line rather than passing in silence.
 */
const CANARY = { name: 'request', version: '2.88.2' };

/** The registry npm (and pnpm) would use: npm_config_registry, else `npm config get registry` (.npmrc), else npmjs. */
function registry() {
  const env = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY;
  if (env) return env;
  const npm = spawnSync('npm', ['config', 'get', 'registry'], { cwd: ROOT, encoding: 'utf8', timeout: 10_000 });
  const out = npm.status === 0 ? npm.stdout.trim() : '';
  return /^https?:\/\//.test(out) ? out : 'https://registry.npmjs.org/';
}

/** Each workspace package's directory (relative, as the lockfile names importers) and package.json. */
function workspaceManifests() {
  const dirs = ['.'];
  for (const glob of parseWorkspace(readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8'))) {
    if (glob.endsWith('/*')) {
      const parent = glob.slice(0, -2);
      if (!existsSync(join(ROOT, parent))) continue;
      for (const entry of readdirSync(join(ROOT, parent), { withFileTypes: true })) {
        if (entry.isDirectory()) dirs.push(`${parent}/${entry.name}`);
      }
    } else if (!glob.includes('*')) dirs.push(glob);
    else throw new Error(`pnpm-workspace.yaml: the glob "${glob}" is not one this script reads (dir/* or dir)`);
  }
  return dirs
    .filter((dir) => existsSync(join(ROOT, dir, 'package.json')))
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) }));
}

/** The `deprecated` message of one version (undefined when it is not), with a timeout and retries. */
async function deprecation(base, { name, version }) {
  let last;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const res = await fetch(manifestUrl(base, name, version), { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (res.status === 404) throw Object.assign(new Error(`${name}@${version} is not in the registry (404)`), { final: true });
      if (!res.ok) throw new Error(`${name}@${version}: HTTP ${res.status}`);
      const manifest = await res.json();
      return typeof manifest.deprecated === 'string' && manifest.deprecated !== '' ? manifest.deprecated : undefined;
    } catch (err) {
      last = err;
      if (err.final || attempt === ATTEMPTS) break;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
  throw last;
}

/** Runs `task` over `items`, `concurrency` at a time, until `stop()` says enough. */
async function pool(items, concurrency, task, stop) {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) {
      const item = items[next++];
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

const started = Date.now();
const base = registry();
const lock = parseLockfile(readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8'));
const work = plan({ manifests: workspaceManifests(), lock });
if (work.problems.length) {
  for (const p of work.problems) console.error(`check-deps: ${p}`);
  process.exit(1);
}
const deprecated = new Map();
const unreachable = [];
await pool([...work.direct, ...work.transitive], CONCURRENCY, async (pkg) => {
  try {
    const message = await deprecation(base, pkg);
    if (message) deprecated.set(`${pkg.name}@${pkg.version}`, message);
  } catch (err) {
    unreachable.push(`${pkg.name}@${pkg.version}: ${err.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS} ms` : err.message}`);
  }
}, () => unreachable.length > 0); // one package that failed every attempt: the registry is out, asking the rest would only wait longer
if (unreachable.length) {
  console.error(`check-deps: the registry ${base} did not answer after ${ATTEMPTS} attempts; nothing was decided:`);
  for (const u of unreachable.slice(0, 10)) console.error(`  ${u}`);
  process.exit(2);
}
const canary = await deprecation(base, CANARY).catch((err) => { unreachable.push(`${CANARY.name}@${CANARY.version}: ${err.message}`); });
if (unreachable.length) process.exit(2);
const { failures, listed } = decide(work, deprecated);
for (const p of listed) console.log(`deprecated (transitive, listed): ${p.name}@${p.version}: ${p.message}`);
for (const p of failures) console.error(`DEPRECATED direct dependency ${p.name}@${p.version} (${p.importers.join(', ')}): ${p.message}`);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`check-deps: ${work.direct.length} direct and ${work.transitive.length} transitive packages asked of ${base} in ${seconds} s: ` +
  `${failures.length} direct deprecated, ${listed.length} transitive deprecated.`);
if (!canary) {
  console.warn(`check-deps: WARNING: ${base} does not mark ${CANARY.name}@${CANARY.version} deprecated, which npmjs does: this registry ` +
    'passes no deprecation on, so this run could not have found one. Run it where the registry reports deprecations.');
}
process.exit(failures.length ? 1 : 0);
