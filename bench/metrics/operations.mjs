#!/usr/bin/env node
// bench/metrics/operations.mjs: GET /metrics/operations on the embedded store (SQLite, a file), with the built
// packages. Writes `--requests` requests (default 1M, an entry span and a child each, new ids) over the last hour,
// over `--apps` applications of one project, each request under one of `--operations` route names of its
// application (default 30); with `--raw-urls`, one more application names every request by its raw URL
// (`GET /orders/<n>`), so its hours keep 200 names and count the rest as the other operations. Then times the read
// (store + report) of the last hour, p50/p99 over `--runs`, and after copying the hour's rollup rows to each earlier
// hour of `--days` days (the same load for that long), 24 h and 7 d. Prints what the reads counted.
// Each request of the k-th application (k >= 1) is a call from the (k-1)-th: its entry span's parent is a client span
// the caller sends after it (so every call goes through the waiting path); GET /metrics/services is timed too.
// Usage: node bench/metrics/operations.mjs [--requests 1000000 --apps 4 --operations 30 --raw-urls --days 7 --runs 10]
//        [--write-only [--store <checkout>/packages/store/dist/index.js]]
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { metricsWindow, operationsWindow, operationsReport, serviceMapReport } from '../../services/query/dist/index.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '4' },
    operations: { type: 'string', default: '30' },
    'raw-urls': { type: 'boolean', default: false },
    days: { type: 'string', default: '7' },
    runs: { type: 'string', default: '10' },
    // Only the writes, through the store of another build (`<checkout>/packages/store/dist/index.js`): a side-by-side
    // of what the rollups cost the writer.
    'write-only': { type: 'boolean', default: false },
    store: { type: 'string', default: '../../packages/store/dist/index.js' },
  },
});
const { openSqliteStore } = await import(new URL(values.store, import.meta.url).href);
const Database = createRequire(new URL('../../packages/store/package.json', import.meta.url))('better-sqlite3');
const HOUR = 3_600_000;
const log = (...a) => console.error(...a);
const ms = (t) => Math.round(t * 10) / 10;

const dir = await mkdtemp(join(os.tmpdir(), 'lantern-bench-operations-'));
const file = join(dir, 'lantern.db');
let store = await openSqliteStore({ file });
const user = await store.createUser({ email: `bench-${randomUUID()}@example.test`, name: 'bench', passwordHash: 'x' });
const org = await store.createOrganization({ name: 'bench', ownerId: user.id });
const project = await store.createProject({ name: 'bench', organizationId: org.id });
const apps = [];
for (let i = 0; i < Number(values.apps) + (values['raw-urls'] ? 1 : 0); i++) apps.push(await store.createApplication({ name: `app-${i}`, projectId: project.id }));
const raw = values['raw-urls'] ? apps.at(-1) : undefined;

const requests = Number(values.requests);
const operations = Number(values.operations);
const now = Date.now();
const start = now - HOUR;
let written = 0;
const t0 = performance.now();
const batchOf = (app, spans) => ({ kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: new Date().toISOString(), spans });
for (let b = 0; written < requests; b++) {
  const k = b % apps.length;
  const app = apps[k];
  const caller = k >= 1 && app !== raw ? apps[k - 1] : undefined;
  const spans = [];
  const callers = [];
  for (let i = 0; i < 250 && written < requests; i++, written++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    const at = start + Math.floor((written / requests) * HOUR);
    const duration = 5 + Math.floor(Math.random() * Math.random() * 2000);
    const method = app === raw ? `controller:GET /orders/${written}` : `controller:GET /api/route-${written % operations}/:id`;
    const clientId = caller ? randomUUID() : null;
    if (caller) callers.push({ traceId, spanId: clientId, parentSpanId: null, timestamp: new Date(at - 1).toISOString(), requestMethod: 'external:call', durationMs: duration + 1 });
    spans.push({ traceId, spanId: rootId, parentSpanId: clientId, timestamp: new Date(at).toISOString(), requestMethod: method,
      responseStatus: written % 50 === 0 ? 503 : 200, durationMs: duration });
    spans.push({ traceId, spanId: randomUUID(), parentSpanId: rootId, timestamp: new Date(at + 1).toISOString(),
      requestMethod: 'service:load', durationMs: Math.max(1, duration - 3) });
  }
  await store.writeSpans(batchOf(app, spans));
  if (caller) await store.writeSpans(batchOf(caller, callers));
}
const report = { date: new Date().toISOString(), node: process.version, cpus: `${os.cpus().length} x ${os.cpus()[0]?.model}`,
  data: { requests, apps: apps.length, operationsPerApp: operations, rawUrls: values['raw-urls'], writeSeconds: ms((performance.now() - t0) / 1000) } };
