// Abusive clients (issue 13): each case at full size against the embedded server as `pnpm start` runs it (its default
// timeouts and connection cap: docs/deploy.md, "Timeouts and connection limits"), while a probe asks /healthz every
// 50 ms and a well-behaved client ingests batches of new spans (its own application per case). Afterwards the spans
// each case's client had answered 200 are counted through the read API: nothing may be lost.
//
//   pnpm bench:abuse [--port 18700] [--only slowloris,idle,trickle,uploads,deep-json,login-flood] [--cpu-prof <dir>]
//                    [--nginx [--nginx-port 18750]]  (the clients through gateway/nginx.conf, the probe still on the server)
//
// Cases: 2,000 slowloris connections; 5,000 idle keep-alive connections; a 10 MiB upload trickled at 1 KB/s (cut by
// REQUEST_TIMEOUT_MS, 5 minutes: the longest case); 100 concurrent 10 MB uploads (the server's RSS sampled from /proc);
// JSON nested 100,000 deep (4 at a time for 10 s); 5,000 wrong-password logins at 50 at a time. Not a test: figures for docs/benchmarks.md.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { fork, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { post, ROOT, startLantern } from '../ingest/lantern.mjs';
import { concurrentUploads, deepJson, idleKeepAlive, loginFlood, slowloris, trickle } from './clients.mjs';

const { values: opt } = parseArgs({ options: {
  port: { type: 'string', default: '18700' }, only: { type: 'string' }, 'cpu-prof': { type: 'string' },
  nginx: { type: 'boolean', default: false }, 'nginx-port': { type: 'string', default: '18750' },
} });
/** The server's own port (the probe's), and where every other client goes: the server, or nginx in front of it. */
const port = Number(opt.port);
const front = opt.nginx ? Number(opt['nginx-port']) : port;
const PASSWORD = 'abuse-bench-password';
const HERE = dirname(fileURLToPath(import.meta.url));

