#!/usr/bin/env node
// bench/logs-search: grows an embedded (SQLite) store to N log entries through the store's writeLogs (batches of
// 1,000 new entries with new ids), reporting the rate and the database size per million on the way, then measures
// the first page of the console's log search (100 logs, as GET /ingest/logs asks the store for limit + 1) and of
// the live tail (from = newest - 5 s, 1,000 logs): p50/p99 over --runs runs of each query.
// Messages come from templates with a vocabulary of common words, a word in ~0.1 % of them ("deadlock"), a rare
// one in ~1 per 100,000 ("zebracorn") and trace ids in about a third of them.
// Usage: pnpm bench:logs-search [--entries 10000000 --runs 20 --file /path/to/lantern.db --keep]
// With --file naming a database this script already grew, it only measures the reads.
// With --migrate it grows the database at the schema version before the log search index (plain INSERTs of the
// rows writeLogs would store, in transactions of 10,000), then opens the store (the migration, instant) and waits
// for its writer thread to index them in the background: the fast way to 10M on a busy machine, and the time the
// indexer takes and the size it adds. Every read waits until the index holds every log (the time is reported).
// With --mongo <url> it measures the distributed store instead, in a database of its own (dropped after unless --keep).
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchWorld, dropMongoDatabase, grownWorld, mb, mongoSize, sqliteSize, timeFirstPages } from '../lib/store-bench.mjs';
import { logGenerator, prng } from './messages.mjs';
import { performance } from 'node:perf_hooks';
import Database from '../../packages/store/node_modules/better-sqlite3/lib/index.js';
import { openSqliteStore } from '../../packages/store/dist/index.js';
import { MIGRATIONS } from '../../packages/store/dist/sqlite/schema.js';
import { createMongoStore } from '../../packages/store/dist/mongo/index.js';
import { MongoClient } from '../../packages/store/node_modules/mongodb/lib/index.js';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    entries: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '20' },
    file: { type: 'string' },
    keep: { type: 'boolean', default: false },
    mongo: { type: 'string' },
    migrate: { type: 'boolean', default: false },
  },
});
const entries = Number(values.entries);
const runs = Number(values.runs);
const BATCH = 1000;
const STEP_MS = 50; // one log per 50 ms of log time: 10M logs span ~5.8 days
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

const { rand, pick, int, message, level, services: SERVICES } = logGenerator(42);
const fields = prng(43);

function makeBatch(app, first) {
  const logs = [];
  for (let i = first; i < first + BATCH; i++) {
    // About 2 % arrive late: their timestamp is up to a minute before their neighbours'.
    const at = T0 + i * STEP_MS - (rand() < 0.02 ? int(60_000) : 0);
    const traced = rand() < 0.3;
    logs.push({
      id: randomUUID(), projectId: app.projectId, applicationId: app.id, level: level(), type: 'app', message: message(),
      timestamp: new Date(at).toISOString(), ...(traced ? { traceId: randomUUID() } : {}),
      host: `${pick(SERVICES)}-7d9f8b6c5-${int(100)}`,
      // Attributes a log search by `attr` finds (their own PRNG: the messages are those of the world before).
      tenant: `t-${Math.floor(fields() * 1000)}`, ...(i % 10 === 3 ? { requestId: `r-${i}` } : {}),
    });
  }
  return { kind: 'logs', applicationId: app.id, projectId: app.projectId, receivedAt: new Date(T0 + first * STEP_MS).toISOString(), logs };
}

/** The database's size on disk: SQLite's file after a checkpoint; MongoDB's logs, the search index's segments and postings (mongo/log-segments.ts). */
const sizeOf = () => (mongo ? mongoSize(mongo, database, ['logs', 'logSegments', 'logPostings']) : sqliteSize(file));

const mongo = values.mongo;
const database = `lantern_logs_search_${entries}`;
const dir = values.file || mongo ? undefined : await mkdtemp(join(os.tmpdir(), 'lantern-logs-search-'));
const file = values.file ?? (mongo ? undefined : join(dir, 'lantern.db'));
// The SQLite store as the server opens it: ingest and the log search indexer on the writer thread.
const openStore = () => (mongo ? createMongoStore({ url: mongo, database }) : openSqliteStore({ file, writerThread: true }));

/**
 * Waits until the log search indexer (SQLite: on the writer thread of the store still open; MongoDB: in the
 * process of the store still open) has indexed every log stored, and says how long that took and how many logs
 * were waiting. The index is filled after the write.
 */
