#!/usr/bin/env node
// bench/traces-search: grows a store to N spans through the store's writeSpanBatches (batches of 1,000 new spans with new
// ids: traces of 5 spans, a root and four children), reporting the rate and the size, then measures the first page of
// each trace search the console makes (101 records, as GET /logs/project asks the store for limit + 1): p50/p99 over
// --runs runs. What the traces carry, per trace: 6 services (one with a fifth of the traffic, one with 1 %), 40
// operations (one in 1,000 traces is the rare "POST /refunds"), 2 % of roots 5xx (half of them 503), durations from
// a log-normal spread (1 % over 1 s); attributes as an SDK sends them (traces.mjs), searched by `attr`.
// Usage: node bench/traces-search/run.mjs [--spans 10000000 --runs 20 --file /path/to/lantern.db --keep]
// With --file naming a database this script already grew, it only measures the reads.
// With --mongo <url> it measures the distributed store instead, in a database of its own (dropped after unless --keep).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { openSqliteStore } from '../../packages/store/dist/index.js';
import { createMongoStore } from '../../packages/store/dist/mongo/index.js';
import { benchWorld, dropMongoDatabase, grownWorld, mb, mongoSize, sqliteSize, timeFirstPages } from '../lib/store-bench.mjs';
import { traceGenerator } from './traces.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    spans: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '20' },
    file: { type: 'string' },
    keep: { type: 'boolean', default: false },
    mongo: { type: 'string' },
  },
});
const spanCount = Number(values.spans);
const runs = Number(values.runs);
const BATCH = 1000;
const SPANS_PER_TRACE = 5;
const STEP_MS = 100; // a trace every 100 ms: 2M traces span ~2.3 days
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const mongo = values.mongo;
const database = `lantern_traces_search_${spanCount}`;
const dir = values.file || mongo ? undefined : await mkdtemp(join(os.tmpdir(), 'lantern-traces-search-'));
const file = values.file ?? (mongo ? undefined : join(dir, 'lantern.db'));
const openStore = () => (mongo ? createMongoStore({ url: mongo, database }) : openSqliteStore({ file, writerThread: true }));
const gen = traceGenerator(7, T0, STEP_MS, SPANS_PER_TRACE);

const sizeOf = () => (mongo ? mongoSize(mongo, database, ['traces', 'spans']) : sqliteSize(file, 'trace%'));

async function grow() {
  const store = await openStore();
  const { user, project, app } = await benchWorld(store, 'Traces');
  let writeMs = 0;
  let sinceReport = 0;
  for (let first = 0; first < spanCount; first += BATCH) {
    const spans = gen.spans(first / SPANS_PER_TRACE, BATCH / SPANS_PER_TRACE);
    const batch = { kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: spans[0].timestamp, spans };
    const started = performance.now();
    await store.writeSpanBatches([batch]);
    const ms = performance.now() - started;
    writeMs += ms;
    sinceReport += ms;
    const stored = first + BATCH;
    if (stored % 1_000_000 === 0 || stored >= spanCount) {
      const n = stored % 1_000_000 || 1_000_000;
      console.log(`  ${(stored / 1e6).toFixed(1)}M spans stored: ${Math.round(n / (sinceReport / 1000)).toLocaleString('en')} spans/s over the last ${(n / 1e6).toFixed(1)}M`);
      sinceReport = 0;
    }
  }
  await store.close();
  const bytes = await sizeOf();
  console.log(`writeSpanBatches overall: ${Math.round(spanCount / (writeMs / 1000)).toLocaleString('en')} spans/s; database ${mb(bytes)} (${mb((bytes / spanCount) * 1e6)} per million spans)`);
  return { userId: user.id, projectId: project.id };
}

console.log(`traces-search: ${spanCount.toLocaleString('en')} spans (${(spanCount / SPANS_PER_TRACE).toLocaleString('en')} traces) into ${mongo ? `${database} (MongoDB)` : file}; node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model}`);
const reuse = !mongo && values.file !== undefined && existsSync(file);
const world = reuse ? grownWorld(file, 'spans') : await grow();
if (reuse) {
  if (world.count !== spanCount) throw new Error(`${file} holds ${world.count} spans, not --spans ${spanCount}.`);
  console.log(`  reusing the ${spanCount.toLocaleString('en')} spans already in ${file}`);
}