function request(agent, method, path, token, body, to = front) {
  return new Promise((resolve) => {
    const headers = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) };
    const req = http.request({ host: '127.0.0.1', port: to, method, path, agent, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(body);
  });
}
async function json(agent, method, path, token, body) {
  const r = await request(agent, method, path, token, body && JSON.stringify(body));
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

/** A user with an organization, a project, one application (and API key) per case, and an AI tenant. */
async function tenancy(agent, cases) {
  const email = `abuse-${Date.now()}@example.com`;
  const { token } = await json(agent, 'POST', '/auth/register', null, { email, password: PASSWORD, name: 'abuse' });
  const org = await json(agent, 'POST', '/organizations', token, { name: 'abuse' });
  const project = await json(agent, 'POST', '/projects', token, { name: 'abuse', organizationId: org.id });
  const apps = {};
  for (const c of cases) {
    const app = await json(agent, 'POST', '/applications', token, { name: c, projectId: project.id });
    apps[c] = { id: app.id, apiKey: (await json(agent, 'POST', `/applications/${app.id}/api-keys`, token, { name: c })).key };
  }
  const tenant = await json(agent, 'POST', '/ai/tenant', token, { name: 'abuse', organizationId: org.id });
  return { email, token, projectId: project.id, apps, tenantId: tenant.id };
}

/**
 * /healthz every 50 ms on its own keep-alive connection, from a process of its own (probe.mjs): the abusive clients
 * share this process's event loop, and a probe timed here would count their wait as the server's. A refused or
 * failed probe counts as an error.
 */
async function probe() {
  const child = fork(join(HERE, 'probe.mjs'), [String(port)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('error', reject);
  });
  return () => new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the /healthz probe exited (${code}) without its figures`)));
    child.send('stop');
  });
}

/** Batches of 20 new root spans every 100 ms with the case's API key; the spans answered 200. */
function wellBehavedIngest(apiKey) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let accepted = 0;
  let refused = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      const now = new Date().toISOString();
      const traces = Array.from({ length: 20 }, (_, i) => ({ traceId: randomUUID(), spanId: randomUUID(), parentSpanId: null, timestamp: now,
        requestMethod: 'controller:GET', requestURL: `/api/items/${i}`, responseStatus: 200, durationMs: 5 + i }));
      const r = await post(agent, front, '/ingest/traces', { 'x-api-key': apiKey, 'content-type': 'application/json' }, JSON.stringify({ timestamp: now, traces }));
      if (r.status === 200) accepted += traces.length;
      else refused++;
      await new Promise((res) => setTimeout(res, Math.max(0, 100 - (performance.now() - t))));
    }
  })();
  return async () => {
    running = false;
    await loop;
    agent.destroy();
    return { accepted, refused };
  };
}

/** The server's resident set, sampled every 100 ms from /proc: before, peak, and VmHWM (the kernel's own peak). */
function memorySampler(pid) {
  const read = () => {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: Number(/VmRSS:\s+(\d+)/.exec(s)[1]) / 1024, hwm: Number(/VmHWM:\s+(\d+)/.exec(s)[1]) / 1024 };
  };
  const before = read();
  let peak = before.rss;
  const timer = setInterval(() => { peak = Math.max(peak, read().rss); }, 100);
  return () => {
    clearInterval(timer);
    const after = read();
    return { rssBeforeMb: Math.round(before.rss), rssPeakMb: Math.round(peak), rssAfterMb: Math.round(after.rss), vmHwmMb: Math.round(after.hwm) };
  };
}

/** Files and bytes under dir (the blob store), and those in its temp folder. */
function blobUsage(dir) {
  let files = 0;
  let bytes = 0;
  let temp = 0;
  const walk = (d, inTemp) => {
    let entries;
    try { entries = readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, inTemp || e.name === '.tmp');
      else if (inTemp) temp++;
      else { files++; bytes += statSync(p).size; }
    }
  };
  walk(dir, false);
  return { blobFiles: files, blobMb: Math.round(bytes / 1e6), tempFiles: temp };
}

/** Spans stored for an application, read back through the API (the embedded bus is in-process: a few tries). */
async function storedSpans(agent, t, applicationId, expected) {
  let n = -1;
  for (let i = 0; i < 30; i++) {
    const r = await request(agent, 'GET', `/logs/project?id=${t.projectId}&applicationId=${applicationId}`, t.token);
    n = r.status === 200 ? JSON.parse(r.text).reduce((sum, trace) => sum + trace.telemetry.length, 0) : n;
    if (n >= expected) return n;
    await new Promise((res) => setTimeout(res, 500));
  }
  return n;
}

/** scripts/infra/nginx.mjs (its state in LANTERN_INFRA_STATE, else the checkout's .infra). */
function nginx(...args) {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/infra/nginx.mjs'), ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`scripts/infra/nginx.mjs ${args[0]} failed`);
}

const CASES = {
  slowloris: () => slowloris(front, { n: 2000 }),
  idle: () => idleKeepAlive(front, { n: 5000 }),
  trickle: (t) => trickle(front, { token: t.token, tenantId: t.tenantId }),
  uploads: (t) => concurrentUploads(front, { token: t.token, tenantId: t.tenantId }, { n: 100 }),
  'deep-json': (t) => deepJson(front, t.apps['deep-json'].apiKey, { seconds: 10, concurrency: 4 }),
  'login-flood': (t, other) => loginFlood(front, { victimEmail: t.email, otherEmail: other.email, otherPassword: PASSWORD, total: 5000, concurrency: 50 }),
};

async function main() {
  const names = opt.only ? opt.only.split(',') : Object.keys(CASES);
  const dataDir = mkdtempSync(join(tmpdir(), 'lantern-abuse-'));
  // One trusted proxy, so the login flood can come from one address and the other user from another (X-Forwarded-For).
  // The limits of uploads and ingest raised so that they do not answer before the server's own bounds do; the
  // 100 uploads of one user wait their turn (2 at a time, the per-user share) rather than 503 after UPLOAD_WAIT_MS.
  const nodeArgs = opt['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${opt['cpu-prof']}`] : [];
  const lantern = await startLantern({ port, dataDir, nodeArgs, env: {
    LOG_LEVEL: 'warn', RATE_LIMIT_ENABLED: 'true', TRUST_PROXY: '1', STORAGE_QUOTA_BYTES: String(4 * 1024 ** 3),
    RATE_LIMIT_UPLOADS_PER_MINUTE: '10000', RATE_LIMIT_UPLOADS_ORGANIZATION_PER_MINUTE: '10000', UPLOAD_WAIT_MS: '600000',
    RATE_LIMIT_INGEST_PER_MINUTE: '100000', RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE: '100000', RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE: '1000000',
  } });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const rows = [];
  if (opt.nginx) nginx('start', '--port', String(front), '--upstreams', JSON.stringify(Object.fromEntries(['accounts', 'ingest', 'query', 'ai'].map((s) => [s, [`127.0.0.1:${port}`]]))));
  try {
    const t = await tenancy(agent, names);
    const other = { email: `abuse-other-${Date.now()}@example.com` };
    await json(agent, 'POST', '/auth/register', null, { email: other.email, password: PASSWORD, name: 'other' });
    console.log(`server pid ${lantern.server.pid}${opt.nginx ? `, clients through nginx on ${front}` : ''}, data in ${dataDir}; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    for (const name of names) {
      const stopProbe = await probe();
      const stopIngest = wellBehavedIngest(t.apps[name].apiKey);
      const stopMemory = memorySampler(lantern.server.pid);
      const t0 = performance.now();
      const result = await CASES[name](t, other);
      const seconds = (performance.now() - t0) / 1000;
      const [health, ingest, memory] = [await stopProbe(), await stopIngest(), stopMemory()];
      const stored = await storedSpans(agent, t, t.apps[name].id, ingest.accepted);
      const row = { name, seconds, result, health, ingest, stored, memory, blobs: blobUsage(join(dataDir, 'blobs')), load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  } finally {
    agent.destroy();
    if (opt.nginx) nginx('stop');
    await lantern.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const f = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
  console.log('\n| case | took | /healthz p50 / p99 / max (ms), failed | spans accepted / stored | server RSS before / peak / after (MB) | outcome |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    const lost = r.ingest.accepted - r.stored;
    console.log(`| ${r.name} | ${r.seconds.toFixed(0)} s | ${f(r.health.p50)} / ${f(r.health.p99)} / ${f(r.health.max)}, ${r.health.errors} | ${r.ingest.accepted} / ${r.stored}${lost ? ` (LOST ${lost})` : ''}${r.ingest.refused ? `, ${r.ingest.refused} refused` : ''} | ${r.memory.rssBeforeMb} / ${r.memory.rssPeakMb} / ${r.memory.rssAfterMb} | ${JSON.stringify(r.result)} |`);
  }
}

await main();
