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
