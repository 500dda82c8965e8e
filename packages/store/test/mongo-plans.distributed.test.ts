import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pairHash } from '../src/attribute-pairs.js';
import { MongoClient } from 'mongodb';
import type { CommandStartedEvent, Db, Document } from 'mongodb';
import { newId } from '@lantern/domain';
import type { Application, Project } from '@lantern/domain';
import type { Store } from '@lantern/store';
import { createMongoStore } from '@lantern/store/mongo';
import { HOUR, collect, cursorOf, logBatch, logEntry, makeUser, makeWorld, rootSpan, span, spanBatch } from '../src/contract/fixtures.js';
import type { World } from '../src/contract/fixtures.js';
import { waitIndexed } from './mongo-wait.js';
import { bucketOf } from '../src/mongo/postings.js';

/*
 * Every read path of the MongoDB store is served by an index: each test runs one operation of the store, takes
 * the commands it sent (the driver's command monitoring), has mongod explain each of them exactly as sent, and
 * asserts the index of the winning plan. A plan that scans a collection, or sorts in memory where the store
 * asks for an order, fails the test, and so does a plan on another index than the one named: so a dropped or
 * changed index fails the test of its path.
 */

const urlEnv = process.env.LANTERN_TEST_MONGO_URL;
if (!urlEnv) throw new Error('LANTERN_TEST_MONGO_URL is not set: run `pnpm test:distributed` (it starts mongod).');
const url = urlEnv;
const database = `lantern_plans_${newId().replace(/-/g, '')}`;
const admin = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
const db: Db = admin.db(database);

/** The commands the store sent, as the driver sent them. */
const sent: CommandStartedEvent[] = [];
let store: Store;

/** The command fields a plan depends on (not the session, the database, the read preference...). */
const PLAN_FIELDS: Record<string, string[]> = {
  find: ['find', 'filter', 'sort', 'projection', 'limit', 'skip', 'hint', 'collation', 'singleBatch'],
  findAndModify: ['findAndModify', 'query', 'sort', 'update', 'upsert', 'new', 'fields', 'remove'],
  distinct: ['distinct', 'key', 'query'],
};
/** Write commands: explained statement by statement (explain takes one). */
const STATEMENTS: Record<string, string> = { update: 'updates', delete: 'deletes' };

function pick(command: Document, fields: string[]): Document {
  return Object.fromEntries(fields.filter((f) => command[f] !== undefined).map((f) => [f, command[f]]));
}

/** The commands to explain for one sent command: none for an insert, getMore, killCursors... */
function explainable(event: CommandStartedEvent): { collection: string; command: Document }[] {
  const { command, commandName } = event;
  const fields = PLAN_FIELDS[commandName];
  if (fields) return [{ collection: String(command[commandName]), command: pick(command, fields) }];
  const list = STATEMENTS[commandName];
  if (list) {
    return (command[list] as Document[]).map((statement) => ({ collection: String(command[commandName]), command: { [commandName]: command[commandName], [list]: [statement] } }));
  }
  return [];
}

interface Plan {
  collection: string;
  /** The index of the plan's scan: its name, `_id_` for an _id lookup (IDHACK), or COLLSCAN. */
  index: string;
  stages: string[];
}

/** The stages of a winning plan, depth first, with the index names of its index scans. */
function walk(stage: Document | undefined, out: { stages: string[]; indexes: string[] }): void {
  if (!stage) return;
  if (stage.queryPlan) return walk(stage.queryPlan as Document, out); // a plan of the slot-based engine
  out.stages.push(String(stage.stage));
  if (stage.stage === 'IXSCAN') out.indexes.push(String(stage.indexName));
  if (stage.stage === 'IDHACK') out.indexes.push('_id_');
  if (stage.stage === 'COLLSCAN') out.indexes.push('COLLSCAN');
  // A range or an equality on a clustered collection's _id (the collection is the index).
  if (stage.stage === 'CLUSTERED_IXSCAN') out.indexes.push('clustered _id');
  walk(stage.inputStage as Document | undefined, out);
  for (const input of (stage.inputStages as Document[] | undefined) ?? []) walk(input, out);
}

async function explain(collection: string, command: Document): Promise<Plan> {
  const answer = await db.command({ explain: command, verbosity: 'queryPlanner' });
  const out = { stages: [] as string[], indexes: [] as string[] };
  walk(answer.queryPlanner?.winningPlan as Document | undefined, out);
  return { collection, index: [...new Set(out.indexes)].join('+') || '(none)', stages: out.stages };
}

