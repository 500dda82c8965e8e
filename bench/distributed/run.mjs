#!/usr/bin/env node
// bench/distributed: spans/s from ingest to queryable, through nginx, with 1, 2 and 3 writer processes (Kafka,
// mongod and MinIO started by scripts/infra), and the embedded mode beside them; plus the lag from ingest's
// 200 to the span being readable (p50/p99), measured by probe spans sent during the load.
//   pnpm bench:distributed [--writers 1,2,3] [--seconds 20] [--connections 8] [--batch 200] [--no-embedded]
// JSON on stdout, progress and a Markdown table on stderr. Not a test: run it on a quiet machine.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, startCluster, startInfra } from '../../scripts/infra/cluster.mjs';
import { ROOT } from '../../scripts/infra/lib.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    writers: { type: 'string', default: '1,2,3' },
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '8' },
    batch: { type: 'string', default: '200' },
    'no-embedded': { type: 'boolean', default: false },
    // Spans/s offered in all (paced senders); without it every connection sends as fast as it is answered.
    rate: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const batchSize = Number(values.batch);
const rate = values.rate === undefined ? undefined : Number(values.rate);
const say = (m) => process.stderr.write(`[bench:distributed] ${m}\n`);
const pct = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Traces of 10 spans (one root), like a service's flush; every trace counts once in GET /metrics. */
function body(traces = batchSize / 10) {
  const now = Date.now();
  const spans = [];
  for (let t = 0; t < traces; t++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    for (let s = 0; s < 10; s++) {
      spans.push({
        traceId, spanId: s === 0 ? rootId : randomUUID(), parentSpanId: s === 0 ? null : rootId,
        timestamp: new Date(now - 1000 + s).toISOString(), requestMethod: s === 0 ? 'controller:GET' : 'service:loadCartItems',
        requestURL: `/api/v1/carts/${t}/items`, responseStatus: 200, durationMs: s === 0 ? 120 : 5,
      });
    }
  }
  return JSON.stringify({ timestamp: new Date(now).toISOString(), traces: spans });
}

async function api(url, path, { token, method = 'POST', json } = {}) {
  const res = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: json ? JSON.stringify(json) : undefined });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A user, organization, project, application and API key through the API. */
async function tenancy(url) {
  const { token } = await api(url, '/auth/register', { json: { email: `bench-${randomUUID().slice(0, 8)}@example.com`, password: 'bench password 123' } });
  const org = await api(url, '/organizations', { token, json: { name: 'bench' } });
  const project = await api(url, '/projects', { token, json: { name: 'bench', organizationId: org.id } });
  const app = await api(url, '/applications', { token, json: { name: 'bench', projectId: project.id } });
  const key = await api(url, `/applications/${app.id}/api-keys`, { token, json: { name: 'bench' } });
  return { token, projectId: project.id, apiKey: key.key };
}

/** Traces stored and readable, from GET /metrics (one entry span per trace). */
async function storedTraces(url, t, from) {
  const q = new URLSearchParams({ projectId: String(t.projectId), from: new Date(from).toISOString(), to: new Date(Date.now() + 60_000).toISOString() });
  const m = await api(url, `/metrics?${q}`, { token: t.token, method: 'GET' });
  return m.applications.reduce((n, a) => n + a.requests, 0);
}