log('data', report.data);
if (values['write-only']) {
  await store.close();
  await rm(dir, { recursive: true, force: true });
  console.log(JSON.stringify(report, null, 2));
  process.exit(0);
}

async function timed(name, window) {
  const times = [];
  const reads = [];
  let result;
  for (let i = 0; i < Number(values.runs); i++) {
    const t = performance.now();
    const cells = await store.readMetrics({ userId: user.id, ...window, byOperation: true });
    reads.push(performance.now() - t);
    result = operationsReport(cells, window, { limit: 100, now: Date.now() });
    times.push(performance.now() - t);
  }
  const p50 = (list) => ms(list.sort((a, b) => a - b)[Math.floor(list.length / 2)]);
  report[name] = { bucketMs: window.bucketMs, p50Ms: p50(times), p99Ms: ms(times.at(-1)), storeP50Ms: p50(reads),
    operations: result.total, requests: result.operations.reduce((n, o) => n + o.requests, 0) };
  log(name, report[name]);
}

const end = now + 1;
async function timedMap(name, window) {
  const times = [];
  let result;
  for (let i = 0; i < Number(values.runs); i++) {
    const t = performance.now();
    const whole = { userId: user.id, projectId: project.id, from: window.from, to: window.to, bucketMs: window.to - window.from };
    const [entries, calls] = await Promise.all([store.readMetrics(whole), store.readMetrics({ ...whole, byCaller: true })]);
    result = serviceMapReport(entries, calls, window);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  report[name] = { p50Ms: ms(times[Math.floor(times.length / 2)]), p99Ms: ms(times.at(-1)), nodes: result.nodes.length,
    edges: result.edges.map((e) => `${e.callerApplicationId}->${e.calleeApplicationId}: ${e.calls}`).join(', ') };
  log(name, report[name]);
}

await timed('hour', operationsWindow(undefined, end, end));
await timedMap('mapHour', metricsWindow(undefined, end, end));
// History: the hour's rows (minute and hour) copied to each earlier hour of `--days` days.
await store.close();
const db = new Database(file);
const copy = (table, start, extra) => db.prepare(`INSERT OR IGNORE INTO ${table} SELECT project_id, ${start} - ?, application_id${extra}, requests, errors, sketch
  FROM ${table} WHERE ${start} >= ?`);
const copies = [['operation_rollups', 'minute', ', operation'], ['operation_rollups_hourly', 'hour', ', operation'], ['metric_rollups', 'minute', ''],
  ['metric_rollups_hourly', 'hour', ''], ['call_rollups', 'minute', ', caller_id'], ['call_rollups_hourly', 'hour', ', caller_id']].map((a) => copy(...a));
db.transaction(() => {
  for (let h = 1; h < Number(values.days) * 24; h++) for (const c of copies) c.run(h * HOUR, start - (start % HOUR));
})();
report.history = { days: Number(values.days), minuteRows: db.prepare('SELECT count(*) FROM operation_rollups').pluck().get(),
  hourRows: db.prepare('SELECT count(*) FROM operation_rollups_hourly').pluck().get() };
db.close();
store = await openSqliteStore({ file });
await timed('day', operationsWindow(end - 24 * HOUR, end, end));
await timed('week', operationsWindow(end - 7 * 24 * HOUR, end, end));
await timedMap('mapDay', metricsWindow(end - 24 * HOUR, end, end));
await timedMap('mapWeek', metricsWindow(end - 7 * 24 * HOUR, end, end));
await store.close();
await rm(dir, { recursive: true, force: true });
console.log(JSON.stringify(report, null, 2));
