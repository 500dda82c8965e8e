// Builds the MinIO server once with `go install github.com/minio/minio@<version>` (MinIO's documented way to get
// the community server, which ships no binaries any more) into the infra cache, keyed by version; later starts
// reuse the binary. Node built-ins only.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, log, withBuildLock } from '../lib.mjs';

export const MINIO_MODULE = 'github.com/minio/minio';
/**
 * The last commit (2026-02-12) of the MinIO community repository, archived since: RELEASE.2025-10-15T17-29-55Z
 * (9e49d5e7a648) plus the maintenance commits after it. LANTERN_MINIO_VERSION overrides it. The Go module proxy reached from here refuses the pseudo-version
 * of the release tag itself (v0.0.0-20251015172955-9e49d5e7a648: "This module version is not available") and
 * cannot resolve RELEASE.* tags (not semver); this pseudo-version is the one it serves.
 */
export const MINIO_VERSION = process.env.LANTERN_MINIO_VERSION || 'v0.0.0-20260212201848-7aac2a2c5b7c';
/** MinIO's go.mod asks for go 1.24.0. */
const MIN_GO = [1, 24];

const versionDir = () => join(CACHE, 'minio', MINIO_VERSION);
export const minioBinary = () => join(versionDir(), 'bin', 'minio');

function goEnv() {
  return {
    ...process.env,
    // Module downloads are kept (a version bump reuses most of them); the compile cache (~1 GB) only serves
    // this one build and is removed once it succeeds.
    GOMODCACHE: join(CACHE, 'go', 'mod'),
    GOCACHE: join(versionDir(), 'gocache'),
    // Release builds of MinIO are static (CGO off): no C compiler needed, and the binary runs anywhere.
    CGO_ENABLED: '0',
    // A Go older than MinIO's go.mod fetches the toolchain it names (a module on the proxy) instead of failing.
    GOTOOLCHAIN: 'auto',
    GOFLAGS: '-buildvcs=false',
  };
}

function checkGo() {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(`MinIO is built from source with Go >= ${MIN_GO.join('.')}, and no "go" command works here (${r.error?.message ?? r.stderr.trim()}); install Go and retry`);
  }
  const version = r.stdout.trim();
  const [major, minor] = (version.match(/go(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (!(major > MIN_GO[0] || (major === MIN_GO[0] && minor >= MIN_GO[1]))) {
    log('minio', `${version} is older than MinIO needs: GOTOOLCHAIN=auto fetches go1.24 from the module proxy`);
  }
  return version;
}

/** The path of the MinIO binary, built first if the cache has none for MINIO_VERSION. */
export async function ensureMinioBinary() {
  if (existsSync(minioBinary())) return minioBinary();
  return withBuildLock(versionDir(), 'minio', async () => {
    if (existsSync(minioBinary())) return minioBinary(); // built by the process we waited for
    const goVersion = checkGo();
    const staging = join(versionDir(), `bin.part-${process.pid}`);
    const buildLog = join(versionDir(), 'build.log');
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    log('minio', `building ${MINIO_MODULE}@${MINIO_VERSION} with ${goVersion} (first run only, several minutes; log: ${buildLog})`);
    const started = Date.now();
    const out = openSync(buildLog, 'w');
    const args = ['install', '-trimpath', '-ldflags=-s -w', `${MINIO_MODULE}@${MINIO_VERSION}`];
    const status = await new Promise((resolve, reject) => {
      const child = spawn('go', args, { env: { ...goEnv(), GOBIN: staging }, stdio: ['ignore', out, out] });
      const beat = setInterval(() => log('minio', `still building (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
      child.once('error', (e) => (clearInterval(beat), reject(e)));
      child.once('exit', (code) => (clearInterval(beat), resolve(code)));
    });
    closeSync(out);
    if (status !== 0 || !existsSync(join(staging, 'minio'))) {
      rmSync(staging, { recursive: true, force: true });
      const tail = readFileSync(buildLog, 'utf8').trim().split('\n').slice(-15).join('\n');
      throw new Error(`go ${args.join(' ')} failed (exit ${status}); end of ${buildLog}:\n${tail}`);
    }
    rmSync(join(versionDir(), 'bin'), { recursive: true, force: true });
    renameSync(staging, join(versionDir(), 'bin'));
    rmSync(join(versionDir(), 'gocache'), { recursive: true, force: true });
    log('minio', `built in ${Math.round((Date.now() - started) / 1000)} s: ${minioBinary()}`);
    return minioBinary();
  });
}
