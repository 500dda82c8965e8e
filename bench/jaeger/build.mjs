// Gets the Jaeger v2 binary for bench/jaeger: built once from Jaeger's Go module into the infra cache
// (CACHE/jaeger/<version>/jaeger, see scripts/infra/lib.mjs), then reused. `go install module@version` refuses
// Jaeger (its go.mod has replace directives), so the module is downloaded with `go mod download -json` and
// `go build ./cmd/jaeger` runs in the directory that reports. Nothing of Jaeger is kept in this repository.
// `node bench/jaeger/build.mjs` builds it alone. Node built-ins only.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, log as infraLog, withBuildLock } from '../../scripts/infra/lib.mjs';

export const JAEGER_MODULE = 'github.com/jaegertracing/jaeger';
/**
 * Jaeger v2.13.0 (2025-12-03). Jaeger tags each release twice on one commit, v1.x for the old binaries and v2.x
 * for `jaeger`; its module path has no /v2, so the Go module proxy serves the release as v1.76.0 only. Its go.mod
 * asks for go 1.24.6. LANTERN_JAEGER_VERSION / LANTERN_JAEGER_MODULE_VERSION override the pair.
 */
export const JAEGER_VERSION = process.env.LANTERN_JAEGER_VERSION || 'v2.13.0';
export const JAEGER_MODULE_VERSION = process.env.LANTERN_JAEGER_MODULE_VERSION || 'v1.76.0';

const log = (message) => infraLog('jaeger', message);
const versionDir = () => join(CACHE, 'jaeger', JAEGER_VERSION);
export const jaegerBinary = () => join(versionDir(), 'jaeger');

function goEnv() {
  return {
    ...process.env,
    GOMODCACHE: join(CACHE, 'go', 'mod'), // shared with the MinIO build: many modules are the same
    GOCACHE: join(versionDir(), 'gocache'), // this build's compile cache, removed once it succeeds
    CGO_ENABLED: '0', // as Jaeger's release builds: static, no C compiler needed
    GOTOOLCHAIN: 'auto', // a Go older than Jaeger's go.mod fetches the toolchain it names (a module on the proxy)
    // -mod=mod: the module cache's copy is read-only and its go.sum may lack a sum the build wants; sums still
    // come from the checksum database.
    GOFLAGS: '-buildvcs=false -mod=mod',
  };
}

function run(args, options) {
  const r = spawnSync('go', args, { encoding: 'utf8', env: goEnv(), ...options });
  if (r.error || r.status !== 0) throw new Error(`go ${args.join(' ')} failed: ${r.error?.message ?? r.stderr.trim()}`);
  return r.stdout;
}

/** The path of the Jaeger binary, built first if the cache has none for JAEGER_VERSION. */
export async function ensureJaegerBinary() {
  if (existsSync(jaegerBinary())) return jaegerBinary();
  return withBuildLock(versionDir(), 'jaeger', async () => {
    if (existsSync(jaegerBinary())) return jaegerBinary(); // built by the process we waited for
    const goVersion = run(['env', 'GOVERSION']).trim();
    const info = JSON.parse(run(['mod', 'download', '-json', `${JAEGER_MODULE}@${JAEGER_MODULE_VERSION}`], { cwd: versionDir() }));
    if (info.Error || !info.Dir) throw new Error(`go mod download ${JAEGER_MODULE}@${JAEGER_MODULE_VERSION}: ${info.Error ?? 'no Dir'}`);
    const staging = join(versionDir(), `jaeger.part-${process.pid}`);
    const buildLog = join(versionDir(), 'build.log');
    log(`building Jaeger ${JAEGER_VERSION} (${JAEGER_MODULE}@${JAEGER_MODULE_VERSION}) with ${goVersion} (first run only, several minutes; log: ${buildLog})`);
    const started = Date.now();
    const out = openSync(buildLog, 'w');
    const ldflags = `-s -w -X ${JAEGER_MODULE}/internal/version.latestVersion=${JAEGER_VERSION}`;
    const args = ['build', '-trimpath', `-ldflags=${ldflags}`, '-o', staging, './cmd/jaeger'];
    const status = await new Promise((resolve, reject) => {
      const child = spawn('go', args, { cwd: info.Dir, env: goEnv(), stdio: ['ignore', out, out] });
      const beat = setInterval(() => log(`still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
      child.once('error', (e) => (clearInterval(beat), reject(e)));
      child.once('exit', (code) => (clearInterval(beat), resolve(code)));
    });
    closeSync(out);
    if (status !== 0 || !existsSync(staging)) {
      rmSync(staging, { force: true });
      const tail = readFileSync(buildLog, 'utf8').trim().split('\n').slice(-15).join('\n');
      throw new Error(`go ${args.join(' ')} (in ${info.Dir}) failed (exit ${status}); end of ${buildLog}:\n${tail}`);
    }
    renameSync(staging, jaegerBinary());
    rmSync(join(versionDir(), 'gocache'), { recursive: true, force: true });
    log(`built in ${Math.round((Date.now() - started) / 1000)} s: ${jaegerBinary()}`);
    return jaegerBinary();
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${await ensureJaegerBinary()}\n`);
}