async function measure(label, url) {
  const t = await tenancy(url);
  const from = Date.now() - 5000;
  let sentTraces = 0;
  let failed = 0;
  const lags = [];
  const started = Date.now();
  const end = started + seconds * 1000;
  const post = (b) => fetch(`${url}/ingest/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.apiKey }, body: b });
  // Every request carries new traces: the store is idempotent, so a repeated body would be stored once.
  // With --rate, each connection sends a batch every `interval` ms (its share of the rate).
  const interval = rate === undefined ? 0 : (batchSize * connections * 1000) / rate;
  const sender = async (i) => {
    for (let n = 0; Date.now() < end; n++) {
      if (interval > 0) {
        const due = started + (i / connections + n) * interval;
        if (due > Date.now()) await sleep(due - Date.now());
        if (Date.now() >= end) break;
      }
      const res = await post(body());
      await res.arrayBuffer();
      if (res.ok) sentTraces += batchSize / 10;
      else failed++;
    }
  };
  /** Every 500 ms: one probe trace; the time from ingest's 200 to the trace being readable. */
  const prober = async () => {
    const probes = [];
    while (Date.now() < end) {
      const traceBody = JSON.parse(body(1));
      const traceId = traceBody.traces[0].traceId;
      const res = await post(JSON.stringify(traceBody));
      await res.arrayBuffer();
      if (res.ok) {
        const acked = Date.now();
        probes.push((async () => {
          for (;;) {
            const r = await fetch(`${url}/logs/project?id=${t.projectId}&traceId=${traceId}`, { headers: { authorization: `Bearer ${t.token}` } });
            if (r.ok && (await r.json()).length > 0) return lags.push(Date.now() - acked);
            if (Date.now() - acked > 120_000) return lags.push(Infinity);
            await sleep(50);
          }
        })());
        sentTraces += 1;
      }
      await sleep(500);
    }
    await Promise.all(probes);
  };
  const probing = prober();
  await Promise.all(Array.from({ length: connections }, (_, i) => sender(i)));
  // The load's end: accepted spans/s is over the load only; the drain is what the writers needed after it.
  const ingestDone = Date.now();
  let stored = 0;
  // Polled every second: each count is a scan of the window, which is work for the store too.
  let storeErrors = 0;
  while (stored < sentTraces && Date.now() - ingestDone < 600_000) {
    try {
      stored = await storedTraces(url, t, from);
    } catch (err) {
      storeErrors++;
      say(`${label}: counting failed (${err.message.slice(0, 200)}); retrying`);
    }
    if (stored < sentTraces) await sleep(1000);
  }
  const allStored = Date.now();
  await probing;
  lags.sort((a, b) => a - b);
  const r = {
    label,
    acceptedSpansPerS: Math.round((sentTraces * 10) / ((ingestDone - started) / 1000)),
    queryableSpansPerS: Math.round((stored * 10) / ((allStored - started) / 1000)),
    drainMs: allStored - ingestDone,
    lagP50Ms: pct(lags, 0.5),
    lagP99Ms: pct(lags, 0.99),
    probes: lags.length,
    spans: sentTraces * 10,
    storedSpans: stored * 10,
    failedRequests: failed,
    countErrors: storeErrors,
  };
  say(`${label}: ${r.acceptedSpansPerS} spans/s accepted, ${r.queryableSpansPerS} spans/s queryable (drain ${r.drainMs} ms), lag p50 ${r.lagP50Ms} ms p99 ${r.lagP99Ms} ms, ${r.storedSpans}/${r.spans} stored, ${failed} failed requests`);
  return r;
}

async function embedded() {
  const dataDir = await mkdtemp(join(os.tmpdir(), 'lantern-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['gateway/dist/main.js'], { cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    await sleep(100);
  }
  try {
    return await measure('embedded (one process)', url);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dataDir, { recursive: true, force: true });
  }
}

const results = [];
say(`${seconds} s of load per setup, ${connections} connections, batches of ${batchSize} spans (10 per trace), ${rate === undefined ? 'as fast as answered' : `${rate} spans/s offered`}, through nginx; cores: ${os.cpus().length}`);
if (!values['no-embedded']) results.push(await embedded());
const writerCounts = values.writers.split(',').filter(Boolean).map(Number);
const infraEnv = writerCounts.length ? startInfra() : {};
for (const writers of writerCounts) {
  // API keys cached as in production (the tests turn the cache off to see revocations at once).
  const cluster = await startCluster({ counts: { writer: writers, ingest: 2 }, baseEnv: { ...process.env, ...infraEnv }, extraEnv: { API_KEY_CACHE_MS: '5000' } });
  try {
    results.push(await measure(`distributed, ${writers} writer${writers > 1 ? 's' : ''}`, cluster.url));
  } finally {
    await cluster.stop();
  }
}
process.stderr.write(`\n| setup | spans/s accepted | spans/s queryable | drain after load | lag p50 | lag p99 | stored / sent |\n|---|---:|---:|---:|---:|---:|---:|\n`);
for (const r of results) process.stderr.write(`| ${r.label} | ${r.acceptedSpansPerS} | ${r.queryableSpansPerS} | ${r.drainMs} ms | ${r.lagP50Ms} ms | ${r.lagP99Ms} ms | ${r.storedSpans} / ${r.spans} |\n`);
process.stdout.write(`${JSON.stringify({ date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, seconds, connections, batchSize, rate: rate ?? null, results }, null, 2)}\n`);
