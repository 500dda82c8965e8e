import { afterEach, beforeEach } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { Application, LogBatchMessage, LogEntry, Organization, Project, Span, SpanBatchMessage, User } from '@lantern/domain';
import type { Cursor, Store } from '../port.js';
import type { AttributeFilter } from '../attribute-pairs.js';

export type OpenStore = () => Promise<{ store: Store; cleanup?: () => Promise<void> }>;

/** The store of the running test: a fresh, empty one per test. */
export interface StoreContext {
  readonly store: Store;
}

/** Opens a store before each test; closes it (then runs `cleanup`) after. */
export function useStore(open: OpenStore): StoreContext {
  let current: Awaited<ReturnType<OpenStore>> | undefined;
  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    const opened = current;
    current = undefined;
    if (!opened) return;
    await opened.store.close();
    await opened.cleanup?.();
  });
  return {
    get store(): Store {
      if (!current) throw new Error('The store is only open inside a test.');
      return current.store;
    },
  };
}

export const HOUR = 60 * 60 * 1000;
/**
 * The instant the telemetry of the tests is placed around: the start of the hour before the run, fixed for the
 * run. Recent on purpose: a real MongoDB's TTL monitor expires idempotency keys 24 h after the time of their
 * batch, by the server's clock, so keys stamped months ago would vanish in the middle of a test.
 */
export const T0 = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface World {
  user: User;
  org: Organization;
  project: Project;
  app: Application;
}

/** A user owning an organization with one project and one application. */
export async function makeWorld(store: Store, label = 'a'): Promise<World> {
  const user = await store.createUser({ email: `${label}-${newId()}@example.test`, name: `User ${label}`, passwordHash: `hash-${label}` });
  const org = await store.createOrganization({ name: `Org ${label}`, ownerId: user.id });
  const project = await store.createProject({ name: `Project ${label}`, organizationId: org.id });
  const app = await store.createApplication({ name: `App ${label}`, projectId: project.id });
  return { user, org, project, app };
}

export async function makeUser(store: Store, label = 'u'): Promise<User> {
  return store.createUser({ email: `${label}-${newId()}@example.test`, name: label, passwordHash: 'hash' });
}

/** A span at `at` (epoch ms); a root span unless `parentSpanId` is given. */
export function span(traceId: string, at: number, fields: Partial<Span> = {}): Span {
  return {
    timestamp: toIso(at),
    requestMethod: 'service:work',
    traceId,
    spanId: newId(),
    parentSpanId: null,
    durationMs: 5,
    ...fields,
  };
}

/** A root `controller:` span of an HTTP request. */
export function rootSpan(traceId: string, at: number, fields: Partial<Span> = {}): Span {
  return span(traceId, at, { requestMethod: 'controller:GET /items', requestURL: '/items', responseStatus: 200, ...fields });
}

/**
 * `count` traces whose entry span (a controller span) is the child of a `service:job` span of the same
 * application, written apart so that the parent may arrive after its child, and beside them `count` plain entry
 * traces (a quarter of them 500s): what two writers racing on late parents and children are given.
 */
export function lateParentTraces(count: number): { parents: Span[]; children: Span[]; roots: Span[] } {
  const parents: Span[] = [];
  const children: Span[] = [];
  const roots: Span[] = [];
  for (let i = 0; i < count; i++) {
    const t = newId();
    const parent = span(t, T0 + i * 1000, { requestMethod: 'service:job' });
    parents.push(parent);
    children.push(rootSpan(t, T0 + i * 1000 + 1, { parentSpanId: parent.spanId, durationMs: 3 + i }));
    roots.push(rootSpan(newId(), T0 + i * 1000 + 2, { durationMs: 100 + i, responseStatus: i % 4 ? 200 : 500 }));
  }
  return { parents, children, roots };
}

export function spanBatch(app: Application, spans: Span[], extra: { idempotencyKey?: string; receivedAt?: number } = {}): SpanBatchMessage {
  return {
    kind: 'spans',
    applicationId: app.id,
    projectId: app.projectId,
    receivedAt: toIso(extra.receivedAt ?? T0),
    ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
    spans,
  };
}

export function logEntry(app: Application, at: number, fields: Partial<LogEntry> = {}): LogEntry {
  return {
    id: newId(),
    projectId: app.projectId,
    applicationId: app.id,
    level: 'info',
    type: 'app',
    message: `log at ${at}`,
    timestamp: toIso(at),
    clientTimestamp: toIso(at),
    ...fields,
  };
}

export function logBatch(app: Application, logs: LogEntry[], extra: { idempotencyKey?: string; receivedAt?: number } = {}): LogBatchMessage {
  return {
    kind: 'logs',
    applicationId: app.id,
    projectId: app.projectId,
    receivedAt: toIso(extra.receivedAt ?? T0),
    ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
    logs,
  };
}

/** An attribute term of a search (TraceQuery / LogQuery `attributes`): `key=value`, or `key` alone. */
export const attr = (key: string, value?: string): AttributeFilter => (value === undefined ? { key } : { key, value });

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The keyset position of a returned trace record or log entry, to resume after it. */
export function cursorOf(record: { id: string; timestamp: string }): Cursor {
  return { ts: Date.parse(record.timestamp), id: record.id };
}

/** Newest first: by timestamp descending, then id descending (the order every stream returns). */
export function newestFirst<T extends { id: string; timestamp: string }>(records: T[]): T[] {
  return [...records].sort((a, b) => {
    const dt = Date.parse(b.timestamp) - Date.parse(a.timestamp);
    return dt !== 0 ? dt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
  });
}

/** Reads a whole stream page by page (`limit` per page, each resuming at the last record's cursor). */
export async function readInPages<T extends { id: string; timestamp: string }>(
  page: (cursor: Cursor | undefined) => AsyncIterable<T>,
  limit: number,
): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: Cursor | undefined;
  for (let i = 0; i < 1000; i++) {
    const items = await collect(page(cursor));
    if (items.length > limit) throw new Error(`A page held ${items.length} records, more than the limit ${limit}.`);
    if (items.length === 0) break;
    pages.push(items);
    cursor = cursorOf(items[items.length - 1]!);
  }
  return pages;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
