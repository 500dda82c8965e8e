import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError, newId, toIso } from '@lantern/domain';
import type { Span, SpanBatchMessage } from '@lantern/domain';
import { openSqliteStore } from '@lantern/store';
import type { Store } from '@lantern/store';
import { describeStoreContract } from '@lantern/store/contract';
import { toStoreError } from '../src/sqlite/errors.js';
import { CALLS_FROM_SQL } from '../src/sqlite/purge.js';
import { MIGRATIONS } from '../src/sqlite/schema.js';
import { SPAN_CALLS_SQL } from '../src/sqlite/span-calls.js';
import { UNDO_MIGRATION_10, UNDO_MIGRATION_11, UNDO_MIGRATION_13, UNDO_MIGRATION_14, UNDO_MIGRATION_17, UNDO_MIGRATION_19 } from './sqlite-undo.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const HOUR = 3_600_000;

// Every stream again with tiny internal pages, so that page boundaries fall everywhere.
describeStoreContract('sqlite (memory, pages of 3)', async () => ({ store: await openSqliteStore({ file: ':memory:', pageSize: 3 }) }));

function root(traceId: string, at: number, extra: Record<string, unknown> = {}): Span {
  return { timestamp: toIso(at), requestMethod: 'controller:GET /', traceId, spanId: newId(), parentSpanId: null, durationMs: 3, responseStatus: 200, ...extra };
}

async function world(store: Store) {
  const user = await store.createUser({ email: `${newId()}@example.test`, name: 'U', passwordHash: 'h' });
  const org = await store.createOrganization({ name: 'O', ownerId: user.id });
  const project = await store.createProject({ name: 'P', organizationId: org.id });
  const app = await store.createApplication({ name: 'A', projectId: project.id });
  return { user, org, project, app };
}

