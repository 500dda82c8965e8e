import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Cursor, LogQuery, Store, TraceQuery } from '@lantern/store';
import { logBatch, logEntry, makeWorld, rootSpan, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { logPageSql } from '../src/sqlite/logs.js';
import { rootPageSql, tracePageSql } from '../src/sqlite/traces.js';
import type { PageSql } from '../src/sqlite/traces.js';

/**
 * Keyset paging where the cursor bounds the index scan (issue 18): a page deep in a time window visits as many
 * rows as the first. The cost is counted, not timed: `visit(ts)`, placed first in the WHERE clause, is called
 * once for every row the index scan hands to the filters, so the count is the rows the statement visited (one
 * more than the page when the scan starts on the cursor's own row).
 */
const N = 20_000;
const PAGE = 100;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (i: number): number => T0 + i * 1000;

describe('sqlite keyset paging', () => {
  let dir: string;
  let file: string;
  let store: Store;
  let w: World;
  let db: Database.Database;
  let visits = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-keyset-'));
    file = join(dir, 'lantern.db');
    store = await openSqliteStore({ file });
    w = await makeWorld(store, 'keyset');
    for (let first = 0; first < N; first += 2000) {
      // Three services, five operations and a rare one (1 %), a tenth of them 503s: what the trace filters' indexes serve.
      const spans = Array.from({ length: 2000 }, (_, i) => rootSpan(newId(), at(first + i), {
        requestURL: `/items/${first + i}`, serviceName: ['web', 'api', 'jobs'][i % 3], kind: 'server',
        name: i % 100 === 7 ? 'POST /rare' : `GET /op${i % 5}`, responseStatus: i % 10 === 0 ? 503 : 200,
      }));
      await store.writeSpans(spanBatch(w.app, spans));
      const logs = Array.from({ length: 2000 }, (_, i) => logEntry(w.app, at(first + i), { level: i % 2 ? 'info' : 'warn', traceId: newId() }));
      await store.writeLogs(logBatch(w.app, logs));
    }
    db = new Database(file, { readonly: true });
    db.function('visit', { varargs: true }, () => {
      visits += 1;
      return 1;
    });
  }, 60_000);

  afterAll(async () => {
    db?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The rows `page` visits (its WHERE clause led by visit()), and the keyset position of its last row. */
  function cost(page: PageSql, alias: string): { visited: number; last: Cursor | undefined; plan: string } {
    const sql = page.sql.replace(new RegExp(`WHERE (\\+?${alias}\\.project_id)`), `WHERE visit(${alias}.ts) AND $1`);
    expect(sql).not.toBe(page.sql);
    visits = 0;
    const rows = db.prepare(sql).all(...page.params) as Array<{ ts: number; id?: string; r?: number }>;
    const visited = visits;
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${page.sql}`).all(...page.params).map((row) => (row as { detail: string }).detail).join('\n');
    const row = rows[rows.length - 1];
    return { visited, last: row && { ts: row.ts, id: row.id ?? String(row.r) }, plan };
  }

  /** The cursor of the page that starts at `depth` (0..1) of the window, newest first. */
  const cursorAt = (depth: number): Cursor => {
    const i = N - 1 - Math.floor(depth * N);
    const id = db.prepare('SELECT id FROM traces WHERE ts = ?').pluck().get(at(i)) as string;
    return { ts: at(i), id };
  };

  it('starts a trace page at the cursor, not at the window\'s edge: the page at 95 % depth visits what the first does', () => {
    const query: TraceQuery = { userId: w.user.id, projectId: w.project.id, from: T0, to: at(N) };
    const first = cost(tracePageSql(query, undefined, PAGE), 't');
    const deep = cost(tracePageSql(query, cursorAt(0.95), PAGE), 't');
    expect(deep.plan).toMatch(/SEARCH t USING COVERING INDEX traces_project_ts \(project_id=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/);
    expect(first.visited).toBe(PAGE);
    expect(deep.visited).toBeLessThanOrEqual(PAGE + 1);
    // The same page with both bounds in the WHERE clause (before issue 18) walks down from `to` to the cursor.
    const both = tracePageSql(query, undefined, PAGE);
    const cursor = cursorAt(0.95);
    const old = cost({ ...both, sql: both.sql.replace('ORDER BY', 'AND (t.ts, t.id) < (?, ?) ORDER BY'),
      params: [...both.params.slice(0, -1), cursor.ts, cursor.id, PAGE] }, 't');
    expect(old.visited).toBeGreaterThan(0.9 * N);
    expect(old.last).toEqual(deep.last);
  });

  it('bounds a trace read by its application\'s index with the cursor too, and slices a filter no index serves', () => {
    const cursor = cursorAt(0.95);
    const byApp = cost(tracePageSql({ userId: w.user.id, projectId: w.project.id, applicationId: w.app.id, from: T0, to: at(N) }, cursor, PAGE), 't');
    expect(byApp.plan).toMatch(/traces_application_ts \(application_id=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/);
    expect(byApp.visited).toBeLessThanOrEqual(PAGE + 1);
    // A url no record has: one statement visits one slice of the index, not the whole project.
    const url = tracePageSql({ userId: w.user.id, projectId: w.project.id, urlContains: 'zzzz', from: T0, to: at(N) }, cursor, PAGE, 500);
    expect(url.visits).toBe(500);
    const sliced = cost(url, 't');
    expect(sliced.visited).toBeLessThanOrEqual(501);
  });

  it('reads a service, an operation or a status class through its own index, in order: a deep page visits what the first does', () => {
    const query = (q: Partial<TraceQuery>): TraceQuery => ({ userId: w.user.id, projectId: w.project.id, from: T0, to: at(N), ...q });
    const cases: Array<[Partial<TraceQuery>, RegExp]> = [
      [{ operation: 'POST /rare' }, /traces_operation \(project_id=\? AND root_operation=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/],
      [{ service: 'api' }, /traces_service \(project_id=\? AND root_service=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/],
      [{ status: { min: 500, max: 599 } }, /traces_errors \(project_id=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/],
      // The operation's index leads; the service and the application are tested on its rows.
      [{ operation: 'GET /op1', service: 'web', applicationId: w.app.id }, /traces_operation \(project_id=\? AND root_operation=\?/],
    ];
    for (const [filters, index] of cases) {
      const first = cost(tracePageSql(query(filters), undefined, PAGE), 't');
      const deep = cost(tracePageSql(query(filters), cursorAt(0.5), PAGE), 't');
      expect(deep.plan).toMatch(index);
      expect(first.plan).not.toContain('TEMP B-TREE');
      expect(deep.visited).toBeLessThanOrEqual(first.visited + 1);
    }
    // Each read on its own index hands over only its own records: the rare operation's first page is its 200
    // records' newest 100, not a slice of the project's.
    expect(cost(tracePageSql(query({ operation: 'POST /rare' }), undefined, PAGE), 't').visited).toBe(PAGE);
    // A failed code is tested among the failed traces: one slice at most, never the project's.
    const exact = tracePageSql(query({ status: { min: 503, max: 503 } }), undefined, PAGE, 500);
    const exactCost = cost(exact, 't');
    expect(exactCost.plan).toMatch(/traces_errors/);
    expect(exactCost.visited).toBeLessThanOrEqual(500);
    // Another class is common: slices of the project's time index.
    const missing = cost(tracePageSql(query({ status: { min: 404, max: 404 } }), undefined, PAGE, 500), 't');
    expect(missing.plan).toMatch(/traces_project_ts/);
    expect(missing.visited).toBeLessThanOrEqual(500);
  });

  it('reads an attribute through its postings, in the list\'s order: a deep page visits what the first does, a second term and a key alone are tested per record', () => {
    const query = (q: Partial<TraceQuery>): TraceQuery => ({ userId: w.user.id, projectId: w.project.id, from: T0, to: at(N), ...q });
    const postings = /SEARCH a USING PRIMARY KEY \(project_id=\? AND hash=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)[\s\S]*SEARCH t USING (COVERING )?INDEX traces_project_ts \(project_id=\? AND ts=\? AND id=\?\)/;
    for (const attributes of [[{ key: 'name', value: 'POST /rare' }], [{ key: 'service.name', value: 'api' }], [{ key: 'kind', value: 'server' }]]) {
      const first = cost(tracePageSql(query({ attributes }), undefined, PAGE), 'a');
      const deep = cost(tracePageSql(query({ attributes }), cursorAt(0.5), PAGE), 'a');
      expect(deep.plan).toMatch(postings);
      expect(first.plan).not.toContain('TEMP B-TREE');
      // Only the attribute's own records: the rare name's first page is its records' newest 100, not a slice.
      expect(first.visited).toBe(PAGE);
      expect(deep.visited).toBeLessThanOrEqual(PAGE + 1);
    }
    // One URL: its single record, found without walking anything else.
    expect(cost(tracePageSql(query({ attributes: [{ key: 'requestURL', value: '/items/1234' }] }), undefined, PAGE), 'a').visited).toBe(1);
    // A second attribute (and any other filter) is tested on each record of the first pair's postings, a slice at most.
    const both = tracePageSql(query({ attributes: [{ key: 'service.name', value: 'api' }, { key: 'name', value: 'POST /rare' }], service: 'web' }), undefined, PAGE, 500);
    expect(both.sql).toContain('instr(t.attrs, ?)');
    const bothCost = cost(both, 'a');
    expect(bothCost.plan).toMatch(/SEARCH a USING PRIMARY KEY \(project_id=\? AND hash=\? AND ts>\? AND ts<\?\)[\s\S]*SEARCH t USING INDEX traces_project_ts/);
    expect(bothCost.visited).toBeLessThanOrEqual(500);
    // Without a window too, the postings stay the outer loop: left to itself, with a filter on the records, the
    // planner walked the project's time index and probed the postings (2 s at 10M spans).
    const open = tracePageSql({ userId: w.user.id, projectId: w.project.id, attributes: [{ key: 'service.name', value: 'api' }], status: { min: 500, max: 599 } }, undefined, PAGE, 500);
    expect(cost(open, 'a').plan).toMatch(/^(?:(?!SEARCH t)[\s\S])*SEARCH a USING PRIMARY KEY \(project_id=\? AND hash=\?\)[\s\S]*SEARCH t USING INDEX traces_project_ts/);
    // A key alone has no postings: it is tested on the records of the time index (or another filter's), in slices.
    const key = tracePageSql(query({ attributes: [{ key: 'kind' }] }), undefined, PAGE, 500);
    const keyCost = cost(key, 't');
    expect(keyCost.plan).toMatch(/traces_project_ts/);
    expect(keyCost.visited).toBeLessThanOrEqual(500);
  });

  it('starts a log page at the cursor on the project, level and trace indexes', () => {
    const search = { match: undefined, plan: 'scan' as const };
    const deepCursor = (): Cursor => {
      const i = N - 1 - Math.floor(0.95 * N);
      return { ts: at(i), id: db.prepare('SELECT id FROM logs WHERE ts = ?').pluck().get(at(i)) as string };
    };
    const query: LogQuery = { userId: w.user.id, projectId: w.project.id, from: T0, to: at(N) };
    const first = cost(logPageSql(query, search, w.project.id, undefined, PAGE), 'l');
    const deep = cost(logPageSql(query, search, w.project.id, deepCursor(), PAGE), 'l');
    expect(deep.plan).toMatch(/logs_project_ts \(project_id=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/);
    expect(first.visited).toBe(PAGE);
    expect(deep.visited).toBeLessThanOrEqual(PAGE + 1);
    const level = cost(logPageSql({ ...query, level: 'warn' }, search, w.project.id, deepCursor(), PAGE), 'l');
    expect(level.plan).toMatch(/logs_project_level_ts \(project_id=\? AND level=\? AND ts>\? AND \(ts,id\)<\(\?,\?\)\)/);
    expect(level.visited).toBeLessThanOrEqual(PAGE + 1);
    // A text on the scan plan: each statement visits one slice, whatever the depth.
    const text = logPageSql({ ...query, messageContains: 'zzzz' }, search, w.project.id, deepCursor(), PAGE, 500);
    expect(cost(text, 'l').visited).toBeLessThanOrEqual(501);
  });

  it('starts the entry spans\' next page at the cursor (ascending), inside the window', () => {
    const query = { userId: w.user.id, projectId: w.project.id, from: T0, to: at(N) };
    const i = Math.floor(0.95 * N);
    const r = db.prepare('SELECT rowid FROM spans WHERE ts = ?').pluck().get(at(i)) as number;
    const first = cost(rootPageSql(query, w.project.id, undefined, PAGE), 's');
    const deep = cost(rootPageSql(query, w.project.id, { ts: at(i), r }, PAGE), 's');
    expect(first.visited).toBe(PAGE);
    expect(deep.visited).toBeLessThanOrEqual(PAGE + 1);
    expect(deep.last?.ts).toBe(at(i + PAGE));
  });

  it('reads the same records through the store, page after page, with a window and a cursor', async () => {
    const read = async <T extends { id: string; timestamp: string }>(page: (cursor: Cursor | undefined) => AsyncIterable<T>) => {
      const ids: string[] = [];
      let cursor: Cursor | undefined;
      for (;;) {
        const items: T[] = [];
        for await (const item of page(cursor)) items.push(item);
        ids.push(...items.map((item) => item.id));
        if (items.length < 1000) return ids;
        const last = items[items.length - 1]!;
        cursor = { ts: Date.parse(last.timestamp), id: last.id };
      }
    };
    const window = { from: at(1000), to: at(N - 1000) };
    const traces = await read((cursor) => store.streamTraces({ userId: w.user.id, projectId: w.project.id, ...window, limit: 1000, ...(cursor ? { cursor } : {}) }));
    expect(traces).toHaveLength(N - 2000);
    expect(new Set(traces).size).toBe(N - 2000);
    const logs = await read((cursor) => store.streamLogs({ userId: w.user.id, projectId: w.project.id, ...window, limit: 1000, ...(cursor ? { cursor } : {}) }));
    expect(logs).toHaveLength(N - 2000);
  });
});
