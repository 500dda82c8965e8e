// Fairness (issue 18): one organization runs the heaviest reads the API allows over its own large project while
// another organization ingests and reads a little. Reports the other organization's latencies (p50, p99, max) and
// whether every span it sent was stored (counted in the database after the server stopped), plus what the heavy
// reads answered. Embedded: the server started as `pnpm start` runs it (bench/ingest/lantern.mjs), the other
// organization's spans counted in its database after it stopped. --distributed: every service its own process
// behind nginx on Kafka, mongod and MinIO (scripts/infra), the spans counted by reading them back.
//
//   pnpm bench:fairness [--spans 1000000] [--logs 100000] [--seconds 60] [--heavy 2] [--port 18480]
//                       [--server-root <checkout>]   (embedded: an older build for a before/after pair)
//                       [--distributed]               (with the checkout's own services)
// Not a test: run it on a quiet machine, before and after in turns.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, startInfra } from '../../scripts/infra/cluster.mjs';
import { Database, percentile, post, startLantern } from '../ingest/lantern.mjs';

const { values: opt } = parseArgs({
  options: {
    spans: { type: 'string', default: '1000000' },
    logs: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '60' },
    heavy: { type: 'string', default: '2' },
    port: { type: 'string', default: '18480' },
    'server-root': { type: 'string' },
    distributed: { type: 'boolean', default: false },
  },
});
let port = Number(opt.port);
const DAY = 86_400_000;

/** A request on 127.0.0.1 with the body read to its end; resolves { status, ms, bytes, text? }. */
function request(agent, method, path, headers = {}, body, keepText = false) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: body ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : headers }, (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (c) => { bytes += c.length; if (keepText) text += c; });
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, bytes, text }));
      res.on('error', () => resolve({ status: -1, ms: performance.now() - t0, bytes }));
    });
    req.on('error', (e) => resolve({ status: 0, ms: performance.now() - t0, bytes: 0, text: e.message }));
    req.end(body);
  });
}

async function json(agent, method, path, token, body) {
  const r = await request(agent, method, path, token ? { authorization: `Bearer ${token}` } : {}, body && JSON.stringify(body), true);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return JSON.parse(r.text);
}

/** A user with an organization, a project, an application and an API key, made over HTTP. */
async function tenancy(agent, name) {
  const { token } = await json(agent, 'POST', '/auth/register', null, { email: `${name}-${Date.now()}@example.com`, password: 'fairness-bench', name });
  const org = await json(agent, 'POST', '/organizations', token, { name });
  const project = await json(agent, 'POST', '/projects', token, { name, organizationId: org.id });
  const app = await json(agent, 'POST', '/applications', token, { name, projectId: project.id });
  const key = await json(agent, 'POST', `/applications/${app.id}/api-keys`, token, { name });
  return { token, projectId: project.id, applicationId: app.id, apiKey: key.key };
}

const rootSpan = (ts, i) => ({
  traceId: randomUUID(), spanId: randomUUID(), parentSpanId: null, timestamp: new Date(ts).toISOString(),
  requestMethod: 'controller:GET', requestURL: `/api/items/${i % 5000}`, responseStatus: i % 50 === 0 ? 500 : 200, durationMs: 5 + (i % 300),
});