function batch(app: { id: number; projectId: number }, spans: Span[], idempotencyKey?: string): SpanBatchMessage {
  return { kind: 'spans', applicationId: app.id, projectId: app.projectId, receivedAt: toIso(T0), spans, ...(idempotencyKey ? { idempotencyKey } : {}) };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('sqlite store', () => {
  let dir: string;
  let file: string;
  const opened: Store[] = [];
  const open = async (options: { now?: () => number } = {}) => {
    const store = await openSqliteStore({ file, ...options });
    opened.push(store);
    return store;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-sqlite-'));
    file = join(dir, 'lantern.db');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps everything across close and reopen of a file', async () => {
    const first = await open();
    const w = await world(first);
    const key = await first.createApiKey({ applicationId: w.app.id, projectId: w.project.id, name: 'k', prefix: 'lk_1234567', hash: 'h-1' });
    const span = root(newId(), T0, { extra: { kept: true } });
    await first.writeSpans(batch(w.app, [span]));
    const traces = await collect(first.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    await first.close();

    const second = await open();
    expect(await second.findUserByEmail(w.user.email)).toMatchObject({ id: w.user.id, passwordHash: 'h' });
    expect(await second.listMemberships(w.user.id)).toEqual([{ ...w.org, role: 'owner' }]);
    expect(await second.findApiKeyByHash('h-1')).toEqual(key);
    expect(await collect(second.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toEqual(traces);
    expect(traces[0]!.telemetry).toEqual([span]);
    const next = await second.createProject({ name: 'next', organizationId: w.org.id });
    expect(next.id).toBeGreaterThan(w.project.id);
  });

  it('runs in WAL mode with the schema version recorded, and reopening keeps it', async () => {
    await (await open()).close();
    await (await open()).close();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    } finally {
      db.close();
    }
  });

  it('migrates a version-1 database with telemetry: its roots stay roots for metrics and trace filters', async () => {
    const v1 = new Database(file);
    v1.exec(MIGRATIONS[0]!);
    v1.pragma('user_version = 1');
    const userId = newId();
    v1.prepare("INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, 'u@x.test', 'u@x.test', 'U', 'h', 0)").run(userId);
    v1.exec("INSERT INTO organizations (id, name, created_ms) VALUES (1, 'O', 0); INSERT INTO projects (id, organization_id, name) VALUES (1, 1, 'P'); INSERT INTO applications (id, project_id, name) VALUES (1, 1, 'A');");
    v1.prepare("INSERT INTO memberships (organization_id, user_id, role) VALUES (1, ?, 'owner')").run(userId);
    const traceId = newId();
    const rootSpan = root(traceId, T0, { durationMs: 700, responseStatus: 503 });
    const child = { ...root(traceId, T0 + 1), parentSpanId: rootSpan.spanId };
    const insert = v1.prepare(`INSERT INTO spans (application_id, span_id, project_id, trace_id, ts, root_controller, duration_ms, status, data)
      VALUES (1, ?, 1, ?, ?, ?, ?, ?, ?)`);
    insert.run(rootSpan.spanId, traceId, T0, 1, 700, 503, JSON.stringify(rootSpan));
    insert.run(child.spanId, traceId, T0 + 1, 0, 3, 200, JSON.stringify(child));
    v1.prepare(`INSERT INTO traces (application_id, trace_id, id, project_id, ts, has_root, root_duration_ms, root_status)
      VALUES (1, ?, ?, 1, ?, 1, 700, 503)`).run(traceId, newId(), T0);
    // A called service's trace: its entry span's parent is in another application; v1 stored it without a root.
    const calledId = newId();
    const entry = { ...root(calledId, T0 + 5, { durationMs: 900, responseStatus: 502 }), parentSpanId: newId() };
    insert.run(entry.spanId, calledId, T0 + 5, 0, 900, 502, JSON.stringify(entry));
    v1.prepare(`INSERT INTO traces (application_id, trace_id, id, project_id, ts, has_root, root_duration_ms, root_status)
      VALUES (1, ?, ?, 1, ?, 0, NULL, NULL)`).run(calledId, newId(), T0 + 5);
    v1.close();

    const store = await open();
    const rows = await collect(store.streamRootSpans({ userId, from: T0, to: T0 + 10 }));
    expect(rows).toEqual([
      { projectId: 1, applicationId: 1, ts: T0, durationMs: 700, responseStatus: 503, operation: null },
      { projectId: 1, applicationId: 1, ts: T0 + 5, durationMs: 900, responseStatus: 502, operation: null },
    ]);
    const called = await collect(store.streamTraces({ userId, projectId: 1, status: { min: 502, max: 502 }, minDurationMs: 900 }));
    expect(called.map((t) => t.traceId)).toEqual([calledId]);
    // A later controller span of the same trace under a foreign parent ranks below the migrated root.
    await store.writeSpans(batch({ id: 1, projectId: 1 }, [{ ...root(traceId, T0 + 2, { durationMs: 1, responseStatus: 200 }), parentSpanId: newId() }]));
    const found = await collect(store.streamTraces({ userId, projectId: 1, status: { min: 503, max: 503 }, minDurationMs: 700 }));
    expect(found.map((t) => t.telemetry.length)).toEqual([3]);
  });

  it('migrates a version-2 database: its trace records get their root span\'s requestURL for the url filter', async () => {
    const v2 = new Database(file);
    v2.exec(MIGRATIONS[0]!);
    v2.exec(MIGRATIONS[1]!);
    v2.pragma('user_version = 2');
    const userId = newId();
    v2.prepare("INSERT INTO users (id, email, email_lower, name, password_hash, created_ms) VALUES (?, 'u@x.test', 'u@x.test', 'U', 'h', 0)").run(userId);
    v2.exec("INSERT INTO organizations (id, name, created_ms) VALUES (1, 'O', 0); INSERT INTO projects (id, organization_id, name) VALUES (1, 1, 'P'); INSERT INTO applications (id, project_id, name) VALUES (1, 1, 'A');");
    v2.prepare("INSERT INTO memberships (organization_id, user_id, role) VALUES (1, ?, 'owner')").run(userId);
    const insertSpan = v2.prepare(`INSERT INTO spans (application_id, span_id, project_id, trace_id, ts, parent_span_id, controller, duration_ms, status, data)
      VALUES (1, ?, 1, ?, ?, ?, ?, ?, ?, ?)`);
    const store = (s: Span) => insertSpan.run(s.spanId, s.traceId, Date.parse(s.timestamp), s.parentSpanId ?? null,
      String(s.requestMethod).startsWith('controller:') ? 1 : 0, s.durationMs ?? null, s.responseStatus ?? null, JSON.stringify(s));
    const insertTrace = v2.prepare(`INSERT INTO traces (application_id, trace_id, id, project_id, ts, has_root, root_ts, root_duration_ms, root_status)
      VALUES (1, ?, ?, 1, ?, ?, ?, ?, ?)`);
    // A trace with a span without parent (rank 2), stored after its child; the child's URL is not the root's.
    const plain = newId();
    const plainRoot = root(plain, T0, { durationMs: 40, responseStatus: 200, requestURL: '/Legacy/Root' });
    store({ ...root(plain, T0 + 1, { requestURL: '/legacy/child' }), parentSpanId: plainRoot.spanId, requestMethod: 'service:work' });
    store(plainRoot);
    insertTrace.run(plain, newId(), T0, 2, null, 40, 200);
    // A continued trace (rank 1): the entry span at root_ts, and a controller span nested in it, also under a parent
    // not stored, at another time: only the one the root columns came from gives the URL.
    const called = newId();
    store({ ...root(called, T0 + 10, { durationMs: 900, responseStatus: 502, requestURL: '/called/entry' }), parentSpanId: newId() });
    store({ ...root(called, T0 + 12, { durationMs: 5, responseStatus: 200, requestURL: '/called/nested' }), parentSpanId: newId() });
    insertTrace.run(called, newId(), T0 + 10, 1, T0 + 10, 900, 502);
    // No root at all: its span's URL is no root URL. And a root without requestURL.
    const orphan = newId();
    store({ ...root(orphan, T0 + 20, { requestURL: '/legacy/orphan' }), parentSpanId: newId(), requestMethod: 'service:work' });
    insertTrace.run(orphan, newId(), T0 + 20, 0, null, null, null);
    const bare = newId();
    store(root(bare, T0 + 30));
    insertTrace.run(bare, newId(), T0 + 30, 2, T0 + 30, 3, 200);
    v2.close();

    const migrated = await open();
    const matching = async (urlContains: string) =>
      (await collect(migrated.streamTraces({ userId, projectId: 1, urlContains }))).map((t) => t.traceId);
    expect(await matching('legacy/ROOT')).toEqual([plain]);
    expect(await matching('legacy/child')).toEqual([]);
    expect(await matching('/called/')).toEqual([called]);
    expect(await matching('nested')).toEqual([]);
    expect(await matching('orphan')).toEqual([]);
    expect(await matching('/')).toEqual([called, plain]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT trace_id, root_url FROM traces ORDER BY ts').all()).toEqual([
        { trace_id: plain, root_url: '/Legacy/Root' }, { trace_id: called, root_url: '/called/entry' },
        { trace_id: orphan, root_url: null }, { trace_id: bare, root_url: null },
      ]);
    } finally {
      db.close();
    }
    // The migrated record's root URL follows a later root like the other root columns: a span without parent
    // outranks the entry span.
    await migrated.writeSpans(batch({ id: 1, projectId: 1 }, [root(called, T0 + 9, { requestURL: '/caller/outer' })]));
    expect(await matching('/called/')).toEqual([]);
    expect(await matching('/caller/outer')).toEqual([called]);
  });

  it('migrates a version-3 database: its metrics rollups are backfilled from the entry spans already stored', async () => {
    const before = await open();
    const w = await world(before);
    const spans: Span[] = [];
    for (let i = 0; i < 300; i++) {
      const t = newId();
      const entry = root(t, T0 + i * 1000, { durationMs: i % 50 === 0 ? 0 : 1 + ((i * 37) % 900), responseStatus: i % 9 === 0 ? 503 : 200 });
      spans.push(entry, { ...root(t, T0 + i * 1000 + 1), parentSpanId: entry.spanId });
      if (i % 30 === 0) spans.push({ ...root(t, T0 + i * 1000 + 2, { durationMs: undefined }), parentSpanId: newId() });
    }
    const waiting = { ...root(newId(), T0 + 5), parentSpanId: newId() };
    await before.writeSpans(batch(w.app, [...spans, waiting]));
    const query = { userId: w.user.id, from: T0, to: T0 + 10 * 60_000, bucketMs: 60_000 };
    const written = (await before.readMetrics(query)).map((c) => ({ ...c, sketch: c.sketch.toArray() }));
    await before.close();
    const v3 = new Database(file);
    // Back to version 3: without the rollups (minute and hour), and without the later log search migration's objects.
    v3.exec(`DROP TABLE metric_rollups; DROP TABLE metric_rollups_hourly; DROP TRIGGER logs_fts_delete; DROP TABLE logs_fts;
      DROP TABLE logs_fts_state; DROP INDEX logs_project_level_ts; ${UNDO_MIGRATION_14} ${UNDO_MIGRATION_13} ${UNDO_MIGRATION_11} ${UNDO_MIGRATION_10}`);
    v3.pragma('user_version = 3');
    v3.close();

    const migrated = await open();
    const backfilled = await migrated.readMetrics(query);
    expect(backfilled.map((c) => ({ ...c, sketch: c.sketch.toArray() }))).toEqual(written);
    expect(backfilled.reduce((n, c) => n + c.requests, 0)).toBe(311);
    // The backfilled rows keep following the spans: the waiting span's parent arrives and it is taken out.
    await migrated.writeSpans(batch(w.app, [root(waiting.traceId, T0 + 4, { spanId: waiting.parentSpanId! })]));
    expect((await migrated.readMetrics(query)).reduce((n, c) => n + c.requests, 0)).toBe(311);
    expect((await migrated.readMetrics(query))[0]!.requests).toBe(written[0]!.requests);
  });

  it('migrates a version-13 database: its trace records get their root span\'s service and operation, found through their indexes', async () => {
    const before = await open();
    const w = await world(before);
    const [otel, lantern, entry, child] = [newId(), newId(), newId(), newId()];
    const ctx = { serviceName: 'checkout', resource: [{ key: 'service.name', value: 'checkout' }] };
    await before.writeSpans(batch(w.app, [
      // An OpenTelemetry root whose service sits in its context row (migration 13), named by method and http.route.
      root(otel, T0, { ...ctx, name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/cart' }] }),
      // A Lantern SDK root, and its child of another name: the root names the record.
      root(lantern, T0 + 1, { requestMethod: 'controller:POST', route: '/pay' }),
      { ...root(lantern, T0 + 2, { requestMethod: 'service:charge' }), parentSpanId: newId() },
      // A continued trace (rank 1): its entry span at root_ts names it, not a controller span nested under another parent.
      { ...root(entry, T0 + 10, { requestMethod: 'controller:GET', route: '/entry', durationMs: 900 }), parentSpanId: newId() },
      { ...root(entry, T0 + 12, { requestMethod: 'controller:GET', route: '/nested', durationMs: 5 }), parentSpanId: newId() },
      // No root at all.
      { ...root(child, T0 + 20, { requestMethod: 'service:orphan' }), parentSpanId: newId() },
    ]));
    await before.close();
    const v13 = new Database(file);
    v13.exec(UNDO_MIGRATION_14);
    expect(v13.prepare("SELECT count(*) FROM pragma_table_info('traces') WHERE name = 'root_operation'").pluck().get()).toBe(0);
    v13.pragma('user_version = 13');
    v13.close();

    const migrated = await open();
    const found = async (query: { service?: string; operation?: string }) =>
      (await collect(migrated.streamTraces({ userId: w.user.id, projectId: w.project.id, ...query }))).map((t) => t.traceId);
    expect(await found({ service: 'checkout' })).toEqual([otel]);
    expect(await found({ operation: 'GET /cart' })).toEqual([otel]);
    expect(await found({ operation: 'POST /pay' })).toEqual([lantern]);
    expect(await found({ operation: 'charge' })).toEqual([]);
    expect(await found({ operation: 'GET /entry' })).toEqual([entry]);
    expect(await found({ operation: 'GET /nested' })).toEqual([]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT trace_id, root_service, root_operation FROM traces ORDER BY ts').all()).toEqual([
        { trace_id: otel, root_service: 'checkout', root_operation: 'GET /cart' },
        { trace_id: lantern, root_service: null, root_operation: 'POST /pay' },
        { trace_id: entry, root_service: null, root_operation: 'GET /entry' },
        { trace_id: child, root_service: null, root_operation: null },
      ]);
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id FROM traces WHERE project_id = 1 AND root_operation = 'x' ORDER BY ts DESC, id DESC").all()
        .map((r) => (r as { detail: string }).detail).join('\n');
      expect(plan).toContain('traces_operation');
    } finally {
      db.close();
    }
  });

  it('migrates a version-16 database: its trace records get their spans\' attributes, found through their postings', async () => {
    const before = await open();
    const w = await world(before);
    const [otel, lantern, plain] = [newId(), newId(), newId()];
    // An OpenTelemetry context stored apart (migration 13), a span's own attributes, a Lantern span's extra field.
    const ctx = { serviceName: 'checkout', resource: [{ key: 'deployment.environment', value: 'prod' }] };
    await before.writeSpans(batch(w.app, [
      root(otel, T0, { ...ctx, name: 'GET /cart', attributes: [{ key: 'cart.items', value: 3 }] }),
      { ...root(otel, T0 + 5, { ...ctx, name: 'charge', attributes: [{ key: 'charge.id', value: 'ch_1' }] }), parentSpanId: newId() },
      root(lantern, T0 + 1, { orderId: 'o-9' }),
      root(plain, T0 + 2),
    ]));
    await before.close();
    const v16 = new Database(file);
    v16.exec(UNDO_MIGRATION_17);
    v16.pragma('user_version = 16');
    v16.close();

    const migrated = await open();
    const found = async (...attributes: Array<{ key: string; value?: string }>) =>
      (await collect(migrated.streamTraces({ userId: w.user.id, projectId: w.project.id, attributes }))).map((t) => t.traceId);
    expect(await found({ key: 'deployment.environment', value: 'prod' })).toEqual([otel]);
    expect(await found({ key: 'service.name', value: 'checkout' })).toEqual([otel]);
    expect(await found({ key: 'charge.id', value: 'ch_1' }, { key: 'cart.items', value: '3' })).toEqual([otel]);
    expect(await found({ key: 'orderId' })).toEqual([lantern]);
    expect(await found({ key: 'requestMethod' })).toEqual([plain, lantern, otel]);
    // New spans of a migrated record add to what the backfill gave it.
    await migrated.writeSpans(batch(w.app, [{ ...root(lantern, T0 + 3, { refund: true }), parentSpanId: newId() }]));
    expect(await found({ key: 'refund', value: 'true' }, { key: 'orderId', value: 'o-9' })).toEqual([lantern]);
  });

  it('migrates a version-18 database: metrics per operation begin with the spans written after it, and spans stored before never change them', async () => {
    const before = await open();
    const w = await world(before);
    const waiting = { ...root(newId(), T0 + 1, { requestMethod: 'controller:GET /old' }), parentSpanId: newId() };
    await before.writeSpans(batch(w.app, [root(newId(), T0, { requestMethod: 'controller:GET /old' }), waiting]));
    await before.close();
    const v18 = new Database(file);
    v18.exec(UNDO_MIGRATION_19);
    v18.pragma('user_version = 18');
    v18.close();

    const migrated = await open();
    const query = { userId: w.user.id, from: T0, to: T0 + 60_000, bucketMs: 60_000 };
    await migrated.writeSpans(batch(w.app, [root(newId(), T0 + 2, { requestMethod: 'controller:GET /old' }), root(newId(), T0 + 3, { requestMethod: 'controller:POST /new' })]));
    const perOperation = async () => (await migrated.readMetrics({ ...query, byOperation: true })).map((c) => [c.operation, c.requests]);
    expect(await perOperation()).toEqual([['GET /old', 1], ['POST /new', 1]]);
    expect((await migrated.readMetrics(query)).map((c) => c.requests)).toEqual([4]);
    // The late parent of a span stored before takes it out of the application's count, not of an operation's.
    await migrated.writeSpans(batch(w.app, [{ ...root(waiting.traceId, T0, { requestMethod: 'service:job' }), spanId: waiting.parentSpanId }]));
    expect((await migrated.readMetrics(query)).map((c) => c.requests)).toEqual([3]);
    expect(await perOperation()).toEqual([['GET /old', 1], ['POST /new', 1]]);
  });

  it('finds a call\'s parent in the other applications by primary key, and the spans waiting for one by their partial index', async () => {
    await (await open()).close();
    const db = new Database(file, { readonly: true });
    try {
      // The statements themselves (span-calls.ts, purge.ts), their parameters bound to placeholders.
      const plan = (sql: string) => db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from(sql.matchAll(/\?/g), () => 1))
        .map((r) => (r as { detail: string }).detail).join('\n');
      expect(plan(SPAN_CALLS_SQL.spanStored)).toMatch(/SEARCH spans USING COVERING INDEX sqlite_autoindex_spans_1 \(application_id=\? AND trace_id=\? AND span_id=\?\)/);
      expect(plan(SPAN_CALLS_SQL.otherApps)).toContain('applications_project (project_id=?)');
      expect(plan(SPAN_CALLS_SQL.waiting)).toContain('spans_waiting_caller (project_id=? AND trace_id=?)');
      expect(plan(CALLS_FROM_SQL)).toContain('sqlite_autoindex_spans_1 (application_id=? AND trace_id=?)');
    } finally {
      db.close();
    }
  });

  it('ends a controller span\'s wait for its caller when its parent arrives, in its own application or another', async () => {
    const store = await open();
    const w = await world(store);
    const other = await store.createApplication({ name: 'caller', projectId: w.project.id });
    const [own, called, never] = [newId(), newId(), newId()];
    const ownChild = { ...root(own, T0 + 1), parentSpanId: newId() };
    const calledChild = { ...root(called, T0 + 1), parentSpanId: newId() };
    await store.writeSpans(batch(w.app, [ownChild, calledChild, { ...root(never, T0 + 1), parentSpanId: newId() }]));
    await store.writeSpans(batch(w.app, [{ ...root(own, T0, { requestMethod: 'service:job' }), spanId: ownChild.parentSpanId }]));
    await store.writeSpans(batch(other, [{ ...root(called, T0, { requestMethod: 'external:call' }), spanId: calledChild.parentSpanId }]));
    await store.close();
    opened.splice(opened.indexOf(store), 1);
    const db = new Database(file, { readonly: true });
    try {
      const callers = db.prepare('SELECT trace_id AS t, caller_app AS c FROM spans WHERE controller = 1 AND parent_span_id IS NOT NULL').all();
      expect(new Map(callers.map((r) => [(r as { t: string }).t, (r as { c: number }).c]))).toEqual(new Map([[own, 0], [called, other.id], [never, -1]]));
    } finally {
      db.close();
    }
  });

  it('refuses a database whose schema is newer than this build', async () => {
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    await expect(openSqliteStore({ file })).rejects.toThrow(/newer than this build/);
  });

  it('writes a batch all or nothing: a failing span leaves no span, trace or idempotency key behind', async () => {
    const store = await open();
    const w = await world(store);
    const good = root(newId(), T0);
    const bad = root(newId(), T0, { unserialisable: BigInt(1) });
    await expect(store.writeSpans(batch(w.app, [good, bad], 'key-1'))).rejects.toThrow();
    expect(await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toEqual([]);
    // The key was not recorded either: the retry is stored.
    await store.writeSpans(batch(w.app, [good], 'key-1'));
    expect(await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }))).toHaveLength(1);
  });

  it('stores an OpenTelemetry context once per project and text, and reads spans stored with it inline as before', async () => {
    const store = await openSqliteStore({ file, writerThread: true });
    opened.push(store);
    const w = await world(store);
    const context = () => ({ serviceName: 'checkout', resource: [{ key: 'service.name', value: 'checkout' }, { key: 'host.name', value: 'h-1' }], scope: { name: 'http' } });
    const shared = context();
    const t = newId();
    const spans = Array.from({ length: 60 }, (_, i) => root(t, T0 + i, { parentSpanId: i === 0 ? null : newId(), ...(i < 40 ? shared : context()) }));
    // Three requests: one context object shared by 40 spans, 20 equal copies, and a repeat of the first spans.
    await store.writeSpans(batch(w.app, spans.slice(0, 40)));
    await store.writeSpanBatches([batch(w.app, spans.slice(40)), batch(w.app, spans.slice(0, 5))]);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.prepare('SELECT project_id, data FROM span_contexts').all()).toEqual([{ project_id: w.project.id, data: JSON.stringify(shared) }]);
      const rows = db.prepare('SELECT data, context_id FROM spans').all() as Array<{ data: string; context_id: number | null }>;
      expect(rows).toHaveLength(60);
      for (const row of rows) {
        expect(row.context_id).not.toBeNull();
        expect(Object.keys(JSON.parse(row.data))).not.toEqual(expect.arrayContaining(['serviceName']));
        expect(row.data).not.toMatch(/"resource"|"scope"/);
      }
    } finally {
      db.close();
    }
    const [record] = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(record!.telemetry).toEqual(spans);
    await store.close();

    // A span written before migration 13 holds its context in `data`, without context_id: read as it was written.
    const raw = new Database(file);
    raw.prepare('UPDATE spans SET data = ?, context_id = NULL WHERE span_id = ?').run(JSON.stringify(spans[7]), spans[7]!.spanId);
    raw.close();
    const reopened = await open();
    const [again] = await collect(reopened.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(again!.telemetry).toEqual(spans);
  });

  it('purges a context with the last trace that used it, keeps one still used, and keeps a context over 16 KiB in the span', async () => {
    const store = await open();
    const w = await world(store);
    const contexts = (db: Database.Database) => db.prepare('SELECT data, last_ms FROM span_contexts ORDER BY id').all() as Array<{ data: string; last_ms: number }>;
    const oldCtx = { serviceName: 'old', resource: [{ key: 'service.name', value: 'old' }] };
    const liveCtx = { serviceName: 'live', resource: [{ key: 'service.name', value: 'live' }] };
    const hugeCtx = { serviceName: 'huge', resource: [{ key: 'blob', value: 'x'.repeat(17 * 1024) }] };
    const oldTrace = newId();
    const liveTrace = newId();
    const old = [root(oldTrace, T0, oldCtx), { ...root(oldTrace, T0 + 10, liveCtx), parentSpanId: newId() }];
    const live = [root(liveTrace, T0 + 3 * HOUR, liveCtx), { ...root(liveTrace, T0 + 3 * HOUR + 1, hugeCtx), parentSpanId: newId() }];
    await store.writeSpans({ ...batch(w.app, old), receivedAt: toIso(T0) });
    await store.writeSpans({ ...batch(w.app, live), receivedAt: toIso(T0 + 3 * HOUR) });
    // A repeat of a stored span with a context of its own: the context is made, no span uses it.
    await store.writeSpans({ ...batch(w.app, [{ ...old[0]!, serviceName: 'repeat' }]), receivedAt: toIso(T0) });
    const raw = new Database(file, { readonly: true });
    try {
      // The huge context stayed in its span's data; the others are rows, with the latest time a span used them.
      expect(contexts(raw)).toEqual([
        { data: JSON.stringify(oldCtx), last_ms: T0 },
        { data: JSON.stringify(liveCtx), last_ms: T0 + 3 * HOUR },
        { data: JSON.stringify({ serviceName: 'repeat', resource: oldCtx.resource }), last_ms: 0 },
      ]);
      expect((raw.prepare('SELECT data FROM spans WHERE span_id = ?').get(live[1]!.spanId) as { data: string }).data).toContain('"huge"');
    } finally {
      raw.close();
    }
    expect(await store.purgeTelemetryBefore(T0 + HOUR)).toBe(1);
    const after = new Database(file, { readonly: true });
    try {
      expect(contexts(after).map((c) => JSON.parse(c.data).serviceName)).toEqual(['live']);
    } finally {
      after.close();
    }
    const [record] = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id }));
    expect(record!.telemetry).toEqual(live);
  });

  it('answers 503 unavailable once closed', async () => {
    const store = await open();
    await store.close();
    const attempt = store.ping();
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    await expect(collect(store.streamLogs({ userId: newId() }))).rejects.toMatchObject({ status: 503 });
  });

  it('maps busy, locked and I/O errors to 503 and leaves other errors alone', () => {
    for (const code of ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR_WRITE', 'SQLITE_FULL']) {
      expect(toStoreError(Object.assign(new Error('x'), { code }))).toMatchObject({ status: 503, code: 'unavailable' });
    }
    const other = Object.assign(new Error('syntax'), { code: 'SQLITE_ERROR' });
    expect(toStoreError(other)).toBe(other);
  });

  it('answers 404 for a parent that does not exist, and for an API key whose project is not its application\'s', async () => {
    const store = await open();
    const w = await world(store);
    const other = await store.createProject({ name: 'other', organizationId: w.org.id });
    await expect(store.createProject({ name: 'x', organizationId: w.org.id + 100 })).rejects.toMatchObject({ status: 404 });
    await expect(store.createApplication({ name: 'x', projectId: other.id + 100 })).rejects.toMatchObject({ status: 404 });
    await expect(store.createTenant({ name: 'x', organizationId: w.org.id + 100 })).rejects.toMatchObject({ status: 404 });
    await expect(store.createApiKey({ applicationId: w.app.id, projectId: other.id, name: 'k', prefix: 'p', hash: 'h' }))
      .rejects.toMatchObject({ status: 404 });
    expect(await store.listApiKeys(w.app.id, w.user.id)).toEqual([]);
  });

  it('purges idempotency keys older than 24 h by its clock, and counts only trace records and logs', async () => {
    let now = T0;
    const store = await open({ now: () => now });
    const w = await world(store);
    await store.writeSpans({ ...batch(w.app, [root(newId(), T0)], 'old'), receivedAt: toIso(T0 - 25 * HOUR) });
    await store.writeSpans({ ...batch(w.app, [root(newId(), T0 + 1)], 'recent'), receivedAt: toIso(T0 - HOUR) });
    const keys = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare('SELECT key FROM idempotency_keys ORDER BY key').pluck().all();
      } finally {
        db.close();
      }
    };
    expect(keys()).toEqual(['old', 'recent']);
    expect(await store.purgeTelemetryBefore(0)).toBe(0);
    expect(keys()).toEqual(['recent']);
    now = T0 + 24 * HOUR;
    await store.purgeTelemetryBefore(0);
    expect(keys()).toEqual([]);
  });

  it('stamps API keys and revocations with its clock', async () => {
    let now = T0;
    const store = await open({ now: () => now });
    const w = await world(store);
    const key = await store.createApiKey({ applicationId: w.app.id, projectId: w.project.id, name: 'k', prefix: 'p', hash: 'h' });
    expect(key.createdAt).toBe(toIso(T0));
    now = T0 + 1234;
    await store.revokeApiKey(key.id);
    expect((await store.findApiKeyByHash('h'))?.revokedAt).toBe(toIso(T0 + 1234));
  });
});
