#!/usr/bin/env node
// bench/metrics: GET /metrics from the per-minute rollups against the old path (every entry span of the window
// streamed and aggregated in memory), on the embedded store (SQLite, a file), with the built packages.
//  1. Write rate: `writeSpans` batches of 500 new spans (50 traces of 10 spans) into a fresh store, spans/s.
//     `--store <dir>/packages/store/dist/index.js` measures another build the same way (before the rollups).
//  2. Writes `--requests` requests (default 1M) over the last hour with new ids: per request an entry span and a
//     child span, over `--apps` applications of one project; then times the metrics read (store + report) for
//     the last hour and the last 24 h, p50/p99 over `--runs` runs, and the old path for the hour.
//  3. History: copies the hour's rollup rows to every earlier hour of `--days` days (default 7: what the same load
//     for that long leaves; its spans are not written), rebuilds the hour rows from the minute rows where the build
//     keeps them (what its writes would have left), then times 24 h, 7 d and 30 d (if the history covers it) again.
// Usage: pnpm bench:metrics [-- --requests 1000000 --apps 4 --runs 20 --days 7 --write-only --store <path>]
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { QuantileSketch } from '../../packages/domain/dist/index.js';
import { metricsReport, metricsWindow } from '../../services/query/dist/index.js';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    requests: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '4' },
    runs: { type: 'string', default: '20' },
    days: { type: 'string', default: '7' },
    'write-batches': { type: 'string', default: '400' },
    'write-only': { type: 'boolean', default: false },
    'old-runs': { type: 'string', default: '3' },
    store: { type: 'string', default: '../../packages/store/dist/index.js' },
    // Reads only, on a database an earlier run wrote (and kept with --keep): steps 2 (reads) and 3.
    reuse: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const { openSqliteStore } = await import(new URL(values.store, import.meta.url).href);
// better-sqlite3 is the store package's dependency: resolved from there (for the history copy in step 3).
const Database = createRequire(new URL('../../packages/store/package.json', import.meta.url))('better-sqlite3');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const log = (...a) => console.error(...a);
const ms = (t) => Math.round(t * 10) / 10;
const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];

async function openFresh() {
  const dir = await mkdtemp(join(os.tmpdir(), 'lantern-bench-metrics-'));
  const file = join(dir, 'lantern.db');
  const store = await openSqliteStore({ file });
  const user = await store.createUser({ email: `bench-${randomUUID()}@example.test`, name: 'bench', passwordHash: 'x' });
  const org = await store.createOrganization({ name: 'bench', ownerId: user.id });
  const project = await store.createProject({ name: 'bench', organizationId: org.id });
  const apps = [];
  for (let i = 0; i < Number(values.apps); i++) apps.push(await store.createApplication({ name: `app-${i}`, projectId: project.id }));
  return { dir, file, store, user, project, apps };
}

/** A database an earlier run wrote: its user, applications and newest span time, read from the file. */
async function openKept(file) {
  const db = new Database(file, { readonly: true });
  const userId = db.prepare('SELECT id FROM users LIMIT 1').pluck().get();
  const apps = db.prepare('SELECT id, project_id AS projectId FROM applications ORDER BY id').all();
  const newest = db.prepare('SELECT max(minute) FROM metric_rollups').pluck().get() + MINUTE - 1;
  db.close();
  return { dir: null, file, store: await openSqliteStore({ file }), user: { id: userId }, apps, newest };
}

const batchOf = (app, spans) => ({ kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: new Date().toISOString(), spans });

function span(traceId, spanId, parentSpanId, at, method, durationMs, status) {
  return { traceId, spanId, parentSpanId, timestamp: new Date(at).toISOString(), requestMethod: method, requestURL: '/api/v1/carts/42/items',
    responseStatus: status, durationMs, host: 'checkout-7d9f8b6c5-x2kqp' };
}

