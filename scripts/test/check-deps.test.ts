import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
// @ts-expect-error -- a plain .mjs module of the scripts, without type declarations
import { decide, lockedPackage, manifestUrl, parseLockfile, parseWorkspace, plan } from '../check-deps/lockfile.mjs';

/** A lockfile v9 in pnpm 10's shape: a root importer, a workspace package, and the packages section. */
const LOCK = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true

importers:

  .:
    devDependencies:
      '@typescript-eslint/parser':
        specifier: ^8.73.0
        version: 8.73.0(eslint@10.15.0)(typescript@5.9.3)
      typescript:
        specifier: ~5.9.3
        version: 5.9.3

  packages/auth:
    dependencies:
      '@lantern/domain':
        specifier: workspace:*
        version: link:../domain
      jsonwebtoken:
        specifier: ^9.0.3
        version: 9.0.3
      string-width-cjs:
        specifier: npm:string-width@^4.2.0
        version: string-width@4.2.3
    optionalDependencies:
      fsevents:
        specifier: 2.3.3
        version: 2.3.3

packages:

  '@typescript-eslint/parser@8.73.0':
    resolution: {integrity: sha512-x}
    peerDependencies:
      eslint: ^8.57.0 || ^9.0.0

  jsonwebtoken@9.0.3:
    resolution: {integrity: sha512-y}

  jws@4.0.1:
    resolution: {integrity: sha512-z}

  inflight@1.0.6:
    resolution: {integrity: sha512-w}
    deprecated: This module is not supported, and leaks memory.

snapshots:

  jws@4.0.1:
    dependencies:
      jwa: 2.0.1