/** Runs a store operation and explains every query it sent, in order; `commands` are the commands it sent. */
async function plansOf(operation: () => Promise<unknown>, commands: string[] = []): Promise<Plan[]> {
  sent.length = 0;
  await operation();
  const events = sent.splice(0);
  commands.push(...events.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`));
  const plans: Plan[] = [];
  for (const { collection, command } of events.flatMap(explainable)) plans.push(await explain(collection, command));
  return plans;
}

/**
 * Asserts that the operation's queries are, in order, `expected` ("collection index"), and that none scans a
 * collection or sorts in memory (a SORT stage; a SORT_MERGE of index ranges is no sort), except the query of
 * `sortsOnly` ("collection index") where the test names why its sort is bounded. A query with `$or` names the
 * indexes of its branches ("spans controller_trace_parent+_id_"): every branch must be on an index, or the plan scans.
 */
async function expectServed(operation: () => Promise<unknown>, expected: string[], { sortsOnly, anyOrder }: { sortsOnly?: string; anyOrder?: boolean } = {}): Promise<Plan[]> {
  const plans = await plansOf(operation);
  // anyOrder: steps that run side by side (the trace records beside the rollups) send their commands interleaved.
  const order = (list: string[]) => (anyOrder ? [...list].sort() : list);
  expect(order(plans.map((p) => `${p.collection} ${p.index}`))).toEqual(order(expected));
  for (const plan of plans) {
    const forbidden = `${plan.collection} ${plan.index}` === sortsOnly ? ['COLLSCAN'] : ['COLLSCAN', 'SORT'];
    expect({ ...plan, stages: plan.stages.filter((s) => forbidden.includes(s)) }).toEqual({ ...plan, stages: [] });
  }
  if (sortsOnly !== undefined) expect(plans.find((p) => `${p.collection} ${p.index}` === sortsOnly)?.stages).toContain('SORT');
  return plans;
}

// What each read of a user goes through first (access.ts): the project by _id, the membership by _id.
const VISIBLE_PROJECT = ['projects _id_', 'memberships _id_'];
// The projects a user can see: their memberships, then the projects of those organizations.
const VISIBLE_PROJECTS = ['memberships user_organization', 'projects organization'];

/*
 * The data: one organization with two projects. Project `p` has a busy application `busy` and a quiet one
 * `quiet`; project `other` has its own. Enough documents that the planner's choice between two indexes (a
 * project's and an application's) is decided by how selective they are, as it is on a real deployment.
 */
// Recent telemetry: the store keeps 30 days (the TTL indexes, which the purge's reads use, exist only with a
// retention), and mongod's TTL monitor would delete anything older while the tests run.
const T0 = Date.now() - 2 * HOUR;
let w: World;
let quiet: Application;
let other: Project;
let otherApp: Application;
const quietTrace = newId();
const failedTrace = newId();

beforeAll(async () => {
  store = await createMongoStore({ url, database, retentionDays: 30, onCommand: (event) => sent.push(event) });
  w = await makeWorld(store, 'plans');
  quiet = await store.createApplication({ name: 'quiet', projectId: w.project.id });
  other = await store.createProject({ name: 'other', organizationId: w.org.id });
  otherApp = await store.createApplication({ name: 'other app', projectId: other.id });

  const busyTraces = Array.from({ length: 300 }, (_, i) => rootSpan(newId(), T0 + i * 1000, { durationMs: i, responseStatus: i % 10 ? 200 : 500 }));
  await store.writeSpans(spanBatch(w.app, busyTraces));
  const root = rootSpan(quietTrace, T0 + 500, { durationMs: 900, responseStatus: 503 });
  await store.writeSpans(spanBatch(quiet, [
    root, span(quietTrace, T0 + 501, { parentSpanId: root.spanId }),
    // An entry span called from another application: its parent is looked up (calledFromInside).
    rootSpan(failedTrace, T0 + 700, { parentSpanId: newId(), responseStatus: 502 }),
  ]));
  await store.writeSpans(spanBatch(otherApp, Array.from({ length: 100 }, (_, i) => rootSpan(newId(), T0 + i * 1000))));

  await store.writeLogs(logBatch(w.app, Array.from({ length: 500 }, (_, i) => logEntry(w.app, T0 + i * 100))));
  await store.writeLogs(logBatch(quiet, Array.from({ length: 20 }, (_, i) =>
    logEntry(quiet, T0 + i * 100, { traceId: quietTrace, level: i % 4 ? 'info' : 'error' }))));
  await store.writeLogs(logBatch(otherApp, Array.from({ length: 200 }, (_, i) => logEntry(otherApp, T0 + i * 100))));
  // The log indexer works after the writes (log-indexer.ts): let it finish, so that no test captures its commands.
  expect(await waitIndexed(db)).toBe(0);

  for (let i = 0; i < 20; i++) {
    await store.createApiKey({ applicationId: i % 2 ? w.app.id : otherApp.id, projectId: i % 2 ? w.project.id : other.id, name: `k${i}`, prefix: `p${i}`, hash: `hash-${i}` });
    await store.createUser({ email: `user-${i}@example.test`, name: `u${i}`, passwordHash: 'h' });
  }
  const tenants = [];
  for (let i = 0; i < 5; i++) tenants.push(await store.createTenant({ name: `tenant ${i}`, organizationId: w.org.id }));
  for (let i = 0; i < 50; i++) {
    const tenantId = tenants[i % tenants.length]!.id;
    await store.createDocument({
      id: newId(), tenantId, filename: `f${i}.pdf`, contentType: 'application/pdf', size: i, sha256: `${i}`, status: 'ready',
      createdAt: new Date(T0 + i).toISOString(), objectKey: `k${i}`,
    });
  }
}, 60_000);

afterAll(async () => {
  await store?.close();
  await db.dropDatabase();
  await admin.close();
});

describe('mongo store: trace records are read on an index', () => {
  const traces = (query: Partial<Parameters<Store['streamTraces']>[0]> = {}) => () =>
    collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 20, ...query }));

  it('a page of a project: (projectId, ts, id), and its spans on (traceKey, ts, spanId)', async () => {
    await expectServed(traces(), [...VISIBLE_PROJECT, 'traces project_ts', 'spans trace_ts']);
  });

  it('a page of a project in a time window', async () => {
    await expectServed(traces({ from: T0 + 10_000, to: T0 + 60_000 }), [...VISIBLE_PROJECT, 'traces project_ts', 'spans trace_ts']);
  });

  it('the next page after a cursor', async () => {
    const first = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 20 }));
    await expectServed(traces({ cursor: cursorOf(first[19]!) }), [...VISIBLE_PROJECT, 'traces project_ts', 'spans trace_ts']);
  });

  it('a page of an application: (applicationId, ts, id)', async () => {
    await expectServed(traces({ applicationId: quiet.id }), [...VISIBLE_PROJECT, 'traces application_ts', 'spans trace_ts']);
  });

  it('a trace by its id: (traceId, projectId), its records sorted in memory', async () => {
    // The index finds the trace's records, one per application the trace went through: a sort of those few.
    await expectServed(traces({ traceId: quietTrace }), [...VISIBLE_PROJECT, 'traces trace', 'spans trace_ts'], { sortsOnly: 'traces trace' });
  });

  it('with the minimum duration and url filters: the project\'s range, newest first', async () => {
    await expectServed(traces({ minDurationMs: 250, maxDurationMs: 900 }), [...VISIBLE_PROJECT, 'traces project_ts', 'spans trace_ts']);
    await expectServed(traces({ urlContains: 'items' }), [...VISIBLE_PROJECT, 'traces project_ts', 'spans trace_ts']);
  });

  it('by operation, by service, by failed status: each its own range in the list\'s order, newest first, never sorted', async () => {
    const first = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 20 }));
    await expectServed(traces({ operation: 'GET /items' }), [...VISIBLE_PROJECT, 'traces project_operation_ts', 'spans trace_ts']);
    await expectServed(traces({ operation: 'GET /items', cursor: cursorOf(first[19]!) }), [...VISIBLE_PROJECT, 'traces project_operation_ts', 'spans trace_ts']);
    await expectServed(traces({ service: 'checkout', status: { min: 500, max: 599 } }), [...VISIBLE_PROJECT, 'traces project_service_ts']);
    // The failed traces' partial (projectId, ts, id) index: the class, or a code of it tested on its records.
    await expectServed(traces({ status: { min: 500, max: 599 }, cursor: cursorOf(first[19]!) }), [...VISIBLE_PROJECT, 'traces project_errors_ts', 'spans trace_ts']);
    await expectServed(traces({ status: { min: 503, max: 503 } }), [...VISIBLE_PROJECT, 'traces project_errors_ts', 'spans trace_ts']);
    // Another class is common: the project's range, its records tested.
    await expectServed(traces({ status: { min: 404, max: 404 } }), [...VISIBLE_PROJECT, 'traces project_ts']);
  });
});

describe('mongo store: trace records are found by attribute on the multikey index', () => {
  const traces = (query: Partial<Parameters<Store['streamTraces']>[0]> = {}) => () =>
    collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 20, ...query }));

  it('one attribute, a second one, or with the other filters: (projectId, attrs, ts, id) bounded by a hash, newest first, never sorted', async () => {
    const failed = [{ key: 'responseStatus', value: '500' }];
    const first = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, limit: 20, attributes: failed }));
    expect(first).toHaveLength(20);
    await expectServed(traces({ attributes: failed }), [...VISIBLE_PROJECT, 'traces project_attrs_ts', 'spans trace_ts']);
    await expectServed(traces({ attributes: failed, cursor: cursorOf(first[9]!) }), [...VISIBLE_PROJECT, 'traces project_attrs_ts', 'spans trace_ts']);
    await expectServed(traces({ attributes: [...failed, { key: 'requestURL' }], service: 'checkout', minDurationMs: 10 }),
      [...VISIBLE_PROJECT, 'traces project_attrs_ts']);
    await expectServed(traces({ attributes: [{ key: 'requestURL', value: '/nowhere' }] }), [...VISIBLE_PROJECT, 'traces project_attrs_ts']);
    // Two pairs: each counted on the index (up to PROBE_CAP), then the rarest first in `$all`, whose first element
    // bounds the index: a common pair asked first does not lead.
    const common = { key: 'requestMethod', value: 'controller:GET /items' };
    sent.length = 0;
    const rows = await collect(store.streamTraces({ userId: w.user.id, projectId: w.project.id, attributes: [common, ...failed] }));
    expect(rows).toHaveLength(30);
    const events = sent.splice(0);
    expect(events.filter((e) => e.commandName === 'aggregate' && e.command['aggregate'] === 'traces')).toHaveLength(2);
    const find = events.find((e) => e.commandName === 'find' && e.command['find'] === 'traces')!;
    expect(find.command['hint']).toBe('project_attrs_ts');
    expect((find.command['filter'] as { attrs: { $all: number[] } }).attrs.$all).toEqual([pairHash('responseStatus', '500'), pairHash(common.key, common.value)]);
  });
});

describe('mongo store: root spans (metrics) are read on an index', () => {
  const window = { from: T0, to: T0 + HOUR };

  it('over every visible project: the controller spans\' partial (projectId, ts, _id) index, parents by _id', async () => {
    await expectServed(() => collect(store.streamRootSpans({ userId: w.user.id, ...window })),
      [...VISIBLE_PROJECTS, 'spans controller_project_ts', 'spans _id_']);
  });

  it('of one application', async () => {
    await expectServed(() => collect(store.streamRootSpans({ userId: w.user.id, projectId: w.project.id, applicationId: quiet.id, ...window })),
      [...VISIBLE_PROJECTS, 'spans controller_project_ts', 'spans _id_']);
  });
});

describe('mongo store: metrics are read from the rollups on an index', () => {
  const metrics = (window: { from: number; to: number; bucketMs: number }) => () => store.readMetrics({ userId: w.user.id, ...window });
  const hour0 = Math.floor(T0 / HOUR) * HOUR;

  it('the last hour by the minute: (projectId, minute)', async () => {
    await expectServed(metrics({ from: hour0, to: hour0 + HOUR, bucketMs: 60_000 }), [...VISIBLE_PROJECTS, 'rollups project_minute']);
  });

  it('days in buckets of hours: whole hours on (projectId, hour), the partial first and last hours on (projectId, minute)', async () => {
    await expectServed(metrics({ from: hour0 - 72 * HOUR, to: hour0, bucketMs: HOUR }), [...VISIBLE_PROJECTS, 'rollupHours project_hour']);
    await expectServed(metrics({ from: hour0 - 72 * HOUR, to: hour0 + 1_200_000, bucketMs: 3 * HOUR }),
      [...VISIBLE_PROJECTS, 'rollupHours project_hour', 'rollups project_minute']);
    // Buckets that cut hours (not GET /metrics' own): many runs, still one query per collection.
    await expectServed(metrics({ from: hour0 - 72 * HOUR + 600_000, to: hour0, bucketMs: 3 * HOUR }),
      [...VISIBLE_PROJECTS, 'rollupHours project_hour', 'rollups project_minute']);
  });

  it('per operation: the same plan on the per-operation collections\' (projectId, hour) and (projectId, minute)', async () => {
    const operations = (window: { from: number; to: number; bucketMs: number; applicationId?: number }) => () =>
      store.readMetrics({ userId: w.user.id, byOperation: true, ...window });
    const cells = await operations({ from: hour0, to: hour0 + 3 * HOUR, bucketMs: HOUR })();
    expect(new Set(cells.map((c) => c.operation))).toEqual(new Set(['GET /items']));
    await expectServed(operations({ from: hour0, to: hour0 + HOUR, bucketMs: 60_000 }), [...VISIBLE_PROJECTS, 'operationRollups project_minute']);
    await expectServed(operations({ from: hour0 - 72 * HOUR, to: hour0, bucketMs: HOUR, applicationId: quiet.id }),
      [...VISIBLE_PROJECTS, 'operationRollupHours project_hour']);
    await expectServed(operations({ from: hour0 - 72 * HOUR, to: hour0 + 1_200_000, bucketMs: 3 * HOUR }),
      [...VISIBLE_PROJECTS, 'operationRollupHours project_hour', 'operationRollups project_minute']);
  });
});

describe('mongo store: logs are read on an index', () => {
  const logs = (query: Partial<Parameters<Store['streamLogs']>[0]> = {}) => () =>
    collect(store.streamLogs({ userId: w.user.id, projectId: w.project.id, limit: 50, ...query }));

  it('of a project, newest first: (projectId, ts, _id)', async () => {
    await expectServed(logs(), [...VISIBLE_PROJECTS, 'logs project_ts']);
  });

  it('of every visible project at once: the projects\' ranges merged, not sorted', async () => {
    const [plan] = (await expectServed(logs({ projectId: undefined }), [...VISIBLE_PROJECTS, 'logs project_ts'])).slice(-1);
    expect(plan?.stages).toContain('SORT_MERGE');
  });

  it('in a time window, and after a cursor', async () => {
    await expectServed(logs({ from: T0 + 1000, to: T0 + 20_000 }), [...VISIBLE_PROJECTS, 'logs project_ts']);
    const first = await collect(store.streamLogs({ userId: w.user.id, projectId: w.project.id, limit: 50 }));
    await expectServed(logs({ cursor: cursorOf(first[49]!) }), [...VISIBLE_PROJECTS, 'logs project_ts']);
  });

  it('of an application: (applicationId, ts, _id)', async () => {
    await expectServed(logs({ applicationId: quiet.id }), [...VISIBLE_PROJECTS, 'logs application_ts']);
  });

  it('of a trace: the partial (projectId, traceId, ts, _id) index, in one project or all', async () => {
    await expectServed(logs({ traceId: quietTrace }), [...VISIBLE_PROJECTS, 'logs project_trace_ts']);
    await expectServed(logs({ traceId: quietTrace, projectId: undefined }), [...VISIBLE_PROJECTS, 'logs project_trace_ts']);
  });

  it('by level and by message: the project\'s range, newest first', async () => {
    await expectServed(logs({ level: 'error' }), [...VISIBLE_PROJECTS, 'logs project_ts']);
    // A text (mongo/log-search.ts): the pending logs on their index, then per project its segments, one range of
    // the postings' `_id` per trigram, and the candidates by number (sorted in memory: at most 500 a fetch).
    for (const [messageContains, fetches] of [['log at', true], ['no such words', false]] as const) {
      const plans = await plansOf(logs({ messageContains }));
      const names = plans.map((p) => `${p.collection} ${p.index}`);
      expect(names.slice(0, 3)).toEqual([...VISIBLE_PROJECTS, 'logs project_pending_ts']);
      expect(names.filter((n) => n.startsWith('logSegments'))).toEqual(['logSegments project_state']);
      expect(names.slice(3).filter((n) => !['logSegments project_state', 'logPostings _id_', 'logs project_seq'].includes(n))).toEqual([]);
      expect(names.includes('logs project_seq')).toBe(fetches);
      for (const plan of plans) {
        const forbidden = plan.collection === 'logs' && plan.index === 'project_seq' ? ['COLLSCAN'] : ['COLLSCAN', 'SORT'];
        expect({ ...plan, stages: plan.stages.filter((s) => forbidden.includes(s)) }).toEqual({ ...plan, stages: [] });
      }
    }
  });
});

describe('mongo store: accounts are read on an index', () => {
  it('a user by email (emailLower, unique) and by id', async () => {
    await expectServed(() => store.findUserByEmail('USER-3@example.test'), ['users emailLower']);
    await expectServed(() => store.getUser(w.user.id), ['users _id_']);
  });

  it('whether there is any user: one document read, whatever the number of users', async () => {
    sent.length = 0;
    expect(await store.hasUsers()).toBe(true);
    const [find] = sent.splice(0).flatMap(explainable);
    const answer = await db.command({ explain: find!.command, verbosity: 'executionStats' });
    expect(answer.executionStats.totalDocsExamined).toBe(1);
    expect(answer.executionStats.nReturned).toBe(1);
  });

  it('memberships and roles: (userId, organizationId), organizations and roles by _id', async () => {
    await expectServed(() => store.listMemberships(w.user.id), ['memberships user_organization', 'organizations _id_']);
    await expectServed(() => store.getRole(w.org.id, w.user.id), ['memberships _id_']);
  });

  it('members of an organization and its owners: (organizationId, role); token versions by _id', async () => {
    await expectServed(() => store.listMembers(w.org.id, w.user.id), ['memberships _id_', 'memberships organization_role', 'organizations _id_', 'users _id_'], { anyOrder: true });
    await expectServed(() => store.getTokenVersion(w.user.id), ['users _id_']);
    const member = await makeUser(store, 'plans-member');
    await store.addMember(w.org.id, member.id, 'member');
    await expectServed(() => store.changeRole(w.org.id, w.user.id, member.id, 'admin'),
      ['organizations _id_', 'memberships _id_', 'memberships _id_', 'organizations _id_', 'memberships _id_', 'organizations _id_']);
  });

  it('invitations: of an email by (emailLower, createdAt); of an organization by (organizationId, createdAt); one by its id', async () => {
    const invitee = await makeUser(store, 'plans-invitee');
    const invitation = await store.createInvitation({ organizationId: w.org.id, email: invitee.email, role: 'member', invitedBy: w.user.id, ttlMs: HOUR });
    await expectServed(() => store.listInvitations(invitee.id), ['users _id_', 'invitations email_created', 'memberships _id_', 'organizations _id_', 'users _id_'], { anyOrder: true });
    await expectServed(() => store.listOrganizationInvitations(w.org.id), ['invitations organization_created', 'memberships organization_role', 'users _id_'], { anyOrder: true });
    await expectServed(() => store.declineInvitation(invitation.id, invitee.id), ['users _id_', 'invitations id', 'invitations _id_']);
  });

  it('projects of an organization: (organizationId, _id); a project by _id', async () => {
    await expectServed(() => store.listProjects(w.org.id, w.user.id), ['memberships _id_', 'projects organization']);
    await expectServed(() => store.getProject(other.id, w.user.id), VISIBLE_PROJECT);
  });

  it('applications of a project: (projectId, _id); an application by _id', async () => {
    await expectServed(() => store.listApplications(w.project.id, w.user.id), [...VISIBLE_PROJECT, 'applications project']);
    await expectServed(() => store.getApplication(quiet.id, w.user.id), ['applications _id_', ...VISIBLE_PROJECT]);
  });

  it('API keys: by hash (unique), of an application by (applicationId, seq), by id, a revocation and a capped creation', async () => {
    await expectServed(() => store.findApiKeyByHash('hash-7'), ['apiKeys hash']);
    await expectServed(() => store.listApiKeys(w.app.id, w.user.id), ['applications _id_', ...VISIBLE_PROJECT, 'apiKeys application_seq']);
    const key = await store.findApiKeyByHash('hash-3');
    await expectServed(() => store.getApiKey(key!.id, w.user.id), ['apiKeys _id_', ...VISIBLE_PROJECT]);
    // The revocation gives its place back to the application's key counter.
    await expectServed(() => store.revokeApiKey(key!.id), ['apiKeys _id_', 'applications _id_']);
    await expectServed(() => store.createApiKey({ applicationId: w.app.id, projectId: w.project.id, name: 'capped', prefix: 'pc', hash: 'hash-capped' }, { maxActive: 100 }),
      ['applications _id_', 'applications _id_', 'counters _id_'], { anyOrder: true });
  });
});

describe('mongo store: AI tenants and documents are read on an index', () => {
  it('tenants of an organization: (organizationId, seq); a tenant by _id', async () => {
    const tenants = await store.listTenants(w.org.id, w.user.id);
    await expectServed(() => store.listTenants(w.org.id, w.user.id), ['memberships _id_', 'tenants organization_seq']);
    await expectServed(() => store.getTenant(tenants[0]!.id, w.user.id), ['tenants _id_', 'memberships _id_']);
  });

  it('a search: the tenant\'s ready documents on (tenantId, status), each term\'s bucket one range of the postings\' _id, the texts by _id', async () => {
    const tenant = await store.createTenant({ name: 'searched', organizationId: w.org.id });
    const id = newId();
    await store.createDocument({ id, tenantId: tenant.id, filename: 's.txt', contentType: 'text/plain', size: 1, sha256: 's', status: 'stored', createdAt: new Date(T0).toISOString(), objectKey: 's' });
    const claim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    expect(claim.document.id).toBe(id);
    await store.completeDocument(id, claim.claim, { characters: 20, chunks: [{ index: 0, text: 'breaker trips', start: 0, end: 13 }, { index: 1, text: 'resets', start: 13, end: 19 }] });
    const search = () => store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['breaker', 'resets'], limit: 5 });
    expect(await search()).toHaveLength(2);
    await expectServed(search, ['tenants _id_', 'memberships _id_', 'documents tenant_status', 'postings clustered _id', 'postings clustered _id', 'chunks _id_', 'documents _id_'], { anyOrder: true });
    // Two words of one bucket ('w238' shares 'breaker''s): the bucket is read once.
    expect(bucketOf('w238')).toBe(bucketOf('breaker'));
    const shared = () => store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['breaker', 'w238'], limit: 5 });
    await expectServed(shared, ['tenants _id_', 'memberships _id_', 'documents tenant_status', 'postings clustered _id', 'chunks _id_', 'documents _id_']);
    // Withdrawn: its chunks by (documentId, index) and _id, its entries one by one on the clustered _id (one per
    // bucket of its three words), its list of buckets.
    const buckets = new Set(['breaker', 'trips', 'resets'].map(bucketOf)).size;
    await expectServed(() => store.withdrawDocument(id, 60_000), [
      'documents _id_', 'chunks document_index', 'chunks _id_', 'documents _id_', 'chunks document_index',
      'postingLists _id_', ...Array.from({ length: buckets }, () => 'postings clustered _id'), 'documents _id_', 'postingLists _id_',
    ]);
  });

  it('documents of a tenant, newest first: (tenantId, createdAt, seq); a document by _id', async () => {
    const [tenant] = await store.listTenants(w.org.id, w.user.id);
    const documents = await store.listDocuments(tenant!.id, w.user.id);
    expect(documents).toHaveLength(10);
    await expectServed(() => store.listDocuments(tenant!.id, w.user.id), ['tenants _id_', 'memberships _id_', 'documents tenant_created']);
    await expectServed(() => store.getDocument(documents[0]!.id, w.user.id), ['documents _id_', 'tenants _id_', 'memberships _id_']);
    // Marked, its chunks looked for (a batch at a time, each removed by _id, the grace renewed by _id: this one has
    // none), its postings' term lists by _id; then (the object gone) the record; the abandoned deletes on the queue's index.
    await expectServed(() => store.withdrawDocument(documents[9]!.id, 60_000), ['documents _id_', 'chunks document_index', 'postingLists _id_']);
    await expectServed(() => store.removeDocument(documents[9]!.id), ['documents _id_', 'chunks document_index', 'postingLists _id_']);
    await expectServed(() => store.abandonedDeletes(20), ['documents status_created']);
  });
});

describe('mongo store: writes and the purge find their documents on an index', () => {
  it('a span batch repeated and extended: the idempotency key, stored spans and trace records by _id', async () => {
    const t = newId();
    // Operations new to the store (it remembers the names it decided): their hour's names are decided below.
    const root = rootSpan(t, T0 + 5000, { parentSpanId: newId(), durationMs: 10, requestMethod: `controller:GET /repeated/${t}` });
    await store.writeSpans(spanBatch(quiet, [root]));
    // The same span again, with an entry span that outranks it: the key; the insert; one read of the stored
    // version, the parents, the children and the open calls under the batch's spans (an $or of _id, the controller
    // spans' (traceKey, parentSpanId) and the open calls' (callOp, projectId, traceId, parentSpanId)), beside it the
    // applications of the project (the repeated span waits for its parent); then the trace records (read, upserts,
    // root change) beside the rollups (the new entry's delta, its flags flipped; the repeated entry's pending
    // operations and its mark, which finds it counted already) and the calls (the waiting span's parent looked up in
    // the project's other application by _id: not there); the key last. The delta: the names its hour keeps (an
    // upsert, then a read), then the rollups per application and per operation.
    await expectServed(
      () => store.writeSpans(spanBatch(quiet, [root, rootSpan(t, T0 + 4000, { durationMs: 50, requestMethod: `controller:GET /extended/${t}` })], { idempotencyKey: 'plans' })),
      ['idempotencyKeys _id_', 'spans controller_trace_parent+call_open+_id_', 'applications project', 'traces _id_', 'traces _id_', 'traces _id_',
        'operationNames _id_', 'operationNames _id_', 'rollups _id_', 'rollupHours _id_', 'operationRollups _id_', 'operationRollupHours _id_',
        'spans rollup_op', 'spans _id_', 'spans _id_', 'spans _id_', 'idempotencyKeys _id_'], { anyOrder: true });
  });

  it('a group of new batches, a child\'s parent in another batch: the same round trips for 3 batches or 60, each query on an index', async () => {
    const batches = (n: number) => Array.from({ length: n }, (_, i) => {
      const t = newId();
      const root = rootSpan(t, T0 + 6000 + i, { durationMs: 20, requestMethod: `controller:GET /group/${t}` });
      const nested = rootSpan(t, T0 + 6001 + i, { parentSpanId: root.spanId, durationMs: 5 });
      // The root and its nested controller span in two batches of the group, a plain span beside each.
      return [spanBatch(quiet, [nested, span(t, T0 + 6002 + i, { parentSpanId: nested.spanId })], { idempotencyKey: `g${i}-${newId()}` }),
        spanBatch(w.app, [rootSpan(newId(), T0 + 6003 + i)]), spanBatch(quiet, [root])];
    }).flat();
    // The keys; the insert; the read after it (only children and open calls to look for: no stored version, no
    // parent outside, and no span waits for its parent: no applications read);
    // the children marked parentSeen, their pending operations and their uncount mark (none was counted); the
    // trace records (read, upserts) beside the new entries' delta (the names their hours keep, written and read,
    // then the four rollup collections) and flip; the keys.
    const commands = ['find idempotencyKeys', 'insert spans', 'find spans', 'update spans', 'distinct spans', 'update spans',
      'find traces', 'update traces', 'update operationNames', 'find operationNames', 'update rollups', 'update rollupHours',
      'update operationRollups', 'update operationRollupHours', 'update spans', 'update idempotencyKeys'].sort();
    let last: ReturnType<typeof batches> = [];
    for (const n of [1, 20]) {
      const sentNow: string[] = [];
      const group = (last = batches(n));
      const plans = await plansOf(() => store.writeSpanBatches(group), sentNow);
      expect(sentNow.sort()).toEqual(commands);
      // An update command is explained per statement (one per trace record, per rollup document): each on its index.
      expect([...new Set(plans.map((p) => `${p.collection} ${p.index}`))].sort()).toEqual(
        ['idempotencyKeys _id_', 'operationNames _id_', 'operationRollupHours _id_', 'operationRollups _id_', 'rollupHours _id_', 'rollups _id_',
          'spans _id_', 'spans controller_trace_parent+call_open', 'spans rollup_op', 'traces _id_']);
      for (const plan of plans) expect(plan.stages.filter((stage) => ['COLLSCAN', 'SORT'].includes(stage))).toEqual([]);
    }
    // Names the store decided before (its hours' lists only grow): new spans of the same operations neither write
    // nor read the names, and still add to the per-operation rollups.
    const again = last.map((b) => ({ ...b, idempotencyKey: `again-${newId()}`,
      spans: b.spans.filter((x) => x.parentSpanId == null).map((x) => ({ ...x, traceId: newId(), spanId: newId() })) })).filter((b) => b.spans.length > 0);
    const sentAgain: string[] = [];
    await plansOf(() => store.writeSpanBatches(again), sentAgain);
    expect(sentAgain.filter((cmd) => cmd.endsWith('operationNames'))).toEqual([]);
    expect(sentAgain).toContain('update operationRollups');
  });

  it('the purge: trace records and logs by the TTL index on ts, their spans by trace, log segments by time, rollups and keys by their TTL index', async () => {
    // The cut-off falls inside an hour: the hours before it go, and that hour's documents are marked partial,
    // both by the TTL index on hour.
    // A trace and a log two days old, within the 30 days of the TTL indexes, before the purge's cut-off of about
    // one day. The cut-off sits at half past an hour: in an hour's first minute there is no partial hour to mark.
    const cutoff = Math.floor((T0 - 24 * HOUR) / HOUR) * HOUR - HOUR / 2;
    const old = newId();
    await store.writeSpans(spanBatch(quiet, [rootSpan(old, T0 - 48 * HOUR)]));
    await store.writeLogs(logBatch(quiet, [logEntry(quiet, T0 - 48 * HOUR)]));
    expect(await waitIndexed(db)).toBe(0);
    // The old records (ttl), their spans still waiting for a caller decided, their flagged spans, their spans (trace_ts).
    await expectServed(() => store.purgeTelemetryBefore(cutoff),
      ['traces ttl', 'spans trace_ts', 'spans trace_ts', 'spans trace_ts', 'traces _id_', 'logs ttl',
        // The log's search segment, its logs all past the cut-off: its keys read, its postings, its keys, then
        // itself (log-merge.ts, log-segments.ts dropSegment).
        'logSegments max_ts', 'logSegmentKeys _id_', 'logPostings _id_', 'logSegmentKeys _id_', 'logSegments _id_',
        // The rollups per application, per operation, of the calls, then the names of the hours gone.
        'rollups ttl', 'rollupHours ttl', 'rollupHours ttl', 'operationRollups ttl', 'operationRollupHours ttl', 'operationRollupHours ttl',
        'callRollups ttl', 'callRollupHours ttl', 'callRollupHours ttl', 'operationNames ttl', 'idempotencyKeys ttl']);
    expect(await db.collection('logSegments').countDocuments({ maxTs: { $lt: new Date(cutoff) } })).toBe(0);
    expect(await db.collection('traces').countDocuments({ traceId: old })).toBe(0);
    expect(await db.collection('spans').countDocuments({ traceId: old })).toBe(0);
    expect(await db.collection('logs').countDocuments({ ts: { $lt: new Date(cutoff) } })).toBe(0);
  });
});

describe('mongo store: the service map\'s calls are written, read and purged on an index', () => {
  /**
   * A request of `busy` (its root and client span) calling an entry span of `quiet`, at `at`; operations named
   * after `at`, new to the store, so that each write decides their names (the store remembers names it decided).
   */
  const call = (at: number) => {
    const t = newId();
    const root = rootSpan(t, at, { durationMs: 30, requestMethod: `controller:GET /shop/${at}` });
    const client = span(t, at + 1, { parentSpanId: root.spanId, requestMethod: 'external:quiet' });
    return { caller: [root, client], entry: rootSpan(t, at + 2, { parentSpanId: client.spanId, durationMs: 20, requestMethod: `controller:POST /pay/${at}` }) };
  };
  const calls = (window: { from: number; to: number; bucketMs: number }) => () => store.readMetrics({ userId: w.user.id, byCaller: true, ...window });

  /** The commands every new entry span's batch sends: the insert and the read after it, its trace record (read, upsert), its entry's delta and flip. */
  const ENTRY = ['insert spans', 'find spans', 'find traces', 'update traces', 'update operationNames', 'find operationNames', 'update rollups',
    'update rollupHours', 'update operationRollups', 'update operationRollupHours', 'update spans'];
  const ENTRY_PLANS = ['spans rollup_op', 'traces _id_', 'traces _id_', 'operationNames _id_', 'operationNames _id_', 'rollups _id_', 'rollupHours _id_',
    'operationRollups _id_', 'operationRollupHours _id_'];

  it('the called span after its caller: its parent by _id in the project\'s other applications, the call decided by _id, its delta, its flip on call_open', async () => {
    const c = call(T0 + 7000);
    await store.writeSpans(spanBatch(w.app, c.caller));
    const sent: string[] = [];
    const plans = await plansOf(() => store.writeSpans(spanBatch(quiet, [c.entry])), sent);
    // Beside the read after the insert, the applications of the project (the span waits); then beside the trace
    // record and the entry: its parent found in `busy` by _id, the waiting span decided (one bulk), the call
    // documents, minute and hour, and the span's flip. Four round trips after the read, beside the others'.
    expect(sent.sort()).toEqual([...ENTRY, 'find applications', 'find spans', 'update spans', 'update callRollups', 'update callRollupHours', 'update spans'].sort());
    expect(plans.map((p) => `${p.collection} ${p.index}`).sort()).toEqual([...ENTRY_PLANS, 'spans controller_trace_parent+call_open+_id_',
      'applications project', 'spans _id_', 'spans _id_', 'callRollups _id_', 'callRollupHours _id_', 'spans call_open'].sort());
    for (const plan of plans) expect(plan.stages.filter((stage) => ['COLLSCAN', 'SORT'].includes(stage))).toEqual([]);
  });

  it('the caller after the called span: the waiting span found on call_open by the read after the insert, no applications read', async () => {
    const c = call(T0 + 8000);
    await store.writeSpans(spanBatch(quiet, [c.entry]));
    const sent: string[] = [];
    const plans = await plansOf(() => store.writeSpans(spanBatch(w.app, c.caller)), sent);
    // The waiting span under the batch's client span, decided; the call's delta and flip.
    expect(sent.sort()).toEqual([...ENTRY, 'update spans', 'update callRollups', 'update callRollupHours', 'update spans'].sort());
    expect(plans.map((p) => `${p.collection} ${p.index}`).sort()).toEqual([...ENTRY_PLANS, 'spans controller_trace_parent+call_open',
      'spans _id_', 'callRollups _id_', 'callRollupHours _id_', 'spans call_open'].sort());
    for (const plan of plans) expect(plan.stages.filter((stage) => ['COLLSCAN', 'SORT'].includes(stage))).toEqual([]);
    // A call operation found under way: while its owner may still be at it, the poll for any of its spans, then
    // its spans (completeCallOp), on call_open by its id.
    const poll = await db.collection('spans').find({ callOp: newId() }, { projection: { _id: 1 } }).limit(1).explain('queryPlanner');
    expect(JSON.stringify(poll.queryPlanner.winningPlan)).toContain('"indexName":"call_open"');
  });

  it('read by caller: whole hours on the call documents\' (projectId, hour), the rest on (projectId, minute)', async () => {
    const hour0 = Math.floor(T0 / HOUR) * HOUR;
    expect((await calls({ from: hour0, to: hour0 + 3 * HOUR, bucketMs: 3 * HOUR })()).map((c) => [c.callerApplicationId, c.applicationId, c.requests]))
      .toEqual([[w.app.id, quiet.id, 2]]);
    await expectServed(calls({ from: hour0, to: hour0 + HOUR, bucketMs: 60_000 }), [...VISIBLE_PROJECTS, 'callRollups project_minute']);
    await expectServed(calls({ from: hour0 - 72 * HOUR, to: hour0 + 1_200_000, bucketMs: 3 * HOUR }),
      [...VISIBLE_PROJECTS, 'callRollupHours project_hour', 'callRollups project_minute']);
  });

  it('the purge of a trace called after the cut-off: its entry and its call taken out, each by a mark on _id and an operation on its index', async () => {
    const cutoff = Math.floor((T0 - 12 * HOUR) / HOUR) * HOUR - HOUR / 2;
    const c = call(cutoff + 5 * 60_000);
    // The called application's trace starts before the cut-off (its record goes), the call comes after it.
    await store.writeSpans(spanBatch(w.app, c.caller));
    await store.writeSpans(spanBatch(quiet, [span(c.entry.traceId, cutoff - 10 * 60_000, { requestMethod: 'service:consumer' }), c.entry]));
    // The purged records' spans still waiting for a caller, decided (trace_ts); the spans of the purged records with a
    // flag (trace_ts); the entry taken out (rollup-ops.ts settle: pending
    // operations and the mark by _id, the names of its hour, long past, asked of the database, the delta, the flips
    // on rollup_op); then its call: the mark by _id, the operation's spans on call_open, the call documents, the
    // flip on call_open; the rest as any purge.
    await expectServed(() => store.purgeTelemetryBefore(cutoff), ['traces ttl', 'spans trace_ts', 'spans trace_ts', 'spans _id_', 'spans _id_', 'spans rollup_op',
      'operationNames _id_', 'operationNames _id_', 'rollups _id_', 'rollupHours _id_', 'operationRollups _id_', 'operationRollupHours _id_',
      'spans rollup_op', 'spans rollup_op', 'spans _id_', 'spans call_open', 'callRollups _id_', 'callRollupHours _id_', 'spans call_open',
      'spans trace_ts', 'traces _id_', 'logs ttl', 'logSegments max_ts',
      'rollups ttl', 'rollupHours ttl', 'rollupHours ttl', 'operationRollups ttl', 'operationRollupHours ttl', 'operationRollupHours ttl',
      'callRollups ttl', 'callRollupHours ttl', 'callRollupHours ttl', 'operationNames ttl', 'idempotencyKeys ttl']);
    expect(await calls({ from: cutoff - HOUR, to: cutoff + HOUR, bucketMs: 2 * HOUR })()).toEqual([]);
  });
});

describe('the plan check itself', () => {
  it('fails once an index a path needs is dropped (here the API keys\' hash)', async () => {
    await db.collection('apiKeys').dropIndex('hash');
    const plans = await plansOf(() => store.findApiKeyByHash('hash-7'));
    expect(plans.map((p) => `${p.collection} ${p.index}`)).toEqual(['apiKeys COLLSCAN']);
    await expect(expectServed(() => store.findApiKeyByHash('hash-7'), ['apiKeys hash'])).rejects.toThrow();
  });
});
