#!/usr/bin/env node
// bench/metrics/mongo.mjs: GET /metrics from the MongoDB store's rollups, on a real mongod. The rollup documents
// of a week at `--requests` per hour (default 1M, over `--apps` applications) are inserted directly: an hour of
// per-minute sketches from the same duration distribution as run.mjs, repeated for every hour of the week (the
// spans themselves are not written), with the hour documents those minutes make (each the sum of its hour's
// minutes, as the writes keep them), over `--days` days (default 7). Then times the read (store + report) for 1 h,
// 24 h, 7 d and 30 d (if the history covers it), p50/p99; with `--base <dir>/packages/store/dist/mongo/index.js`,
// another build's store on the same database too (a build before the hour documents reads the minutes only).
// Usage: node bench/metrics/mongo.mjs --url mongodb://127.0.0.1:27017 [--requests 1000000 --apps 4 --runs 20 --days 7
//   --base <path> --base-runs 3]
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { QuantileSketch } from '../../packages/domain/dist/index.js';
import { createMongoStore } from '../../packages/store/dist/mongo/index.js';
import { metricsReport, metricsWindow } from '../../services/query/dist/index.js';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    url: { type: 'string' },
    requests: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '4' },
    runs: { type: 'string', default: '20' },
    days: { type: 'string', default: '7' },
    base: { type: 'string' },
    'base-runs': { type: 'string', default: '3' },
  },
});
if (!values.url) throw new Error('--url mongodb://... is required');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ms = (t) => Math.round(t * 10) / 10;
const quantile = (sorted, q) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];

const database = `lantern_bench_${randomUUID().replace(/-/g, '')}`;
const store = await createMongoStore({ url: values.url, database });
const user = await store.createUser({ email: `bench-${randomUUID()}@example.test`, name: 'bench', passwordHash: 'x' });
const org = await store.createOrganization({ name: 'bench', ownerId: user.id });
const project = await store.createProject({ name: 'bench', organizationId: org.id });
const apps = [];
for (let i = 0; i < Number(values.apps); i++) apps.push(await store.createApplication({ name: `app-${i}`, projectId: project.id }));

// An hour of minute sketches per application, as run.mjs's traffic makes them.
const perMinute = Math.round(Number(values.requests) / 60 / apps.length);
const hourOf = apps.map(() => Array.from({ length: 60 }, () => {
  const s = new QuantileSketch();
  let errors = 0;
  for (let i = 0; i < perMinute; i++) {
    s.add(5 + Math.floor(Math.random() * Math.random() * 2000));
    if (i % 50 === 0) errors++;
  }
  return { s, errors };
}));
// The driver is the store package's dependency: resolved from there.
const { MongoClient } = createRequire(new URL('../../packages/store/package.json', import.meta.url))('mongodb');
const client = new MongoClient(values.url);
const rollups = client.db(database).collection('rollups');
const rollupHours = client.db(database).collection('rollupHours');
// On a whole hour, so that each hour of the history holds the hour's 60 minutes.
const end = Math.ceil(Date.now() / HOUR) * HOUR;
const hours = Number(values.days) * 24;
const sumOf = hourOf.map((minutes) => {
  const s = new QuantileSketch();
  for (const m of minutes) s.merge(m.s);
  return { s, errors: minutes.reduce((n, m) => n + m.errors, 0) };
});
const t0 = performance.now();
for (let h = 0; h < hours; h++) {
  const docs = [];
  const hourDocs = [];
  apps.forEach((app, a) => {
    const b = {};
    for (const [k, n] of sumOf[a].s.entries()) b[k] = n;
    const hour = end - (h + 1) * HOUR;
    hourDocs.push({ _id: JSON.stringify([app.id, hour]), projectId: project.id, applicationId: app.id, hour: new Date(hour),
      requests: sumOf[a].s.count, errors: sumOf[a].errors, zeros: sumOf[a].s.zeros, b, ops: [] });
  });
  await rollupHours.insertMany(hourDocs, { ordered: false });
  apps.forEach((app, a) => hourOf[a].forEach(({ s, errors }, m) => {
    const minute = end - (h + 1) * HOUR + m * MINUTE;
    const b = {};
    for (const [k, n] of s.entries()) b[k] = n;
    docs.push({ _id: JSON.stringify([app.id, minute]), projectId: project.id, applicationId: app.id, minute: new Date(minute),
      requests: s.count, errors, zeros: s.zeros, b, ops: [] });
  }));
  await rollups.insertMany(docs, { ordered: false });
}
const setup = { days: Number(values.days), rollupDocuments: await rollups.countDocuments({}), hourDocuments: await rollupHours.countDocuments({}), insertSeconds: ms((performance.now() - t0) / 1000), requestsPerMinutePerApp: perMinute };
console.error('setup', setup);

const base = values.base ? await (await import(new URL(values.base, `file://${process.cwd()}/`).href)).createMongoStore({ url: values.url, database }) : null;

async function time(window, on = store, runs = Number(values.runs)) {
  const times = [];
  let report;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    report = metricsReport(await on.readMetrics({ userId: user.id, ...window }), window);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { runs: times.length, p50Ms: ms(quantile(times, 0.5)), p99Ms: ms(quantile(times, 0.99)), bucketMs: window.bucketMs,
    requests: report.applications.reduce((n, a) => n + a.requests, 0) };
}
const now = end - 1;
const result = {
  date: new Date().toISOString(), node: process.version, cpus: `${os.cpus().length} x ${os.cpus()[0]?.model}`, setup,
};
const windows = { hour: metricsWindow(undefined, now, now), day: metricsWindow(now - 24 * HOUR, now, now),
  week: metricsWindow(now - 7 * 24 * HOUR + MINUTE, now, now) };
if (Number(values.days) >= 30) windows.month = metricsWindow(now - 30 * 24 * HOUR + MINUTE, now, now);
for (const [name, window] of Object.entries(windows)) {
  result[name] = await time(window);
  console.error(name, result[name]);
  if (base) {
    result[`${name}Base`] = await time(window, base, Number(values['base-runs']));
    console.error(`${name} (base)`, result[`${name}Base`]);
  }
}
await base?.close();
await client.db(database).dropDatabase();
await client.close();
await store.close();
console.log(JSON.stringify(result, null, 2));