/** 1. writeSpans rate: 50 traces of 10 spans per batch, all new, into a fresh store. */
async function writeRate() {
  const w = await openFresh();
  const batches = Number(values['write-batches']);
  const now = Date.now();
  const make = () => {
    const spans = [];
    for (let t = 0; t < 50; t++) {
      const traceId = randomUUID();
      const rootId = randomUUID();
      for (let s = 0; s < 10; s++) {
        spans.push(span(traceId, s === 0 ? rootId : randomUUID(), s === 0 ? null : rootId, now - 1000 + s * 3,
          s === 0 ? 'controller:GET' : 'service:loadCartItems', s === 0 ? 120 + t : 5 + s, s === 0 && t % 20 === 0 ? 503 : 200));
      }
    }
    return spans;
  };
  for (let i = 0; i < 20; i++) await w.store.writeSpans(batchOf(w.apps[0], make())); // warm-up
  const prepared = Array.from({ length: batches }, () => make());
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const spans of prepared) await w.store.writeSpans(batchOf(w.apps[0], spans));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // CPU time of this process (user + system): less sensitive than wall time to other work on the machine.
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await w.store.close();
  await rm(w.dir, { recursive: true, force: true });
  return { spans: batches * 500, seconds: ms(seconds), spansPerSecond: Math.round((batches * 500) / seconds),
    cpuSeconds: ms(cpuSeconds), spansPerCpuSecond: Math.round((batches * 500) / cpuSeconds) };
}

/** The old path: every entry span of the window streamed, aggregated per application and bucket in memory. */
async function oldRead(store, userId, window) {
  const apps = new Map();
  for await (const row of store.streamRootSpans({ userId, from: window.from, to: window.to })) {
    let app = apps.get(row.applicationId);
    if (!app) apps.set(row.applicationId, (app = { total: new QuantileSketch(), errors: 0, series: new Map() }));
    app.total.add(row.durationMs);
    if ((row.responseStatus ?? 0) >= 500) app.errors++;
    const b = Math.floor((row.ts - window.from) / window.bucketMs);
    let s = app.series.get(b);
    if (!s) app.series.set(b, (s = new QuantileSketch()));
    s.add(row.durationMs);
  }
  return [...apps.values()].map((a) => ({ requests: a.total.count, p99: a.total.quantile(0.99), buckets: [...a.series.values()].map((s) => s.quantile(0.99)) }));
}

async function newRead(store, userId, window) {
  return metricsReport(await store.readMetrics({ userId, ...window }), window);
}

async function time(runs, fn) {
  const times = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { runs, p50Ms: ms(quantile(times, 0.5)), p99Ms: ms(quantile(times, 0.99)), result };
}

const report = { date: new Date().toISOString(), node: process.version, cpus: `${os.cpus().length} x ${os.cpus()[0]?.model}`, store: values.store };
if (!values.reuse) {
  report.writeRate = await writeRate();
  log('write rate', report.writeRate);
}
if (values['write-only']) {
  console.log(JSON.stringify(report, null, 2));
  process.exit(0);
}

const w = values.reuse ? await openKept(values.reuse) : await openFresh();
const requests = Number(values.requests);
const now = Date.now();
const start = now - HOUR;
const perBatch = 250; // requests per batch: 500 spans
let written = values.reuse ? requests : 0;
const t0 = performance.now();
for (let b = 0; written < requests; b++) {
  const app = w.apps[b % w.apps.length];
  const spans = [];
  for (let i = 0; i < perBatch && written < requests; i++, written++) {
    const traceId = randomUUID();
    const rootId = randomUUID();
    const at = start + Math.floor((written / requests) * HOUR);
    const duration = 5 + Math.floor(Math.random() * Math.random() * 2000);
    spans.push(span(traceId, rootId, null, at, 'controller:GET', duration, written % 50 === 0 ? 503 : 200));
    spans.push(span(traceId, randomUUID(), rootId, at + 1, 'service:loadCartItems', Math.max(1, duration - 3), 200));
  }
  await w.store.writeSpans(batchOf(app, spans));
}
report.data = values.reuse ? { reused: values.reuse, apps: w.apps.length }
  : { requests, spans: requests * 2, apps: w.apps.length, writeSeconds: ms((performance.now() - t0) / 1000) };
log('data', report.data);

const runs = Number(values.runs);
const userId = w.user.id;
// The windows end at the newest span: a reused database was written some time ago.
const end = values.reuse ? w.newest + 1 : Date.now();
const hour = metricsWindow(undefined, end, end);
const day = metricsWindow(end - 24 * HOUR, end, end);
const week = metricsWindow(end - 7 * 24 * HOUR, end, end);
const summary = (t) => ({ runs: t.runs, p50Ms: t.p50Ms, p99Ms: t.p99Ms });
const counted = (r) => r.applications.reduce((n, a) => n + a.requests, 0);

