// What bench/logs-search and bench/traces-search share: the world a grown store holds, and the first-page timings.
import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import Database from '../../packages/store/node_modules/better-sqlite3/lib/index.js';
import { MongoClient } from '../../packages/store/node_modules/mongodb/lib/index.js';

export const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** A user, an organization, a project named `projectName` and an application, in a new store. */
export async function benchWorld(store, projectName) {
  const user = await store.createUser({ email: `bench-${randomUUID()}@example.test`, name: 'Bench', passwordHash: 'x' });
  const org = await store.createOrganization({ name: 'Bench', ownerId: user.id });
  const project = await store.createProject({ name: projectName, organizationId: org.id });
  const app = await store.createApplication({ name: 'shop', projectId: project.id });
  return { user, project, app };
}

/** Bytes on disk of `collections` in MongoDB's `database` (data and indexes), each printed with its indexes. */
export async function mongoSize(url, database, collections) {
  const client = await MongoClient.connect(url);
  try {
    let total = 0;
    for (const name of collections) {
      const stats = await client.db(database).command({ collStats: name });
      const perIndex = Object.entries(stats.indexSizes).map(([index, bytes]) => `${index} ${mb(bytes)}`).join(', ');
      console.log(`  ${name}: ${stats.count.toLocaleString('en')} documents, data ${mb(stats.storageSize)}, indexes ${mb(stats.totalIndexSize)} (${perIndex})`);
      total += stats.storageSize + stats.totalIndexSize;
    }
    return total;
  } finally {
    await client.close();
  }
}

/** Bytes of a SQLite file after a checkpoint; with `like`, the tables and indexes so named are printed a line each. */
export async function sqliteSize(file, like) {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
    if (like) {
      for (const row of db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE name LIKE ? GROUP BY name ORDER BY name').all(like)) {
        console.log(`  ${row.name}: ${mb(row.bytes)}`);
      }
    }
  } finally {
    db.close();
  }
  return (await stat(file)).size;
}

export async function dropMongoDatabase(url, database) {
  const client = await MongoClient.connect(url);
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}

/** The user and project of a SQLite file grown before, and how many rows `table` holds. */
export function grownWorld(file, table) {
  const db = new Database(file, { readonly: true });
  try {
    const row = db.prepare('SELECT m.user_id AS userId, p.id AS projectId FROM projects p JOIN memberships m ON m.organization_id = p.organization_id').get();
    return { ...row, count: db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() };
  } finally {
    db.close();
  }
}

/**
 * The first page of each query (`read(query)` streams it): p50, p99 and the first run (right after opening the store)
 * over `runs` runs, printed a line each, with how many items the page held (`what`: rows, records...).
 */
export async function timeFirstPages(read, base, queries, runs, what) {
  console.log(`first page (ms over ${runs} runs; first = the first run after opening the store):`);
  for (const [name, query] of queries) {
    const times = [];
    let found = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      let n = 0;
      for await (const _ of read({ ...base, ...query })) n++;
      times.push(performance.now() - started);
      found = n;
    }
    const first = times[0];
    times.sort((a, b) => a - b);
    console.log(`  ${name.padEnd(42)} p50 ${percentile(times, 50).toFixed(1).padStart(7)}  p99 ${percentile(times, 99).toFixed(1).padStart(7)}  first ${first.toFixed(1).padStart(7)}  ${what} ${found}`);
  }
}
