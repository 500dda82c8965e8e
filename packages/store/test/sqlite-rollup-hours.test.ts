import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { QuantileSketch, newId, toIso } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Store } from '@lantern/store';
import { ROLLUP_PAGE_ROWS } from '../src/sqlite/rollup-reader.js';
import { UNDO_MIGRATION_10, UNDO_MIGRATION_11, UNDO_MIGRATION_13, UNDO_MIGRATION_14 } from './sqlite-undo.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-01T12:00:00.000Z');

function root(at: number, durationMs: number, responseStatus = 200): Span {
  return { timestamp: toIso(at), requestMethod: 'controller:GET /', traceId: newId(), spanId: newId(), parentSpanId: null, durationMs, responseStatus };
}

describe('sqlite store: hourly metrics rollups', () => {
  let dir: string;
  let file: string;
  const opened: Store[] = [];
  const open = async () => {
    const store = await openSqliteStore({ file });
    opened.push(store);
    return store;
  };
  async function world(store: Store, apps = 1) {
    const user = await store.createUser({ email: `${newId()}@example.test`, name: 'U', passwordHash: 'h' });
    const org = await store.createOrganization({ name: 'O', ownerId: user.id });
    const project = await store.createProject({ name: 'P', organizationId: org.id });
    const applications = [];
    for (let i = 0; i < apps; i++) applications.push(await store.createApplication({ name: `A${i}`, projectId: project.id }));
    return { user, project, apps: applications };
  }
  const write = (store: Store, app: { id: number; projectId: number }, spans: Span[]) =>
    store.writeSpans({ kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: toIso(T0), spans });
  const requests = async (store: Store, query: Parameters<Store['readMetrics']>[0]) =>
    (await store.readMetrics(query)).reduce((n, c) => n + c.requests, 0);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-sqlite-hours-'));
    file = join(dir, 'lantern.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps each hour row the sum of its minute rows, and reads whole hours from them', async () => {
    const store = await open();
    const w = await world(store);
    const spans: Span[] = [];
    for (let m = 0; m < 180; m += 3) spans.push(root(T0 + m * MINUTE + 1000, 10 + m, m % 7 === 0 ? 500 : 200));
    await write(store, w.apps[0]!, spans);
    const db = new Database(file);
    try {
      const minutes = db.prepare(`SELECT minute - minute % 3600000 AS hour, sum(requests) AS requests, sum(errors) AS errors
        FROM metric_rollups GROUP BY 1 ORDER BY 1`).all();
      const hours = db.prepare('SELECT hour, requests, errors FROM metric_rollups_hourly ORDER BY hour').all();
      expect(hours).toEqual(minutes);
      expect(hours).toHaveLength(3);
      // The minute rows of the middle hour gone: a read by the hour still counts it (from its hour row), a read
      // by 10 minutes (minute rows only) no longer does.
      db.prepare('DELETE FROM metric_rollups WHERE minute >= ? AND minute < ?').run(T0 + HOUR, T0 + 2 * HOUR);
    } finally {
      db.close();
    }
    const query = { userId: w.user.id, from: T0, to: T0 + 3 * HOUR };
    expect(await requests(store, { ...query, bucketMs: HOUR })).toBe(60);
    expect(await requests(store, { ...query, bucketMs: 10 * MINUTE })).toBe(40);
    // A window cutting the hours: their edges by the minute.
    // Buckets of an hour from :30 hold no whole hour (minutes only: the deleted hour is missing); one of 2 hours does.
    expect(await requests(store, { ...query, from: T0 + 30 * MINUTE, to: T0 + 150 * MINUTE, bucketMs: HOUR })).toBe(10 + 10);
    expect(await requests(store, { ...query, from: T0 + 30 * MINUTE, to: T0 + 150 * MINUTE, bucketMs: 2 * HOUR })).toBe(10 + 20 + 10);
  });

  it('migrates a version-4 database: its hour rows are backfilled from the entry spans already stored', async () => {
    const before = await open();
    const w = await world(before);
    const spans: Span[] = [];
    for (let i = 0; i < 400; i++) spans.push(root(T0 - 2 * HOUR + i * 40_000, i % 40 === 0 ? 0 : 1 + ((i * 37) % 900), i % 9 === 0 ? 503 : 200));
    const waiting = { ...root(T0 + 5, 70), parentSpanId: newId() };
    await write(before, w.apps[0]!, [...spans, waiting]);
    const query = { userId: w.user.id, from: T0 - 3 * HOUR, to: T0 + 3 * HOUR, bucketMs: HOUR };
    const written = (await before.readMetrics(query)).map((c) => ({ ...c, sketch: c.sketch.toArray() }));
    await before.close();
    const v4 = new Database(file);
    // Back to version 4: without the hour rows, and without the later log search migration's objects.
    v4.exec(`DROP TABLE metric_rollups_hourly; DROP TRIGGER logs_fts_delete; DROP TABLE logs_fts; DROP TABLE logs_fts_state;
      DROP INDEX logs_project_level_ts; ${UNDO_MIGRATION_14} ${UNDO_MIGRATION_13} ${UNDO_MIGRATION_11} ${UNDO_MIGRATION_10}`);
    v4.pragma('user_version = 4');
    v4.close();

    const migrated = await open();
    const backfilled = await migrated.readMetrics(query);
    expect(backfilled.map((c) => ({ ...c, sketch: c.sketch.toArray() }))).toEqual(written);
    expect(backfilled.reduce((n, c) => n + c.requests, 0)).toBe(401);
    // The backfilled rows keep following the spans: the waiting span's parent arrives and it is taken out.
    await write(migrated, w.apps[0]!, [{ ...root(T0 + 4, 1), traceId: waiting.traceId, spanId: waiting.parentSpanId!, requestMethod: 'service:x' }]);
    expect(await requests(migrated, query)).toBe(400);
  });

  it('lets the event loop turn during a long read: a timer set before it fires before it completes', async () => {
    // A month of hour rows and a day of minute rows for 4 applications, written directly (what traffic leaves).
    const setup = await open();
    const w = await world(setup, 4);
    await setup.close();
    const sketch = new QuantileSketch();
    for (let d = 1; d < 3000; d = Math.ceil(d * 1.05)) sketch.add(d, 3);
    const bytes = sketch.encode();
    const db = new Database(file);
    const from = T0 - 31 * DAY;
    db.transaction(() => {
      const minute = db.prepare('INSERT INTO metric_rollups VALUES (?, ?, ?, ?, ?, ?)');
      const hour = db.prepare('INSERT INTO metric_rollups_hourly VALUES (?, ?, ?, ?, ?, ?)');
      for (const app of w.apps) {
        for (let t = T0 - DAY; t < T0; t += MINUTE) minute.run(w.project.id, t, app.id, sketch.count, 1, bytes);
        for (let t = from; t < T0; t += HOUR) hour.run(w.project.id, t, app.id, sketch.count * 60, 60, bytes);
      }
    })();
    db.close();
    const store = await open();
    for (const [window, rows] of [[{ from, to: T0, bucketMs: 6 * HOUR }, 4 * 31 * 24], [{ from: T0 - DAY, to: T0, bucketMs: 10 * MINUTE }, 4 * 1440]] as const) {
      let timerFired = false;
      const timer = setTimeout(() => (timerFired = true), 0);
      let turns = 0;
      let reading = true;
      const spin = (): void => {
        if (!reading) return;
        turns++;
        setImmediate(spin);
      };
      setImmediate(spin);
      const cells = await store.readMetrics({ userId: w.user.id, ...window });
      reading = false;
      const firedDuringRead = timerFired;
      clearTimeout(timer);
      expect(firedDuringRead).toBe(true);
      // A turn per page at least (the last page ends the read without one).
      expect(turns).toBeGreaterThanOrEqual(Math.floor(rows / ROLLUP_PAGE_ROWS) - 1);
      expect(cells.reduce((n, c) => n + c.requests, 0)).toBe(rows === 4 * 1440 ? 4 * 1440 * sketch.count : 4 * 31 * 24 * 60 * sketch.count);
    }
  });
});