const newHour = await time(runs, () => newRead(w.store, userId, hour));
report.newHour = { ...summary(newHour), bucketMs: hour.bucketMs, requests: counted(newHour.result) };
log('new 1 h', report.newHour);
const newDay = await time(runs, () => newRead(w.store, userId, day));
report.newDayDataOnlyInLastHour = { ...summary(newDay), bucketMs: day.bucketMs, requests: counted(newDay.result) };
log('new 24 h (data in the last hour only)', report.newDayDataOnlyInLastHour);
if (Number(values['old-runs']) > 0) {
  const oldHour = await time(Number(values['old-runs']), () => oldRead(w.store, userId, hour));
  report.oldHour = { ...summary(oldHour), requests: oldHour.result.reduce((n, a) => n + a.requests, 0) };
  log('old 1 h', report.oldHour);
}

// 3. History: the hour's rollup rows copied to each of the earlier hours of `--days` days (the same load).
await w.store.close();
const db = new Database(w.file);
const hoursBack = Number(values.days) * 24;
const copied = db.prepare(`INSERT OR IGNORE INTO metric_rollups (project_id, minute, application_id, requests, errors, sketch)
  SELECT project_id, minute - ?, application_id, requests, errors, sketch FROM metric_rollups WHERE minute >= ?`);
db.transaction(() => {
  for (let h = 1; h < hoursBack; h++) copied.run(h * HOUR, hour.from);
})();
report.history = { days: Number(values.days), rollupRows: db.prepare('SELECT count(*) AS n FROM metric_rollups').get().n };
// A build with hour rows (metric_rollups_hourly): each the sum of its hour's minute rows, as its writes keep them.
if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'metric_rollups_hourly'").get()) {
  const put = db.prepare('INSERT INTO metric_rollups_hourly (project_id, hour, application_id, requests, errors, sketch) VALUES (?, ?, ?, ?, ?, ?)');
  const cells = new Map();
  for (const r of db.prepare('SELECT project_id AS p, minute, application_id AS a, requests, errors, sketch FROM metric_rollups').iterate()) {
    const h = Math.floor(r.minute / HOUR) * HOUR;
    const key = `${r.p}:${r.a}:${h}`;
    let c = cells.get(key);
    if (!c) cells.set(key, (c = { p: r.p, a: r.a, h, requests: 0, errors: 0, sketch: new QuantileSketch() }));
    c.requests += r.requests;
    c.errors += r.errors;
    if (typeof r.sketch === 'string') c.sketch.mergeArray(JSON.parse(r.sketch));
    else c.sketch.mergeEncoded(r.sketch);
  }
  db.transaction(() => {
    db.prepare('DELETE FROM metric_rollups_hourly').run();
    for (const c of cells.values()) put.run(c.p, c.h, c.a, c.requests, c.errors, c.sketch.encode());
  })();
  report.history.hourRows = cells.size;
}
db.close();
const store2 = await openSqliteStore({ file: w.file });
const fullDay = await time(runs, () => newRead(store2, userId, day));
report.newDay = { ...summary(fullDay), bucketMs: day.bucketMs, requests: counted(fullDay.result) };
log('new 24 h', report.newDay);
const fullWeek = await time(runs, () => newRead(store2, userId, week));
report.newWeek = { ...summary(fullWeek), bucketMs: week.bucketMs, requests: counted(fullWeek.result) };
log('new 7 d', report.newWeek);
if (Number(values.days) >= 30) {
  const month = metricsWindow(end - 30 * 24 * HOUR, end, end);
  const fullMonth = await time(runs, () => newRead(store2, userId, month));
  report.newMonth = { ...summary(fullMonth), bucketMs: month.bucketMs, requests: counted(fullMonth.result) };
  log('new 30 d', report.newMonth);
}
await store2.close();
if (!values.keep && !values.reuse) await rm(w.dir, { recursive: true, force: true });
else log('kept', w.file);
console.log(JSON.stringify(report, null, 2));
