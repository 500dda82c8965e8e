// Shared by the scripts that start real servers for the distributed tests (kafka.mjs, mongo.mjs, minio.mjs,
// nginx.mjs): where downloads are cached, where a server's state lives, detached processes with a pid file and a
// log, and waiting for a port. Node built-ins only.
import { spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Downloads and builds, kept between runs (and between clones): LANTERN_INFRA_CACHE or ~/.cache/lantern-infra. */
export const CACHE = resolve(process.env.LANTERN_INFRA_CACHE || join(homedir(), '.cache', 'lantern-infra'));
/** Data, logs, pid files and endpoints of running servers: LANTERN_INFRA_STATE or <repo>/.infra. */
export const STATE = resolve(process.env.LANTERN_INFRA_STATE || join(ROOT, '.infra'));

export const log = (name, message) => process.stderr.write(`[infra:${name}] ${message}\n`);

export function stateDir(name) {
  const dir = join(STATE, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A port from the environment variable `envName`, else `fallback`. */
export function portFrom(envName, fallback) {
  const raw = process.env[envName];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`${envName} must be a port number (got "${raw}")`);
  return n;
}

/** Resolves when something accepts TCP connections on host:port, or rejects after `timeoutMs`. */
export async function waitForPort(port, { host = '127.0.0.1', timeoutMs = 60_000, name = 'server', logFile } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect({ host, port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`${name} did not open ${host}:${port} within ${timeoutMs} ms${logFile ? ` (log: ${logFile})` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts `command` detached, output to `<state>/<name>.log`; `<state>/<name>.process` holds the pid and the
 * command (not a `.pid` file: nginx writes its own), so a file left behind (a reboot, a crash) is recognised as
 * stale rather than naming whatever process has that pid now. Returns the pid.
 */
export function startDetached(name, command, args, { cwd, env } = {}) {
  const dir = stateDir(name);
  const logFile = join(dir, `${name}.log`);
  const out = openSync(logFile, 'a');
  const child = spawn(command, args, { cwd: cwd ?? dir, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', out, out] });
  child.unref();
  writeFileSync(join(dir, `${name}.process`), `${child.pid}\n${command}\n`);
  return { pid: child.pid, logFile };
}

/** The command line of a live process, or undefined (gone, or a zombie). Linux /proc. */
function commandOf(pid) {
  try {
    if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return undefined;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined;
  }
}

/** The pid of the server `name` started, if that process still runs that command; else undefined (stale file). */
export function readPid(name) {
  let text;
  try {
    text = readFileSync(join(STATE, name, `${name}.process`), 'utf8');
  } catch {
    return undefined;
  }
  const [first, command] = text.split('\n');
  const pid = Number(first);
  if (!Number.isInteger(pid) || pid <= 0 || !command) return undefined;
  const argv = commandOf(pid);
  // Containment, not equality: nginx rewrites its title to `nginx: master process /usr/sbin/nginx …`.
  return argv !== undefined && argv.join(' ').includes(command) ? pid : undefined;
}

export function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return commandOf(pid) !== undefined; // a zombie answers kill(0) but runs nothing
}

/** Stops the server's process group: SIGTERM (or `signal`), then SIGKILL after `graceMs`. */
export async function stopDetached(name, { signal = 'SIGTERM', graceMs = 15_000 } = {}) {
  const pid = readPid(name);
  if (pid === undefined || !isAlive(pid)) {
    rmSync(join(STATE, name, `${name}.process`), { force: true });
    return false;
  }
  const kill = (sig) => {
    try {
      process.kill(-pid, sig); // the whole group: wrappers and the JVM they started
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        // gone
      }
    }
  };
  kill(signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) kill('SIGKILL');
  rmSync(join(STATE, name, `${name}.process`), { force: true });
  return true;
}

/** What a started server tells the tests (URL, ports), in `<state>/<name>/endpoint.json`. */
export function writeEndpoint(name, endpoint) {
  writeFileSync(join(stateDir(name), 'endpoint.json'), `${JSON.stringify(endpoint, null, 2)}\n`);
}

export function readEndpoint(name) {
  try {
    return JSON.parse(readFileSync(join(STATE, name, 'endpoint.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** `node scripts/infra/<name>.mjs start|stop|status`: runs the matching function of `commands`. */
export async function main(name, commands) {
  const verb = process.argv[2];
  const run = commands[verb];
  if (!run) {
    process.stderr.write(`usage: node scripts/infra/${name}.mjs ${Object.keys(commands).join('|')}\n`);
    process.exit(2);
  }
  try {
    const result = await run(process.argv.slice(3));
    if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (error) {
    log(name, `${verb} failed: ${error?.message ?? error}`);
    process.exit(1);
  }
}

function readLockOwner(lock) {
  try {
    return Number(readFileSync(join(lock, 'pid'), 'utf8')) || 0;
  } catch {
    return 0; // between the lock's mkdir and its pid file, or just removed
  }
}

/**
 * Runs `fn` holding the lock directory `<dir>/build.lock`, so two concurrent runs do not build (and rename) the
 * same binary at the same time; a lock left by a process that died is taken over. `name` names the server in logs.
 */
export async function withBuildLock(dir, name, fn) {
  const lock = join(dir, 'build.lock');
  mkdirSync(dir, { recursive: true });
  for (let waited = 0; ; waited += 1) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = readLockOwner(lock);
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if ((owner > 0 && !isAlive(owner)) || (owner === 0 && age > 10_000)) {
        rmSync(lock, { recursive: true, force: true }); // left by a build that died
        continue;
      }
      if (waited % 30 === 0) log(name, `another process (pid ${owner}) is building it; waiting`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