const store = await openStore();
const traces = spanCount / SPANS_PER_TRACE;
const newest = T0 + (traces - 1) * STEP_MS;
const middle = T0 + Math.floor(traces / 2) * STEP_MS;
const hour = 3_600_000;
const base = { userId: world.userId, projectId: world.projectId, limit: 101 };
const QUERIES = [
  ['no filter', {}],
  ['last hour', { from: newest - hour, to: newest + 1 }],
  ['service "checkout" (20 %)', { service: 'checkout' }],
  ['service "ledger" (1 %)', { service: 'ledger' }],
  ['operation "GET /items/:id" (common)', { operation: 'GET /items/:id' }],
  ['operation "POST /refunds" (0.1 %)', { operation: 'POST /refunds' }],
  ['operation missing', { operation: 'DELETE /nothing' }],
  ['status 5xx (2 %)', { status: { min: 500, max: 599 } }],
  ['status 503 (1 %)', { status: { min: 503, max: 503 } }],
  ['status 404', { status: { min: 404, max: 404 } }],
  ['minDurationMs 1000 (1 %)', { minDurationMs: 1000 }],
  ['maxDurationMs 2', { maxDurationMs: 2 }],
  ['service "checkout" + 5xx', { service: 'checkout', status: { min: 500, max: 599 } }],
  ['operation "POST /refunds" + 5xx', { operation: 'POST /refunds', status: { min: 500, max: 599 } }],
  ['operation common + minDurationMs 1000', { operation: 'GET /items/:id', minDurationMs: 1000 }],
  ['service "checkout" + a day in the middle', { service: 'checkout', from: middle - 12 * hour, to: middle + 12 * hour }],
  ['5xx + the last hour', { status: { min: 500, max: 599 }, from: newest - hour, to: newest + 1 }],
  ['trace id', { traceId: gen.traceIdOf(Math.floor(traces / 3)) }],
  ['attr order.id (one trace)', { attributes: [{ key: 'order.id', value: gen.orderIdOf(Math.floor(traces / 3)) }] }],
  ['attr user.id (1 in 100,000)', { attributes: [{ key: 'user.id', value: 'u-4242' }] }],
  ['attr http.route common (20 %)', { attributes: [{ key: 'http.route', value: '/items/:id' }] }],
  ['attr db.system (every trace)', { attributes: [{ key: 'db.system', value: 'postgresql' }] }],
  ['attr host.name (resource, 25 %)', { attributes: [{ key: 'host.name', value: 'ip-10-0-0-2' }] }],
  ['attr key user.id (every trace)', { attributes: [{ key: 'user.id' }] }],
  ['attr missing', { attributes: [{ key: 'user.id', value: 'nobody' }] }],
  ['attr user.id + attr host.name', { attributes: [{ key: 'user.id', value: 'u-4242' }, { key: 'host.name', value: 'ip-10-0-0-2' }] }],
  ['attr host.name + attr user.id (common first)', { attributes: [{ key: 'host.name', value: 'ip-10-0-0-2' }, { key: 'user.id', value: 'u-4242' }] }],
  ['attr host.name + 5xx', { attributes: [{ key: 'host.name', value: 'ip-10-0-0-2' }], status: { min: 500, max: 599 } }],
  ['attr host.name + service "ledger" (1 %)', { attributes: [{ key: 'host.name', value: 'ip-10-0-0-2' }], service: 'ledger' }],
  ['attr http.route common + the last hour', { attributes: [{ key: 'http.route', value: '/items/:id' }], from: newest - hour, to: newest + 1 }],
];

await timeFirstPages((query) => store.streamTraces(query), base, QUERIES, runs, 'records');
await store.close();
if (dir && !values.keep) await rm(dir, { recursive: true, force: true });
if (mongo && !values.keep) await dropMongoDatabase(mongo, database);
