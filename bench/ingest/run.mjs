#!/usr/bin/env node
// bench/ingest: drives POST /ingest/traces against the embedded Lantern (`pnpm start`, in a child process)
// with batches of 500 realistic spans (~400 bytes each) from 16 concurrent connections, and reports accepted
// spans/s and p50/p99 request latency, beside the rate of JSON.parse alone on the same bodies (the floor).
// Usage: pnpm bench:ingest [--seconds 20 --connections 16 --batch 500]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { initAccount } from '../../gateway/dist/index.js';

// `pnpm bench:ingest -- --seconds 5` hands the script a leading `--`, which parseArgs takes for the end of options.
const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16' },
    batch: { type: 'string', default: '500' },
    port: { type: 'string', default: '18080' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const batchSize = Number(values.batch);
const port = Number(values.port);

/** One request's worth of spans: 50 traces of 10 spans, like a busy service's flush. */
function makeBody() {
  const now = Date.now();
  const traces = [];
  for (let t = 0; t < batchSize / 10; t++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    for (let s = 0; s < 10; s++) {
      traces.push({
        traceId,
        spanId: s === 0 ? rootId : randomUUID(),
        parentSpanId: s === 0 ? null : rootId,
        timestamp: new Date(now - 1000 + s * 3).toISOString(),
        requestMethod: s === 0 ? 'controller:GET' : s % 3 === 0 ? 'external:payments-api' : 'service:loadCartItems',
        requestURL: `/api/v1/carts/${100000 + t}/items?expand=product&currency=EUR`,
        responseStatus: s === 0 && t % 20 === 0 ? 503 : 200,
        durationMs: s === 0 ? 120 + t : 5 + s,
        host: 'checkout-7d9f8b6c5-x2kqp',
        region: 'eu-central-1',
      });
    }
  }
  return JSON.stringify({ timestamp: new Date(now).toISOString(), traces });
}

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
}

async function waitForServer() {
  for (let i = 0; i < 200; i++) {
    const ok = await new Promise((resolve) => {
      http.get({ port, path: '/healthz' }, (res) => { res.resume(); resolve(res.statusCode === 200); }).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

const dataDir = await mkdtemp(join(os.tmpdir(), 'lantern-bench-'));
const env = { ...process.env, PORT: String(port), DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn' };
const account = await initAccount({ dataDir, jwtSecret: undefined, jwtTtlSeconds: 3600 }, { email: 'bench@example.com', password: 'bench-password', organization: 'bench', project: 'bench', application: 'bench' });
const server = spawn(process.execPath, ['gateway/dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'], cwd: new URL('../..', import.meta.url).pathname });
try {
  await waitForServer();
  const bodies = Array.from({ length: 32 }, makeBody);
  const avgSpanBytes = Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length / batchSize);

  // Floor: JSON.parse alone of the same bodies, for the same time budget (single core).
  let parsed = 0;
  const floorEnd = Date.now() + Math.min(5000, seconds * 1000);
  while (Date.now() < floorEnd) { JSON.parse(bodies[parsed % bodies.length]); parsed++; }
  const parseRate = (parsed * batchSize) / (Math.min(5000, seconds * 1000) / 1000);

  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let accepted = 0, failures = 0, n = 0;
  const end = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const body = bodies[n++ % bodies.length];
      const started = process.hrtime.bigint();
      const res = await new Promise((resolve) => {
        const req = http.request({ port, method: 'POST', path: '/ingest/traces', agent, headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey, 'content-length': Buffer.byteLength(body) } }, (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (c) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode, text }));
        });
        req.on('error', (e) => resolve({ status: 0, text: e.message }));
        req.end(body);
      });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status === 200) accepted += JSON.parse(res.text).accepted;
      else failures++;
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    settings: { seconds, connections, batchSize, avgSpanBytes },
    requests: latencies.length,
    failures,
    acceptedSpansPerSecond: Math.round(accepted / elapsed),
    p50Ms: Number(percentile(latencies, 0.5).toFixed(1)),
    p99Ms: Number(percentile(latencies, 0.99).toFixed(1)),
    jsonParseOnlySpansPerSecond: Math.round(parseRate),
  };
  console.log(JSON.stringify(result, null, 2));
  agent.destroy();
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await rm(dataDir, { recursive: true, force: true });
}