async function waitIndexed(label) {
  if (mongo) {
    // MongoDB: the logs still flagged for the indexer of the store that is open.
    const client = await MongoClient.connect(mongo);
    try {
      const logs = client.db(database).collection('logs');
      const waiting = await logs.countDocuments({ gramsPending: true });
      const started = performance.now();
      while ((await logs.countDocuments({ gramsPending: true })) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const s = (performance.now() - started) / 1000;
      console.log(`  ${label}: ${waiting.toLocaleString('en')} logs waited for the search index; indexed in ${s.toFixed(1)} s${waiting > 0 && s > 0 ? ` (${Math.round(waiting / s).toLocaleString('en')} logs/s)` : ''}`);
    } finally {
      await client.close();
    }
    return;
  }
  const db = new Database(file, { readonly: true });
  try {
    // Both indexes: the message's trigrams and, where the schema has it, the attributes' (logs_attrs).
    const attrs = db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'logs_attrs_state'").pluck().get() > 0;
    const lag = () => db.prepare(`SELECT (SELECT coalesce(max(rowid), 0) FROM logs) - min(indexed_upto) FROM (SELECT indexed_upto FROM logs_fts_state${attrs ? ' UNION ALL SELECT indexed_upto FROM logs_attrs_state' : ''})`).pluck().get();
    const waiting = lag();
    const started = performance.now();
    while (lag() > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    const s = (performance.now() - started) / 1000;
    console.log(`  ${label}: ${waiting.toLocaleString('en')} logs waited for the search index; indexed in ${s.toFixed(1)} s${waiting > 0 && s > 0 ? ` (${Math.round(waiting / s).toLocaleString('en')} logs/s)` : ''}`);
  } finally {
    db.close();
  }
}
console.log(`logs-search: ${entries.toLocaleString('en')} entries into ${mongo ? `${database} (MongoDB)` : file}; node ${process.version}, ${os.cpus().length} x ${os.cpus()[0]?.model}`);
async function grow() {
  const store = await openStore();
  const { user, project, app } = await benchWorld(store, 'Logs');
  let writeMs = 0;
  let sinceReport = 0;
  for (let first = 0; first < entries; first += BATCH) {
    const batch = makeBatch(app, first);
    const started = performance.now();
    await store.writeLogs(batch);
    const ms = performance.now() - started;
    writeMs += ms;
    sinceReport += ms;
    const stored = first + BATCH;
    if (stored % 1_000_000 === 0 || stored >= entries) {
      const span = stored % 1_000_000 || 1_000_000;
      console.log(`  ${(stored / 1e6).toFixed(1)}M stored: ${Math.round(span / (sinceReport / 1000)).toLocaleString('en')} logs/s over the last ${(span / 1e6).toFixed(1)}M`);
      sinceReport = 0;
    }
  }
  await waitIndexed('after the last write');
  await store.close();
  const bytes = await sizeOf();
  console.log(`writeLogs overall: ${Math.round(entries / (writeMs / 1000)).toLocaleString('en')} logs/s; database ${mb(bytes)} (${mb((bytes / entries) * 1e6)} per million logs)`);
  return { userId: user.id, projectId: project.id };
}

/** --migrate: the rows writeLogs would store, written at the schema before logs_fts; then the migration. */
async function growThenMigrate() {
  const before = MIGRATIONS.findIndex((sql) => sql.includes('CREATE VIRTUAL TABLE logs_fts'));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -65536');
  for (const sql of MIGRATIONS.slice(0, before)) db.exec(sql);
  db.pragma(`user_version = ${before}`);
  const userId = randomUUID();
  db.prepare("INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, 'b@x.test', 'b@x.test', 'B', 'x', 0)").run(userId);
  db.exec("INSERT INTO organizations (id, name, created_ms) VALUES (1, 'Bench', 0); INSERT INTO projects (id, organization_id, name) VALUES (1, 1, 'Logs'); INSERT INTO applications (id, project_id, name) VALUES (1, 1, 'shop');");
  db.prepare("INSERT INTO memberships (organization_id, user_id, role) VALUES (1, ?, 'owner')").run(userId);
  const insert = db.prepare('INSERT INTO logs (id, project_id, application_id, trace_id, level, ts, data) VALUES (?, 1, 1, ?, ?, ?, ?)');
  const app = { id: 1, projectId: 1 };
  const write = db.transaction((batches) => {
    for (const batch of batches) {
      for (const { id, projectId: _p, applicationId: _a, ...rest } of batch.logs) {
        insert.run(id, rest.traceId ?? null, rest.level, Date.parse(rest.timestamp), JSON.stringify(rest));
      }
    }
  });
  const started = performance.now();
  for (let first = 0; first < entries; first += 10 * BATCH) {
    write(Array.from({ length: 10 }, (_, k) => makeBatch(app, first + k * BATCH)));
    if ((first + 10 * BATCH) % 1_000_000 === 0) console.log(`  ${((first + 10 * BATCH) / 1e6).toFixed(0)}M inserted (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  db.close();
  const plain = await sizeOf();
  console.log(`inserted at schema version ${before}: database ${mb(plain)} (${mb((plain / entries) * 1e6)} per million logs)`);
  const migrating = performance.now();
  const migrated = await openStore();
  console.log(`migration ${before + 1}: ${((performance.now() - migrating) / 1000).toFixed(1)} s (it indexes nothing itself)`);
  await waitIndexed('the logs stored before, indexed in the background');
  await migrated.close();
  const indexed = await sizeOf();
  console.log(`indexed: database ${mb(indexed)} (${mb((indexed / entries) * 1e6)} per million logs, +${(((indexed - plain) / plain) * 100).toFixed(0)} %)`);
  return { userId, projectId: 1 };
}

const reuse = !mongo && values.file !== undefined && existsSync(file);
const world = reuse ? grownWorld(file, 'logs') : values.migrate ? await growThenMigrate() : await grow();
if (reuse) {
  if (world.count !== entries) throw new Error(`${file} holds ${world.count} logs, not --entries ${entries}.`);
  console.log(`  reusing the ${entries.toLocaleString('en')} logs already in ${file}`);
}

const store = await openStore();
await waitIndexed('on opening');
const newest = T0 + (entries - 1) * STEP_MS;
const base = { userId: world.userId, projectId: world.projectId, limit: 101 };
const day = 86_400_000;
const middle = T0 + Math.floor(entries / 2) * STEP_MS;
const QUERIES = [
  ['no filter', {}],
  ['common word "timeout"', { messageContains: 'timeout' }],
  ['0.1 % word "deadlock"', { messageContains: 'deadlock' }],
  ['rare word "zebracorn"', { messageContains: 'zebracorn' }],
  ['missing word "qwzjxv"', { messageContains: 'qwzjxv' }],
  ['missing, common trigrams "served timeout"', { messageContains: 'served timeout' }],
  ['2 characters "ms"', { messageContains: 'ms' }],
  ['"timeout" + level error', { messageContains: 'timeout', level: 'error' }],
  ['"timeout" + level fatal', { messageContains: 'timeout', level: 'fatal' }],
  ['"deadlock" + level error', { messageContains: 'deadlock', level: 'error' }],
  ['"zebracorn" + level warn', { messageContains: 'zebracorn', level: 'warn' }],
  ['"timeout" + last hour', { messageContains: 'timeout', from: newest - 3_600_000, to: newest + 1 }],
  ['"deadlock" + a day in the middle', { messageContains: 'deadlock', from: middle - day / 2, to: middle + day / 2 }],
  ['"zebracorn" + a day in the middle', { messageContains: 'zebracorn', from: middle - day / 2, to: middle + day / 2 }],
  ['"timeout" + level error + a day', { messageContains: 'timeout', level: 'error', from: middle - day / 2, to: middle + day / 2 }],
  ['live tail (from = newest - 5 s, 1,000)', { from: newest - 5000, limit: 1001 }],
  ['live tail + "timeout"', { messageContains: 'timeout', from: newest - 5000, limit: 1001 }],
  ['live tail + "zebracorn" + error', { messageContains: 'zebracorn', level: 'error', from: newest - 5000, limit: 1001 }],
  ['attr requestId (one log)', { attributes: [{ key: 'requestId', value: `r-${Math.floor(entries / 3 / 10) * 10 + 3}` }] }],
  ['attr tenant (0.1 %)', { attributes: [{ key: 'tenant', value: 't-42' }] }],
  ['attr level=error (common)', { attributes: [{ key: 'level', value: 'error' }] }],
  ['attr key requestId (10 %)', { attributes: [{ key: 'requestId' }] }],
  ['attr missing', { attributes: [{ key: 'tenant', value: 'nobody' }] }],
  ['attr tenant + "timeout"', { attributes: [{ key: 'tenant', value: 't-42' }], messageContains: 'timeout' }],
  ['attr tenant + a day in the middle', { attributes: [{ key: 'tenant', value: 't-42' }], from: middle - day / 2, to: middle + day / 2 }],
];
await timeFirstPages((query) => store.streamLogs(query), base, QUERIES, runs, 'rows');
await store.close();
if (dir && !values.keep) await rm(dir, { recursive: true, force: true });
if (mongo && !values.keep) await dropMongoDatabase(mongo, database);