`;

const manifests = [
  { dir: '.', manifest: { devDependencies: { '@typescript-eslint/parser': '^8.73.0', typescript: '~5.9.3' } } },
  { dir: 'packages/auth', manifest: { dependencies: { '@lantern/domain': 'workspace:*', jsonwebtoken: '^9.0.3', 'string-width-cjs': 'npm:string-width@^4.2.0' }, optionalDependencies: { fsevents: '2.3.3' } } },
];

describe('check-deps: reading the workspace and the lockfile', () => {
  it('reads the packages globs of pnpm-workspace.yaml, quoted or not', () => {
    expect(parseWorkspace("packages:\n  - packages/*\n  - 'services/*'\n  - gateway\nonlyBuiltDependencies:\n  - better-sqlite3\n")).toEqual(['packages/*', 'services/*', 'gateway']);
  });

  it('reads each importer\'s direct dependencies with kind, specifier and locked version, and every package of packages:', () => {
    const lock = parseLockfile(LOCK);
    expect([...lock.importers.keys()]).toEqual(['.', 'packages/auth']);
    expect(lock.importers.get('.')).toEqual([
      { name: '@typescript-eslint/parser', kind: 'devDependencies', specifier: '^8.73.0', version: '8.73.0(eslint@10.15.0)(typescript@5.9.3)' },
      { name: 'typescript', kind: 'devDependencies', specifier: '~5.9.3', version: '5.9.3' },
    ]);
    expect(lock.importers.get('packages/auth')).toHaveLength(4);
    expect(lock.packages).toEqual([
      { name: '@typescript-eslint/parser', version: '8.73.0' },
      { name: 'jsonwebtoken', version: '9.0.3' },
      { name: 'jws', version: '4.0.1' },
      { name: 'inflight', version: '1.0.6' },
    ]);
  });

  it('refuses a lockfile version it does not know', () => {
    expect(() => parseLockfile("lockfileVersion: '6.0'\n")).toThrow(/lockfileVersion/);
  });

  it('turns a locked version into the registry package it installs: peers dropped, aliases followed, links skipped', () => {
    expect(lockedPackage('x', '8.73.0(eslint@10.15.0)(typescript@5.9.3)')).toEqual({ name: 'x', version: '8.73.0' });
    expect(lockedPackage('string-width-cjs', 'string-width@4.2.3')).toEqual({ name: 'string-width', version: '4.2.3' });
    expect(lockedPackage('@s/n', '1.0.0-rc.1')).toEqual({ name: '@s/n', version: '1.0.0-rc.1' });
    expect(lockedPackage('@lantern/domain', 'link:../domain')).toBeNull();
    expect(lockedPackage('y', 'file:../y.tgz')).toBeNull();
  });

  it('builds the registry address of one version, a scoped name with %2f', () => {
    expect(manifestUrl('https://registry.npmjs.org/', '@types/node', '20.19.43')).toBe('https://registry.npmjs.org/@types%2fnode/20.19.43');
    expect(manifestUrl('https://r.example/npm', 'jws', '4.0.1')).toBe('https://r.example/npm/jws/4.0.1');
  });
});

describe('check-deps: what fails and what is listed', () => {
  const work = plan({ manifests, lock: parseLockfile(LOCK) });

  it('asks about direct dependencies at their locked versions, and about the rest as transitive', () => {
    expect(work.problems).toEqual([]);
    expect(work.direct.map((p: { name: string; version: string }) => `${p.name}@${p.version}`).sort()).toEqual(
      ['@typescript-eslint/parser@8.73.0', 'fsevents@2.3.3', 'jsonwebtoken@9.0.3', 'string-width@4.2.3', 'typescript@5.9.3']);
    expect(work.direct.find((p: { name: string }) => p.name === 'fsevents').importers).toEqual(['packages/auth (optionalDependencies)']);
    expect(work.transitive).toEqual([{ name: 'jws', version: '4.0.1' }, { name: 'inflight', version: '1.0.6' }]);
  });

  it('fails a deprecated direct dependency and only lists a deprecated transitive one', () => {
    const deprecated = new Map([['jsonwebtoken@9.0.3', 'use something else'], ['inflight@1.0.6', 'leaks memory']]);
    const { failures, listed } = decide(work, deprecated);
    expect(failures).toEqual([{ name: 'jsonwebtoken', version: '9.0.3', importers: ['packages/auth (dependencies)'], message: 'use something else' }]);
    expect(listed).toEqual([{ name: 'inflight', version: '1.0.6', message: 'leaks memory' }]);
  });

  it('fails nothing when only transitive packages, or none, are deprecated', () => {
    expect(decide(work, new Map([['jws@4.0.1', 'old']])).failures).toEqual([]);
    expect(decide(work, new Map())).toEqual({ failures: [], listed: [] });
  });

  it('names a package.json dependency that the lockfile does not hold (the lockfile is out of date)', () => {
    const stale = plan({ manifests: [{ dir: '.', manifest: { dependencies: { typescript: '~5.9.3' }, devDependencies: { leftpad: '1.0.0' } } }], lock: parseLockfile(LOCK) });
    expect(stale.problems).toEqual([
      './package.json: dependencies "typescript" is not in pnpm-lock.yaml\'s importer "." (run pnpm install)',
      './package.json: devDependencies "leftpad" is not in pnpm-lock.yaml\'s importer "." (run pnpm install)',
    ]);
  });
});

describe('check-deps: the script against a registry on 127.0.0.1 (a fixture workspace)', () => {
  const FIXTURE = fileURLToPath(new URL('./fixtures/check-deps', import.meta.url));
  const SCRIPT = fileURLToPath(new URL('../check-deps.mjs', import.meta.url));

  /** A registry answering each `/<name>/<version>` with a manifest, `deprecated` set for the given ones. */
  async function registry(deprecated: Record<string, string>, status = 200): Promise<{ url: string; asked: string[]; close(): Promise<void> }> {
    const asked: string[] = [];
    const server = createServer((req, res) => {
      const [name, version] = decodeURIComponent(req.url!.slice(1)).split('/');
      asked.push(`${name}@${version}`);
      if (status !== 200) return res.writeHead(status).end();
      const message = deprecated[`${name}@${version}`];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name, version, ...(message ? { deprecated: message } : {}) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/`, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  function run(url: string): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, [SCRIPT, '--root', FIXTURE, '--timeout-ms', '2000'], { env: { ...process.env, npm_config_registry: url } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }));
    });
  }

  const CANARY = { 'request@2.88.2': 'request has been deprecated' };

  it('exits 1 naming a deprecated direct dependency, lists a deprecated transitive one, and asks about every locked package', async () => {
    const r = await registry({ ...CANARY, 'left-pad@1.3.0': 'use String.prototype.padStart()', 'inflight@1.0.6': 'leaks memory' });
    try {
      const out = await run(r.url);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain('DEPRECATED direct dependency left-pad@1.3.0 (packages/a (dependencies)): use String.prototype.padStart()');
      expect(out.stdout).toContain('deprecated (transitive, listed): inflight@1.0.6: leaks memory');
      expect(out.stdout).toContain('2 direct and 1 transitive packages');
      expect(r.asked.sort()).toEqual(['inflight@1.0.6', 'left-pad@1.3.0', 'request@2.88.2', 'typescript@5.9.3']);
    } finally {
      await r.close();
    }
  });

  it('exits 0 when only a transitive package is deprecated, still listing it', async () => {
    const r = await registry({ ...CANARY, 'inflight@1.0.6': 'leaks memory' });
    try {
      const out = await run(r.url);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain('inflight@1.0.6: leaks memory');
      expect(out.stderr).not.toMatch(/DEPRECATED|WARNING/);
    } finally {
      await r.close();
    }
  });

  it('warns when the registry does not mark the canary deprecated (it passes no deprecation on)', async () => {
    const r = await registry({});
    try {
      const out = await run(r.url);
      expect(out.code).toBe(0);
      expect(out.stderr).toContain('WARNING');
      expect(out.stderr).toContain('could not have found one');
    } finally {
      await r.close();
    }
  });

  it('exits 2 and says so when the registry does not answer', async () => {
    const r = await registry({}, 503);
    try {
      const out = await run(r.url);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('did not answer after 3 attempts; nothing was decided');
    } finally {
      await r.close();
    }
  });
});