/** `total` new root spans (or logs of about 1 KB) over the last 30 days, 4 requests in flight. */
async function load(agent, apiKey, kind, total) {
  const per = kind === 'spans' ? 500 : 1000;
  const now = Date.now();
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      const n = Math.min(per, total - sent);
      const first = sent;
      sent += n;
      const items = Array.from({ length: n }, (_, k) => {
        const i = first + k;
        const ts = now - Math.floor(((total - i) / total) * 30 * DAY);
        return kind === 'spans' ? rootSpan(ts, i) : { level: i % 20 ? 'info' : 'error', message: `request ${i} handled `.padEnd(1000, 'x'), timestamp: new Date(ts).toISOString() };
      });
      const body = JSON.stringify(kind === 'spans' ? { timestamp: new Date(now).toISOString(), traces: items } : { timestamp: new Date(now).toISOString(), logs: items });
      const r = await post(agent, port, `/ingest/${kind === 'spans' ? 'traces' : 'logs'}`, { 'x-api-key': apiKey, 'content-type': 'application/json' }, body);
      if (r.status !== 200) throw new Error(`loading ${kind}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** The heaviest reads the API allows, on the heavy user's own project. */
function heavyReads(h) {
  const now = Date.now();
  const from = new Date(now - 31 * DAY).toISOString();
  const to = new Date(now + 60_000).toISOString();
  const w = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  return [
    ['metrics 31 d', `/metrics?projectId=${h.projectId}&${w}`],
    ['traces 31 d, unpaged', `/logs/project?id=${h.projectId}&${w}`],
    ['traces, unpaged', `/logs/project?id=${h.projectId}`],
    ['traces url=zzzz limit=1', `/logs/project?id=${h.projectId}&url=zzzz&limit=1`],
    ['logs q=zzzz limit=1', `/ingest/logs?q=zzzz&limit=1`],
    ['logs 31 d, unpaged', `/ingest/logs?${w}`],
  ];
}

/** The embedded server: stored spans counted in its database once it has stopped. */
async function embedded() {
  const dataDir = mkdtempSync(join(tmpdir(), 'lantern-fairness-'));
  const lantern = await startLantern({ serverRoot: opt['server-root'], port, dataDir, env: { LOG_LEVEL: 'error' } });
  return {
    label: 'embedded',
    async storedSpans(applicationId) {
      await lantern.stop();
      return countOf(dataDir, applicationId);
    },
    async stop() {
      await lantern.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every service its own process behind nginx (2 ingest, 1 writer, 1 query...): stored spans read back through the API. */
async function distributed() {
  const cluster = await startCluster({ counts: { ingest: 2 }, baseEnv: { ...process.env, ...startInfra() }, extraEnv: { API_KEY_CACHE_MS: '5000', LOG_LEVEL: 'error' } });
  port = Number(new URL(cluster.url).port);
  return {
    label: 'distributed',
    async storedSpans(applicationId, projectId, token, sent) {
      // The writer stores behind ingest's 200: read back until all are there, or the count has not grown for 30 s.
      let last = -1;
      let since = performance.now();
      for (;;) {
        const r = await request(new http.Agent(), 'GET', `/logs/project?id=${projectId}&applicationId=${applicationId}`, { authorization: `Bearer ${token}` }, undefined, true);
        const n = r.status === 200 ? JSON.parse(r.text).reduce((sum, t) => sum + t.telemetry.length, 0) : last;
        if (n >= sent) return n;
        if (n > last) [last, since] = [n, performance.now()];
        else if (performance.now() - since > 30_000) return last;
        await new Promise((res) => setTimeout(res, 1000));
      }
    },
    /** Waits until the heavy organization's spans are all queryable (the writer drains Kafka), at most 10 minutes. */
    async settled(h, total) {
      const q = `/metrics?projectId=${h.projectId}&from=${encodeURIComponent(new Date(Date.now() - 31 * DAY).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`;
      for (let i = 0; i < 600; i++) {
        const r = await request(new http.Agent(), 'GET', q, { authorization: `Bearer ${h.token}` }, undefined, true);
        if (r.status === 200 && JSON.parse(r.text).applications.reduce((n, a) => n + a.requests, 0) >= total) return;
        await new Promise((res) => setTimeout(res, 1000));
      }
    },
    stop: () => cluster.stop(),
  };
}

async function main() {
  const server = opt.distributed ? await distributed() : await embedded();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  try {
    const heavy = await tenancy(agent, 'heavy');
    const other = await tenancy(agent, 'other');
    let t = performance.now();
    await load(agent, heavy.apiKey, 'spans', Number(opt.spans));
    await load(agent, heavy.apiKey, 'logs', Number(opt.logs));
    console.log(`loaded ${opt.spans} spans and ${opt.logs} logs in ${((performance.now() - t) / 1000).toFixed(0)} s (answered 200)`);
    if (server.settled) {
      await server.settled(heavy, Number(opt.spans));
      console.log(`all ${opt.spans} spans queryable after ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }

    const end = performance.now() + Number(opt.seconds) * 1000;
    const heavyAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const heavyStats = new Map();
    const reads = heavyReads(heavy);
    const heavyLoop = async (offset) => {
      for (let i = offset; performance.now() < end; i++) {
        const [name, path] = reads[i % reads.length];
        const r = await request(heavyAgent, 'GET', path, { authorization: `Bearer ${heavy.token}` });
        if (performance.now() >= end && r.status <= 0) break; // cut at the window's end, not an answer
        const s = heavyStats.get(name) ?? { n: 0, ms: [], statuses: new Set() };
        s.n++;
        s.ms.push(r.ms);
        s.statuses.add(r.status);
        heavyStats.set(name, s);
      }
    };
    const otherMs = { ingest: [], read: [], healthz: [] };
    let otherSent = 0;
    let otherFailed = 0;
    const otherLoop = async () => {
      while (performance.now() < end) {
        const tick = performance.now();
        const spans = Array.from({ length: 50 }, (_, k) => rootSpan(Date.now(), k));
        const ing = await request(agent, 'POST', '/ingest/traces', { 'x-api-key': other.apiKey }, JSON.stringify({ timestamp: new Date().toISOString(), traces: spans }));
        otherMs.ingest.push(ing.ms);
        if (ing.status === 200) otherSent += 50;
        else otherFailed++;
        otherMs.read.push((await request(agent, 'GET', `/logs/project?id=${other.projectId}&limit=20`, { authorization: `Bearer ${other.token}` })).ms);
        otherMs.healthz.push((await request(agent, 'GET', '/healthz')).ms);
        const wait = 100 - (performance.now() - tick);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    };
    // At the window's end the heavy reads still running are cut (their sockets destroyed), so a read that would hold
    // the server for minutes more does not stretch the run; the other organization's request then in flight finishes.
    const cut = setTimeout(() => heavyAgent.destroy(), end - performance.now());
    t = performance.now();
    await Promise.all([otherLoop(), ...Array.from({ length: Number(opt.heavy) }, (_, k) => heavyLoop(k * 3))]);
    const took = (performance.now() - t) / 1000;
    clearTimeout(cut);
    heavyAgent.destroy();
    const stored = await server.storedSpans(other.applicationId, other.projectId, other.token, otherSent);

    const row = (xs) => { const s = [...xs].sort((a, b) => a - b); return `${s.length} requests, p50 ${percentile(s, 0.5).toFixed(1)} ms, p99 ${percentile(s, 0.99).toFixed(1)} ms, max ${s[s.length - 1].toFixed(1)} ms`; };
    console.log(`\n${server.label}: the other organization, over ${took.toFixed(0)} s (the window is ${opt.seconds} s; a heavy read still running at its end delays it):`);
    for (const [k, xs] of Object.entries(otherMs)) console.log(`  ${k.padEnd(8)} ${row(xs)}`);
    const all = [...otherMs.ingest, ...otherMs.read, ...otherMs.healthz];
    console.log(`  all      ${row(all)}`);
    console.log(`  spans sent and answered 200: ${otherSent}; refused or failed requests: ${otherFailed}; stored: ${stored}`);
    console.log('\nthe heavy organization\'s reads:');
    for (const [name, s] of heavyStats) console.log(`  ${name.padEnd(26)} ${s.n} done, statuses ${[...s.statuses].join('/')}, ${row(s.ms)}`);
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** The other organization's spans in the database, read after the server stopped. */
function countOf(dataDir, applicationId) {
  const db = new Database(join(dataDir, 'lantern.db'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM spans WHERE application_id = ?').pluck().get(applicationId);
  } finally {
    db.close();
  }
}

await main();
