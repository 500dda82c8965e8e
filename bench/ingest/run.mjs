#!/usr/bin/env node
// bench/ingest: the embedded Lantern (`node gateway/dist/main.js`, as `pnpm start` runs it, in a child process)
// under POST /ingest/traces or /ingest/logs from keep-alive connections. Every request carries new ids
// (bodies.mjs), and the figure is what was STORED, counted in the database after the server has stopped: a store
// that skips repeats cannot make the figure, and neither can a 200 that stored nothing.
//
//   pnpm bench:ingest                                 30 s of spans (8 connections, batches of 500)
//   pnpm bench:ingest -- --kind logs --batch 1000     log entries instead
//   pnpm bench:ingest -- --total 10000000             a growth run: until 10M are accepted, a rate per million
//   pnpm bench:ingest -- --repeat                     the old figure: 32 bodies re-sent (duplicates, labelled)
//   options: --connections 8 --batch 500 --data-dir DIR (kept) --env NAME=VALUE (server) --profile DIR (--cpu-prof)
//            --server-root DIR: the server of another built checkout (an older commit), under the same load
//
// Reports stored items/s, request p50/p99, the server's CPU (cores used) and peak RSS, and the load generator's
// own CPU (it shares the machine).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { logBody, spanBody } from './bodies.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    kind: { type: 'string', default: 'spans' },
    seconds: { type: 'string', default: '30' },
    total: { type: 'string' },
    connections: { type: 'string', default: '8' },
    batch: { type: 'string', default: '500' },
    port: { type: 'string', default: '18080' },
    repeat: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    profile: { type: 'string' },
    'server-root': { type: 'string' },
  },
});
const kind = values.kind === 'logs' ? 'logs' : 'spans';
const seconds = Number(values.seconds);
const total = values.total ? Number(values.total) : undefined;
const connections = Number(values.connections);
const batchSize = Number(values.batch);
const port = Number(values.port);
const makeBody = () => (kind === 'spans' ? spanBody(batchSize) : logBody(batchSize));
const path = kind === 'spans' ? '/ingest/traces' : '/ingest/logs';
const root = new URL('../..', import.meta.url).pathname;
const Database = createRequire(join(root, 'packages/store/package.json'))('better-sqlite3');

const TICK = 100; // USER_HZ on Linux
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICK;
}
const peakRssMb = (pid) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024);
const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);

async function waitForServer() {
  for (let i = 0; i < 600; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ok = await new Promise((resolve) => {
      http.get({ port, path: '/healthz' }, (res) => { res.resume(); resolve(res.statusCode === 200); }).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

function post(agent, apiKey, body) {
  return new Promise((resolve) => {
    const req = http.request({ port, method: 'POST', path, agent, headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'content-length': Buffer.byteLength(body) } }, (r) => {
      let text = '';
      r.setEncoding('utf8');
      r.on('data', (c) => (text += c));
      r.on('end', () => resolve({ status: r.statusCode, text }));
    });
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(body);
  });
}

const dataDir = values['data-dir'] ?? (await mkdtemp(join(os.tmpdir(), 'lantern-bench-')));
const extraEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn', ...extraEnv };
// The account is made by the server's own checkout (`lantern init`), so its schema is the one that server runs.
const serverRoot = values['server-root'] ?? root;
const init = spawnSync(process.execPath, ['gateway/dist/cli.js', 'init', '--email', `bench-${Date.now()}@example.com`, '--password', 'bench-password'], { cwd: serverRoot, env, encoding: 'utf8' });
const apiKey = /^\s*API key\s+(\S+)\s*$/m.exec(init.stdout)?.[1];
if (!apiKey) throw new Error(`lantern init failed: ${init.stderr}${init.stdout}`);
const account = { apiKey };
const countSql = kind === 'spans' ? 'SELECT count(*) FROM spans' : 'SELECT count(*) FROM logs';
const storedNow = () => { const db = new Database(join(dataDir, 'lantern.db'), { readonly: true }); try { return db.prepare(countSql).pluck().get(); } finally { db.close(); } };
const before = storedNow();
const nodeArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
const server = spawn(process.execPath, [...nodeArgs, 'gateway/dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'], cwd: serverRoot });
let result;
try {
  await waitForServer();
  const repeated = values.repeat ? Array.from({ length: 32 }, makeBody) : undefined;
  const sample = makeBody();
  const avgItemBytes = Math.round(sample.length / batchSize);

  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let accepted = 0, failures = 0, n = 0, nextMark = 1_000_000, lastMarkAt = Date.now(), lastMarkCount = 0;
  const perMillion = [];
  const t0 = Date.now();
  const end = total ? Infinity : t0 + seconds * 1000;
  const cpu0 = cpuSeconds(server.pid);
  const self0 = process.cpuUsage();
  const worker = async () => {
    while (Date.now() < end && (total === undefined || accepted < total)) {
      const body = repeated ? repeated[n++ % repeated.length] : makeBody();
      const started = process.hrtime.bigint();
      const res = await post(agent, account.apiKey, body);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status === 200) accepted += JSON.parse(res.text).accepted;
      else failures++;
      if (accepted >= nextMark) {
        const now = Date.now();
        perMillion.push({ million: nextMark / 1e6, perSecond: Math.round((accepted - lastMarkCount) / ((now - lastMarkAt) / 1000)) });
        lastMarkAt = now; lastMarkCount = accepted; nextMark += 1_000_000;
        if (total) process.stderr.write(`${accepted} accepted, ${perMillion.at(-1).perSecond}/s over the last million\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  const serverCpu = cpuSeconds(server.pid) - cpu0;
  const self = process.cpuUsage(self0);
  const rss = peakRssMb(server.pid);
  agent.destroy();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  const stored = storedNow() - before;
  latencies.sort((a, b) => a - b);
  result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    server: serverRoot,
    settings: { kind, seconds: total ? undefined : seconds, total, connections, batchSize, avgItemBytes, repeat: values.repeat, env: extraEnv },
    mode: values.repeat ? 'REPEATED bodies: after the first 32 requests every item is a duplicate the store skips' : 'new ids in every request',
    requests: latencies.length,
    failures,
    elapsedSeconds: Number(elapsed.toFixed(1)),
    accepted,
    stored,
    storedPerSecond: Math.round(stored / elapsed),
    p50Ms: Number(percentile(latencies, 0.5).toFixed(1)),
    p99Ms: Number(percentile(latencies, 0.99).toFixed(1)),
    serverCores: Number((serverCpu / elapsed).toFixed(2)),
    storedPerServerCpuSecond: Math.round(stored / serverCpu),
    serverPeakRssMb: rss,
    loadGeneratorCores: Number(((self.user + self.system) / 1e6 / elapsed).toFixed(2)),
    ...(perMillion.length ? { perMillion } : {}),
  };
} finally {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (!values['data-dir']) await rm(dataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(result, null, 2));
