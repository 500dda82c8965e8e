import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import type { LogEntry } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Store } from '@lantern/store';
import { createLogIndexer } from '../src/sqlite/log-indexer.js';
import { chooseLogPlan, trigramQuery } from '../src/sqlite/log-search.js';
import { StatementCache } from '../src/sqlite/paging.js';
import { configure, migrate } from '../src/sqlite/schema.js';

const T0 = Date.now() - 3_600_000;

function entry(at: number, message: string): LogEntry {
  return { id: newId(), projectId: 1, applicationId: 1, level: 'info', type: 'app', message, timestamp: toIso(at), clientTimestamp: toIso(at) };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A migrated database with one user, organization, project (1) and application (1). */
function seed(file: string): { db: Database.Database; userId: string } {
  const db = new Database(file);
  configure(db);
  migrate(db);
  const userId = newId();
  db.prepare("INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, 'u@x.test', 'u@x.test', 'U', 'h', 0)").run(userId);
  db.exec("INSERT INTO organizations (id, name, created_ms) VALUES (1, 'O', 0); INSERT INTO projects (id, organization_id, name) VALUES (1, 1, 'P'); INSERT INTO applications (id, project_id, name) VALUES (1, 1, 'A');");
  db.prepare("INSERT INTO memberships (organization_id, user_id, role) VALUES (1, ?, 'owner')").run(userId);
  return { db, userId };
}

function insertLogs(db: Database.Database, logs: LogEntry[]): void {
  const insert = db.prepare("INSERT INTO logs (id, project_id, application_id, level, ts, data) VALUES (?, 1, 1, 'info', ?, ?)");
  db.transaction(() => {
    for (const { id, projectId: _p, applicationId: _a, ...data } of logs) insert.run(id, Date.parse(data.timestamp), JSON.stringify(data));
  })();
}

const indexed = (db: Database.Database, text: string): number =>
  db.prepare('SELECT count(*) FROM logs_fts WHERE logs_fts MATCH ?').pluck().get(trigramQuery(text)) as number;
const watermark = (db: Database.Database): number => db.prepare('SELECT indexed_upto FROM logs_fts_state').pluck().get() as number;

describe('sqlite log indexer', () => {
  let dir: string;
  let file: string;
  const opened: Store[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-log-indexer-'));
    file = join(dir, 'lantern.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('indexes in chunks above the watermark, each chunk moving it', () => {
    const { db } = seed(file);
    insertLogs(db, Array.from({ length: 25 }, (_, i) => entry(T0 + i, i % 5 === 0 ? `zebracorn ${i}` : `plain ${i}`)));
    const indexer = createLogIndexer(db, 10);
    expect(indexer.backlog()).toBe(25);
    expect([indexer.step(), watermark(db), indexed(db, 'zebracorn')]).toEqual([10, 10, 2]);
    expect([indexer.step(), indexer.step(), indexer.step()]).toEqual([10, 5, 0]);
    expect([indexer.backlog(), watermark(db), indexed(db, 'zebracorn')]).toEqual([0, 25, 5]);
    db.close();
  });

  it('takes deleted logs out of the index, and indexes a rowid reused after the newest log was deleted', () => {
    const { db } = seed(file);
    insertLogs(db, [entry(T0, 'first zebracorn'), entry(T0 + 1, 'second zebracorn'), entry(T0 + 2, 'third zebracorn')]);
    const indexer = createLogIndexer(db);
    indexer.step();
    expect([watermark(db), indexed(db, 'zebracorn')]).toEqual([3, 3]);
    // An older log goes: out of the index, the watermark stays.
    db.prepare('DELETE FROM logs WHERE rowid = 1').run();
    expect([watermark(db), indexed(db, 'zebracorn')]).toEqual([3, 2]);
    // The newest log goes (a purge of a late log with an old timestamp), and the next insert takes its rowid.
    db.prepare('DELETE FROM logs WHERE rowid = 3').run();
    expect([watermark(db), indexed(db, 'zebracorn')]).toEqual([2, 1]);
    insertLogs(db, [entry(T0 + 3, 'fourth zebracorn')]);
    expect(db.prepare("SELECT rowid FROM logs WHERE data LIKE '%fourth%'").pluck().get()).toBe(3);
    expect(indexer.backlog()).toBe(1);
    expect(indexer.step()).toBe(1);
    expect([watermark(db), indexed(db, 'zebracorn')]).toEqual([3, 2]);
    // Above the watermark, a delete leaves the index alone.
    insertLogs(db, [entry(T0 + 4, 'fifth zebracorn')]);
    db.prepare('DELETE FROM logs WHERE rowid = 4').run();
    expect([watermark(db), indexed(db, 'zebracorn'), indexer.step()]).toEqual([3, 2, 0]);
    db.close();
  });

  it('lowers the watermark when a purge takes every log, indexed or not, so the next logs are indexed', () => {
    const { db } = seed(file);
    insertLogs(db, Array.from({ length: 10 }, (_, i) => entry(T0 + i, `zebracorn ${i}`)));
    const indexer = createLogIndexer(db, 5);
    expect(indexer.step()).toBe(5);
    // In rowid order, as the purge deletes: the indexed ones first, then the five above the watermark.
    db.prepare('DELETE FROM logs WHERE rowid IN (SELECT rowid FROM logs ORDER BY rowid LIMIT 10)').run();
    expect([watermark(db), indexed(db, 'zebracorn')]).toEqual([0, 0]);
    insertLogs(db, Array.from({ length: 3 }, (_, i) => entry(T0 + 20 + i, `zebracorn again ${i}`)));
    expect(indexer.backlog()).toBe(3);
    expect(indexer.step()).toBe(3);
    expect(indexed(db, 'zebracorn')).toBe(3);
    db.close();
  });

  it('never indexes a rowid twice when two connections run the indexer', () => {
    const { db } = seed(file);
    insertLogs(db, Array.from({ length: 30 }, (_, i) => entry(T0 + i, `zebracorn ${i}`)));
    const other = new Database(file);
    const a = createLogIndexer(db, 7);
    const b = createLogIndexer(other, 7);
    let covered = 0;
    for (let turn = 0; turn < 10; turn++) covered += (turn % 2 === 0 ? a : b).step();
    expect(covered).toBe(30);
    expect(db.prepare('SELECT count(*) FROM logs_fts').pluck().get()).toBe(30);
    expect(indexed(db, 'zebracorn')).toBe(30);
    other.close();
    db.close();
  });

  it('finds the logs above the watermark with the index plan, and scans when too many wait', async () => {
    const { db, userId } = seed(file);
    insertLogs(db, Array.from({ length: 3000 }, (_, i) => entry(T0 + i, i === 1500 ? 'request served, zebracorn' : `request ${i} served`)));
    createLogIndexer(db, 10_000).step();
    insertLogs(db, [entry(T0 + 5000, 'late zebracorn, not indexed yet'), ...Array.from({ length: 20 }, (_, i) => entry(T0 + 4000 + i, `tail ${i}`))]);
    const cache = new StatementCache(db);
    const plan = (): string => chooseLogPlan(cache, { match: trigramQuery('zebracorn'), limit: 101, projects: [1] });
    expect(plan()).toBe('index');
    db.close();
    const store = await openSqliteStore({ file });
    opened.push(store);
    const found = await collect(store.streamLogs({ userId, projectId: 1, messageContains: 'ZEBRACORN' }));
    expect(found.map((l) => l.message)).toEqual(['late zebracorn, not indexed yet', 'request served, zebracorn']);

    // More logs waiting than the index plan could read cheaply (cap ~ sqrt(101 * N / 5)): the time index instead.
    const again = new Database(file);
    insertLogs(again, Array.from({ length: 2000 }, (_, i) => entry(T0 + 6000 + i, `more ${i}`)));
    const cacheAgain = new StatementCache(again);
    expect(chooseLogPlan(cacheAgain, { match: trigramQuery('zebracorn'), limit: 101, projects: [1] })).toBe('scan');
    again.close();
  });

  it('indexes on the writer thread after a write, and at open on the logs stored before', async () => {
    const { db, userId } = seed(file);
    insertLogs(db, Array.from({ length: 1200 }, (_, i) => entry(T0 + i, i % 100 === 0 ? `zebracorn ${i}` : `plain ${i}`)));
    db.close();
    const store = await openSqliteStore({ file, writerThread: true });
    opened.push(store);
    const reader = new Database(file, { readonly: true });
    const waitIndexed = async (upto: number): Promise<number> => {
      for (let turns = 0; watermark(reader) < upto && turns < 500; turns++) await new Promise((resolve) => setTimeout(resolve, 10));
      return watermark(reader);
    };
    expect(await waitIndexed(1200)).toBe(1200);
    await store.writeLogs({ kind: 'logs', applicationId: 1, projectId: 1, receivedAt: toIso(T0), logs: [entry(T0 + 2000, 'zebracorn once more')] });
    expect(await waitIndexed(1201)).toBe(1201);
    expect(indexed(reader, 'zebracorn')).toBe(13);
    reader.close();
    const found = await collect(store.streamLogs({ userId, messageContains: 'zebracorn', limit: 2 }));
    expect(found.map((l) => l.message)).toEqual(['zebracorn once more', 'zebracorn 1100']);
  });
});
