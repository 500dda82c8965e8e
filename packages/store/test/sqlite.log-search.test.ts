import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import type { LogEntry } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { LogQuery, Store } from '@lantern/store';
import { createLogIndexer } from '../src/sqlite/log-indexer.js';
import { chooseLogPlan, trigramQuery } from '../src/sqlite/log-search.js';
import { attrsQuery, registerLogAttrs } from '../src/sqlite/log-attrs.js';
import type { LogPlan } from '../src/sqlite/log-search.js';
import { logPageSql } from '../src/sqlite/logs.js';
import { StatementCache } from '../src/sqlite/paging.js';
import { MIGRATIONS } from '../src/sqlite/schema.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
/** The migration that adds logs_fts (found by content, so that reordering the list at a merge keeps this test). */
const SEARCH_MIGRATION = MIGRATIONS.findIndex((sql) => sql.includes('CREATE VIRTUAL TABLE logs_fts'));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Runs the log indexer on `file` until no log waits (what the store's writer does in its free turns). */
function indexAll(file: string): number {
  const db = new Database(file);
  try {
    const indexer = createLogIndexer(db);
    let covered = 0;
    for (let step = indexer.step(); step > 0; step = indexer.step()) covered += step;
    return covered;
  } finally {
    db.close();
  }
}

/** A user with an organization, a project and an application. */
async function world(store: Store) {
  const user = await store.createUser({ email: `${newId()}@x.test`, name: 'U', passwordHash: 'h' });
  const org = await store.createOrganization({ name: 'O', ownerId: user.id });
  const project = await store.createProject({ name: 'P', organizationId: org.id });
  const app = await store.createApplication({ name: 'A', projectId: project.id });
  return { user, project, app };
}

function log(projectId: number, applicationId: number, at: number, message: string): LogEntry {
  return { id: newId(), projectId, applicationId, level: 'info', type: 'app', message, timestamp: toIso(at), clientTimestamp: toIso(at) };
}

describe('sqlite log search', () => {
  let dir: string;
  let file: string;
  const opened: Store[] = [];
  const open = async () => {
    const store = await openSqliteStore({ file });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-log-search-'));
    file = join(dir, 'lantern.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('turns a text into quoted trigrams joined with AND, and leaves what the index cannot serve to the scan', () => {
    expect(trigramQuery('abcd')).toBe('"abc" AND "bcd"');
    expect(trigramQuery('a"b OR')).toBe('"a""b" AND """b " AND "b O" AND " OR"');
    expect(trigramQuery('aaaa')).toBe('"aaa"');
    expect(trigramQuery('ÿ😀x')).toBe('"ÿ😀x"');
    expect(trigramQuery('ab')).toBeUndefined();
    expect(trigramQuery('😀😀')).toBeUndefined();
    expect(trigramQuery('abc\u0000def')).toBeUndefined();
    const long = trigramQuery('the quick brown fox jumps over the lazy dog')!;
    expect(long.split(' AND ')).toHaveLength(8);
    expect(long.startsWith('"the" AND')).toBe(true);
    expect(long.endsWith('AND "dog"')).toBe(true);
  });

  it('finds logs stored before the search migration at once, and indexes them and those written after in the background', async () => {
    expect(SEARCH_MIGRATION).toBeGreaterThan(0);
    const before = new Database(file);
    for (const sql of MIGRATIONS.slice(0, SEARCH_MIGRATION)) before.exec(sql);
    before.pragma(`user_version = ${SEARCH_MIGRATION}`);
    const userId = newId();
    before.prepare("INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, 'u@x.test', 'u@x.test', 'U', 'h', 0)").run(userId);
    before.exec("INSERT INTO organizations (id, name, created_ms) VALUES (1, 'O', 0); INSERT INTO projects (id, organization_id, name) VALUES (1, 1, 'P'); INSERT INTO applications (id, project_id, name) VALUES (1, 1, 'A');");
    before.prepare("INSERT INTO memberships (organization_id, user_id, role) VALUES (1, ?, 'owner')").run(userId);
    const insert = before.prepare("INSERT INTO logs (id, project_id, application_id, level, ts, data) VALUES (?, 1, 1, 'info', ?, ?)");
    const old = [log(1, 1, T0, 'Zebracorn seen near the gate'), log(1, 1, T0 + 1, 'nothing to see'), log(1, 1, T0 + 2, 'a ZEBRACORN again')];
    for (const entry of old) {
      const { id, projectId: _p, applicationId: _a, ...data } = entry;
      insert.run(id, Date.parse(entry.timestamp), JSON.stringify(data));
    }
    before.close();

    const store = await open();
    const search = (messageContains: string) => collect(store.streamLogs({ userId, messageContains }));
    const fts = (): unknown => {
      const db = new Database(file, { readonly: true });
      try {
        expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
        return db.prepare("SELECT count(*) FROM logs_fts WHERE logs_fts MATCH '\"zeb\" AND \"orn\"'").pluck().get();
      } finally {
        db.close();
      }
    };
    // The migration indexes nothing itself: the logs above the watermark are read without the index.
    expect(fts()).toBe(0);
    expect((await search('zebracorn')).map((l) => l.id)).toEqual([old[2]!.id, old[0]!.id]);
    expect(indexAll(file)).toBe(3);
    expect(fts()).toBe(2);
    expect((await search('zebracorn')).map((l) => l.id)).toEqual([old[2]!.id, old[0]!.id]);
    const later = log(1, 1, T0 + 3, 'zebracorn, third sighting');
    await store.writeLogs({ kind: 'logs', applicationId: 1, projectId: 1, receivedAt: toIso(T0), logs: [later] });
    expect((await search('zebracorn')).map((l) => l.id)).toEqual([later.id, old[2]!.id, old[0]!.id]);
    // The store kicks its indexer after the write; it runs in a free turn of the event loop.
    for (let turns = 0; fts() !== 3 && turns < 100; turns++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fts()).toBe(3);
    expect((await search('zebracorn')).map((l) => l.id)).toEqual([later.id, old[2]!.id, old[0]!.id]);
  });

  it('reads a rare text through logs_fts, a common one or a short window down the time index, as the query plans show', async () => {
    const store = await open();
    const { user, project, app } = await world(store);
    const total = 31_000;
    for (let first = 0; first < total; first += 1000) {
      const logs = Array.from({ length: 1000 }, (_, i) => log(project.id, app.id, T0 + first + i,
        (first + i) % 10_000 === 7 ? `request ${first + i} served, zebracorn` : `request ${first + i} served`));
      await store.writeLogs({ kind: 'logs', applicationId: app.id, projectId: project.id, receivedAt: toIso(T0), logs });
    }
    indexAll(file);
    const db = new Database(file, { readonly: true });
    try {
      const cache = new StatementCache(db);
      const planOf = (messageContains: string, from = T0): { plan: LogPlan; steps: string } => {
        const match = trigramQuery(messageContains);
        const query: LogQuery = { userId: user.id, messageContains, level: 'info', from, to: T0 + total };
        const plan = chooseLogPlan(cache, { match, limit: 101, projects: [project.id], from, to: query.to });
        const { sql, params } = logPageSql(query, { match, plan }, project.id, undefined, 101);
        const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((row) => (row as { detail: string }).detail).join('\n');
        return { plan, steps };
      };
      const rare = planOf('ZEBRACORN');
      expect(rare.plan).toBe('index');
      // The index's candidates, and the logs above its watermark read by rowid (a range, never the whole table).
      expect(rare.steps).toMatch(/SCAN logs_fts VIRTUAL TABLE INDEX/);
      expect(rare.steps).toMatch(/SEARCH logs USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      expect(rare.steps).not.toMatch(/logs_project_ts/);
      const common = planOf('served');
      expect(common.plan).toBe('scan');
      expect(common.steps).toMatch(/SEARCH l USING INDEX logs_project_level_ts/);
      expect(common.steps).not.toMatch(/VIRTUAL TABLE/);
      expect(planOf('se').plan).toBe('scan');
      // A window of at most COST_RATIO pages of logs (a live tail's) is scanned; a longer one, holding more than
      // COST_RATIO times the candidates (4 here), is read through the index.
      const tail = planOf('zebracorn', T0 + total - 10);
      expect(tail.plan).toBe('scan');
      expect(tail.steps).not.toMatch(/VIRTUAL TABLE/);
      expect(planOf('zebracorn', T0 + total - 600).plan).toBe('index');
    } finally {
      db.close();
    }
    const found = await collect(store.streamLogs({ userId: user.id, projectId: project.id, messageContains: 'zebracorn', limit: 2 }));
    expect(found.map((l) => l.message)).toEqual(['request 30007 served, zebracorn', 'request 20007 served, zebracorn']);
  });

  it('reads a rare attribute through logs_attrs once indexed, a common one down the time index, and finds the same logs either way', async () => {
    const store = await open();
    const { user, project, app } = await world(store);
    const total = 31_000;
    for (let first = 0; first < total; first += 1000) {
      const logs = Array.from({ length: 1000 }, (_, i) => ({ ...log(project.id, app.id, T0 + first + i, `request ${first + i}`),
        tenant: 'acme', requestId: `r-${first + i}`, ...((first + i) % 10_000 === 7 ? { flag: 'zebra' } : {}) }));
      await store.writeLogs({ kind: 'logs', applicationId: app.id, projectId: project.id, receivedAt: toIso(T0), logs });
    }
    const rare = (limit: number) => collect(store.streamLogs({ userId: user.id, projectId: project.id, attributes: [{ key: 'flag', value: 'zebra' }], limit }));
    // Before the index has them: tested one by one, the same answer.
    const before = (await rare(10)).map((l) => l.message);
    expect(before).toEqual(['request 30007', 'request 20007', 'request 10007', 'request 7']);
    indexAll(file);
    const db = new Database(file, { readonly: true });
    registerLogAttrs(db);
    try {
      const cache = new StatementCache(db);
      const planOf = (attributes: Array<{ key: string; value?: string }>) => {
        const match = attrsQuery(attributes);
        const query: LogQuery = { userId: user.id, attributes };
        const plan = chooseLogPlan(cache, { match, index: 'attrs', limit: 101, projects: [project.id] });
        const { sql, params } = logPageSql(query, { match, plan, index: 'attrs' }, project.id, undefined, 101);
        const steps = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params).map((row) => (row as { detail: string }).detail).join('\n');
        return { plan, steps };
      };
      const zebra = planOf([{ key: 'flag', value: 'zebra' }]);
      expect(zebra.plan).toBe('index');
      expect(zebra.steps).toMatch(/SCAN logs_attrs VIRTUAL TABLE INDEX/);
      expect(zebra.steps).not.toMatch(/logs_project_ts/);
      expect(planOf([{ key: 'requestId', value: 'r-12345' }]).plan).toBe('index');
      const common = planOf([{ key: 'tenant', value: 'acme' }]);
      expect(common.plan).toBe('scan');
      expect(common.steps).not.toMatch(/VIRTUAL TABLE/);
      // A key alone has no postings: the scan, each log tested.
      expect(planOf([{ key: 'flag' }]).plan).toBe('scan');
    } finally {
      db.close();
    }
    expect((await rare(10)).map((l) => l.message)).toEqual(before);
    const one = await collect(store.streamLogs({ userId: user.id, projectId: project.id, attributes: [{ key: 'requestId', value: 'r-12345' }, { key: 'tenant' }] }));
    expect(one.map((l) => l.message)).toEqual(['request 12345']);
    expect((await collect(store.streamLogs({ userId: user.id, projectId: project.id, attributes: [{ key: 'flag' }], limit: 2 }))).map((l) => l.message))
      .toEqual(['request 30007', 'request 20007']);
  });
});
