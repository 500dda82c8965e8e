// The embedded Lantern under a benchmark, shared by bench/ingest and bench/jaeger: `node gateway/dist/main.js` (as
// `pnpm start` runs it) in a child process on a data directory, an account made by that checkout's own
// `lantern init`, and the count of what is in its database (read after the server has stopped). Also the
// /proc readings both benches report. Node built-ins only (better-sqlite3 comes from packages/store).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const Database = createRequire(join(ROOT, 'packages/store/package.json'))('better-sqlite3');
/**
 * The Node options `pnpm start` gives the server (package.json's start script: `exec node <options>
 * gateway/dist/main.js`), so that a bench measures the server as it is run; a bench's own `nodeArgs` come after
 * them (the later of two V8 options wins).
 */
export const START_OPTIONS = (() => {
  const words = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start.split(' ').filter(Boolean);
  return words.slice(words.indexOf('node') + 1, words.indexOf('gateway/dist/main.js'));
})();

const TICK = 100; // USER_HZ on Linux
/** User + system CPU seconds of a process (all its threads), from /proc. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}
/** The process's peak resident set (VmHWM) in MB. */
export const peakRssMb = (pid) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
export const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

/** One POST on a keep-alive agent to 127.0.0.1; resolves with the status (0 for a connection error) and the body. */
export function post(agent, port, path, headers, body) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c) => (text += c));
      r.on('end', () => resolve({ status: r.statusCode, text }));
    });
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(body);
  });
}

/**
 * Makes an account in `dataDir` with the server checkout's own `lantern init` (so its schema is the one that server
 * runs), starts the server on 127.0.0.1 (HOST), and waits for /healthz. Returns { server, apiKey, before, count(), notSearchIndexed(),
 * stop() }: `before` is the count when it started, `count()` opens the database read-only (call it after `stop()` for
 * what was stored), `stop()` sends SIGTERM and waits for the exit.
 */
export async function startLantern({ serverRoot = ROOT, port, dataDir, env: extraEnv = {}, nodeArgs = [], table = 'spans' }) {
  const env = { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn', ...extraEnv };
  const init = spawnSync(process.execPath, ['gateway/dist/cli.js', 'init', '--email', `bench-${Date.now()}@example.com`, '--password', 'bench-password'], { cwd: serverRoot, env, encoding: 'utf8' });
  const apiKey = /^\s*API key\s+(\S+)\s*$/m.exec(init.stdout)?.[1];
  if (!apiKey) throw new Error(`lantern init failed: ${init.stderr}${init.stdout}`);
  const countSql = `SELECT count(*) FROM ${table === 'logs' ? 'logs' : 'spans'}`;
  const count = () => {
    const db = new Database(join(dataDir, 'lantern.db'), { readonly: true });
    try {
      return db.prepare(countSql).pluck().get();
    } finally {
      db.close();
    }
  };
  const before = count();
  /**
   * Logs stored and not yet in the log search index (filled after the write, on the writer thread), read while
   * the server runs; null for a build without that index.
   */
  const notSearchIndexed = () => {
    const db = new Database(join(dataDir, 'lantern.db'), { readonly: true });
    try {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'logs_fts_state'").get()) return null;
      return db.prepare('SELECT (SELECT coalesce(max(rowid), 0) FROM logs) - indexed_upto FROM logs_fts_state').pluck().get();
    } finally {
      db.close();
    }
  };
  const server = spawn(process.execPath, [...START_OPTIONS, ...nodeArgs, 'gateway/dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'], cwd: serverRoot });
  const stop = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  };
  try {
    await waitForHealthz(server, port);
  } catch (error) {
    await stop();
    throw error;
  }
  return { server, apiKey, before, count, notSearchIndexed, stop };
}

async function waitForHealthz(server, port) {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ok = await new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/healthz' }, (res) => { res.resume(); resolve(res.statusCode === 200); }).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}
