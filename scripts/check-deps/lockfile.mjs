// The pure part of scripts/check-deps.mjs (no file system, no network): reading pnpm-workspace.yaml and a
// lockfile v9 (pnpm 9/10), and deciding what fails. A purpose-built reader of the few sections it needs, not a YAML
// parser: those sections are written by pnpm in one fixed shape (two-space indentation, one key per line).

const KINDS = ['dependencies', 'devDependencies', 'optionalDependencies'];

/** `'@scope/name'`, `name`, `"x"` → the bare key. */
function unquote(key) {
  const k = key.trim();
  return (k.startsWith("'") && k.endsWith("'")) || (k.startsWith('"') && k.endsWith('"')) ? k.slice(1, -1) : k;
}

/** Leading spaces of a line, and its `key:` / `key: value` if it is one. */
function line(text) {
  const indent = text.length - text.trimStart().length;
  const body = text.trim();
  if (body === '' || body.startsWith('#')) return { indent, key: undefined, value: undefined };
  // The key ends at the last ": " or a final ":" outside quotes; keys here never hold ": ".
  const at = body.endsWith(':') ? body.length - 1 : body.indexOf(': ');
  if (at === -1) return { indent, key: undefined, value: body };
  return { indent, key: unquote(body.slice(0, at)), value: body.slice(at + 1).trim() || undefined };
}

/** Splits `name@version` at the version's `@` (a scoped name starts with one). */
export function splitNameVersion(spec) {
  const at = spec.lastIndexOf('@');
  return at > 0 ? { name: spec.slice(0, at), version: spec.slice(at + 1) } : null;
}

/**
 * A locked `version:` of an importer's dependency → the registry package and version it installs, or null when it
 * is not from the registry (`link:` to a workspace package, `file:`, a tarball or git URL).
 * `8.73.0(eslint@10.15.0)` is 8.73.0 (the parenthesis holds peers); `string-width@4.2.3` is an `npm:` alias.
 */
export function lockedPackage(name, version) {
  const bare = version.replace(/\(.*$/, '');
  if (/^\d+\.\d+\.\d+(?:[-+][\w.+-]*)?$/.test(bare)) return { name, version: bare };
  const alias = splitNameVersion(bare);
  if (alias && /^\d+\.\d+\.\d+/.test(alias.version)) return alias;
  return null;
}

/** The `packages:` globs of pnpm-workspace.yaml. */
export function parseWorkspace(text) {
  const globs = [];
  let inPackages = false;
  for (const raw of text.split('\n')) {
    const { indent, key, value } = line(raw);
    if (indent === 0 && key !== undefined) inPackages = key === 'packages';
    else if (inPackages && value?.startsWith('- ')) globs.push(unquote(value.slice(2)));
    else if (inPackages && key === undefined && value?.startsWith('-')) globs.push(unquote(value.slice(1)));
  }
  return globs;
}

/**
 * The lockfile's importers (workspace directory → its direct dependencies, each with kind, specifier and locked
 * version) and every registry package of `packages:` (name and version).
 */
export function parseLockfile(text) {
  const importers = new Map();
  const packages = [];
  let section;
  let importer;
  let kind;
  let dep;
  for (const raw of text.split('\n')) {
    const { indent, key, value } = line(raw);
    if (key === undefined) continue;
    if (indent === 0) {
      section = key;
      if (section === 'lockfileVersion' && !String(unquote(value ?? '')).startsWith('9')) {
        throw new Error(`pnpm-lock.yaml: lockfileVersion ${value}, this reader knows 9.x (pnpm 9 and 10)`);
      }
      continue;
    }
    if (section === 'importers') {
      if (indent === 2) {
        importer = [];
        importers.set(key, importer);
        kind = undefined;
      } else if (indent === 4) kind = KINDS.includes(key) ? key : undefined;
      else if (indent === 6 && kind) {
        dep = { name: key, kind, specifier: undefined, version: undefined };
        importer.push(dep);
      } else if (indent === 8 && kind && dep && (key === 'specifier' || key === 'version')) dep[key] = unquote(value ?? '');
    } else if (section === 'packages' && indent === 2) {
      const pkg = splitNameVersion(key);
      if (pkg && /^\d+\.\d+\.\d+/.test(pkg.version)) packages.push(pkg);
    }
  }
  return { importers, packages };
}

/**
 * The registry packages to ask about: each workspace package's direct dependencies at their locked versions
 * (`direct`, the importers they come from), and every other package of the lockfile (`transitive`). A package.json
 * dependency missing from its importer is a `problem` (the lockfile is out of date).
 */
export function plan({ manifests, lock }) {
  const problems = [];
  const direct = new Map();
  for (const { dir, manifest } of manifests) {
    const locked = lock.importers.get(dir) ?? [];
    for (const kind of KINDS) {
      for (const name of Object.keys(manifest[kind] ?? {})) {
        const entry = locked.find((d) => d.name === name && d.kind === kind);
        if (!entry?.version) {
          problems.push(`${dir}/package.json: ${kind} "${name}" is not in pnpm-lock.yaml's importer "${dir}" (run pnpm install)`);
          continue;
        }
        const pkg = lockedPackage(name, entry.version);
        if (!pkg) continue; // a workspace link or a non-registry source
        const id = `${pkg.name}@${pkg.version}`;
        const seen = direct.get(id) ?? { ...pkg, importers: [] };
        seen.importers.push(`${dir} (${kind})`);
        direct.set(id, seen);
      }
    }
  }
  const transitive = lock.packages.filter((p) => !direct.has(`${p.name}@${p.version}`));
  return { direct: [...direct.values()], transitive, problems };
}

/** Given the registry's `deprecated` message per `name@version` (undefined: not deprecated), what fails and what is listed. */
export function decide({ direct, transitive }, deprecated) {
  const marked = (p) => deprecated.get(`${p.name}@${p.version}`);
  return {
    failures: direct.filter(marked).map((p) => ({ ...p, message: marked(p) })),
    listed: transitive.filter(marked).map((p) => ({ ...p, message: marked(p) })),
  };
}

/** The registry address of one version's manifest: `@scope/name` is `@scope%2fname`. */
export function manifestUrl(registry, name, version) {
  return `${registry.replace(/\/+$/, '')}/${name.replace('/', '%2f')}/${encodeURIComponent(version)}`;
}
