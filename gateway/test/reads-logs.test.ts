import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, expectError, register } from './accounts-helpers.js';
import { bearer, createTenancy, log, startLantern, type Lantern, type Tenancy } from './harness.js';
import { addProject, getAs, iso, logs, MINUTE, sendLogs, T0, walkPages, type LogEntry } from './telemetry-helpers.js';

/** Sends logs as one batch and expects all of them accepted. */
async function sendAll(l: Lantern, apiKey: string, items: Array<Record<string, unknown>>) {
  const res = await sendLogs(l, apiKey, { timestamp: new Date().toISOString(), logs: items }).expect(200);
  expect(res.body).toEqual({ accepted: items.length, rejected: [] });
}

describe('GET /ingest/logs', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  let a2: { projectId: number; applicationId: number; apiKey: string };
  const traceX = randomUUID();
  // Messages name their owner: a-<n> in A's first project, a2-<n> in A's second, b-<n> in B's.
  const levels = ['error', 'info', 'fatal', 'warn', 'debug', 'error'] as const;

  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'logs-a');
    b = await createTenancy(l, 'logs-b');
    a2 = await addProject(l, a);
    const series = (owner: string, offset: number) => levels.map((level, i) => log({
      level, message: `${owner}-${i}`, timestamp: iso(T0 + (i * 3 + offset) * MINUTE), ...(i % 2 === 0 ? { traceId: traceX } : {}),
    }));
    await sendAll(l, a.apiKey, series('a', 0));
    await sendAll(l, a2.apiKey, series('a2', 1));
    await sendAll(l, b.apiKey, series('b', 2));
  });
  afterAll(() => l.stop());

  const messages = (entries: LogEntry[]) => entries.map((e) => e.message);
  const ownedBy = (entries: LogEntry[], ...owners: string[]) => entries.every((e) => owners.includes(e.message.split('-')[0]!));

  it('returns only the logs of the projects of the caller\'s organizations, newest first', async () => {
    const mine = await logs(l, a);
    expect(mine).toHaveLength(12);
    expect(ownedBy(mine, 'a', 'a2')).toBe(true);
    expect(mine.map((e) => Date.parse(e.timestamp))).toEqual(mine.map((e) => Date.parse(e.timestamp)).sort((x, y) => y - x));
    expect(messages(mine).slice(0, 3)).toEqual(['a2-5', 'a-5', 'a2-4']);
    const theirs = await logs(l, b);
    expect(messages(theirs)).toEqual(['b-5', 'b-4', 'b-3', 'b-2', 'b-1', 'b-0']);
    for (const e of [...mine, ...theirs]) expect(Object.keys(e)).toEqual(expect.arrayContaining(['id', 'projectId', 'applicationId']));
  });

  it('shows a user added to the organization its logs, and a user of no organization nothing', async () => {
    const c = await register(l, 'logs-c');
    expect(await logs(l, c)).toEqual([]);
    await addMember(l, b.token, b.organizationId, c);
    expect(messages(await logs(l, c))).toEqual(['b-5', 'b-4', 'b-3', 'b-2', 'b-1', 'b-0']);
  });

  it.each<[string, (x: { a2: typeof a2; a: Tenancy }) => Record<string, string | number>, string[]]>([
    ['level', () => ({ level: 'error' }), ['a2-5', 'a-5', 'a2-0', 'a-0']],
    ['traceId', () => ({ traceId: traceX }), ['a2-4', 'a-4', 'a2-2', 'a-2', 'a2-0', 'a-0']],
    ['traceId in upper case with level', () => ({ traceId: traceX.toUpperCase(), level: 'fatal' }), ['a2-2', 'a-2']],
    ['projectId', ({ a2 }) => ({ projectId: a2.projectId }), ['a2-5', 'a2-4', 'a2-3', 'a2-2', 'a2-1', 'a2-0']],
    ['applicationId', ({ a }) => ({ applicationId: a.applicationId }), ['a-5', 'a-4', 'a-3', 'a-2', 'a-1', 'a-0']],
    ['from (inclusive) and to (exclusive)', () => ({ from: iso(T0 + 3 * MINUTE), to: iso(T0 + 7 * MINUTE) }), ['a-2', 'a2-1', 'a-1']],
    ['level without matches', () => ({ level: 'trace' }), []],
    ['several levels', () => ({ level: 'error,fatal' }), ['a2-5', 'a-5', 'a2-2', 'a-2', 'a2-0', 'a-0']],
    ['several levels, one named twice', () => ({ level: 'fatal,warn,fatal' }), ['a2-3', 'a-3', 'a2-2', 'a-2']],
    ['several levels with q and traceId', () => ({ level: 'error,fatal', q: 'a2', traceId: traceX }), ['a2-2', 'a2-0']],
    ['q (ASCII letters in any case)', () => ({ q: 'A2-' }), ['a2-5', 'a2-4', 'a2-3', 'a2-2', 'a2-1', 'a2-0']],
    ['q with level', () => ({ q: '-', level: 'fatal' }), ['a2-2', 'a-2']],
    ['q with projectId', ({ a }) => ({ q: '-3', projectId: a.projectId }), ['a-3']],
    ['q with _ and % taken literally', () => ({ q: 'a_%' }), []],
    ['q with regular-expression characters taken literally', () => ({ q: 'a.-' }), []],
  ])('narrows by %s', async (_label, query, expected) => {
    expect(messages(await logs(l, a, query({ a2, a })))).toEqual(expected);
  });

  it('answers 404 for a projectId of another organization, exactly like one that does not exist', async () => {
    const foreign = await getAs(l, a.token, '/ingest/logs', { projectId: b.projectId });
    const missing = await getAs(l, a.token, '/ingest/logs', { projectId: 999_999 });
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
  });

  it('answers [] for an applicationId of another organization', async () => {
    expect(await logs(l, a, { applicationId: b.applicationId })).toEqual([]);
  });

  it.each([
    ['level=critical'], ['level=ERROR'], ['level=error&level=fatal'], ['level=error,'], ['level=,error'], ['level=error,loud'], ['level=error%2C%20fatal'], ['projectId=0'], ['projectId=abc'], ['traceId=xyz'],
    ['limit=0'], ['limit=1001'], ['cursor=%%%'], ['from=2026-03-01'], [`from=${iso(T0)}&to=${iso(T0 - 1)}`],
    ['q='], [`q=${'x'.repeat(201)}`], ['q=a&q=b'],
  ])('answers 400 validation_failed for %s', async (query) => {
    expectError(await l.http.get(`/ingest/logs?${query}`).set(bearer(a.token)), 400, 'validation_failed');
  });

  it('counts the window\'s logs per bucket and level, and per level and application (GET /logs/volume)', async () => {
    const from = iso(T0);
    const to = iso(T0 + 20 * MINUTE);
    const res = await l.http.get(`/logs/volume?projectId=${a.projectId}&from=${from}&to=${to}`).set(bearer(a.token)).expect(200);
    // Project a's six logs, one every 3 minutes from T0: error, info, fatal, warn, debug, error.
    expect(res.body).toMatchObject({ from, to, bucketMs: MINUTE, total: 6 });
    expect(res.body.levels).toEqual([
      { level: 'trace', count: 0 }, { level: 'debug', count: 1 }, { level: 'info', count: 1 }, { level: 'warn', count: 1 }, { level: 'error', count: 2 }, { level: 'fatal', count: 1 },
    ]);
    expect(res.body.applications).toEqual([{ applicationId: a.applicationId, count: 6 }]);
    expect(res.body.buckets).toHaveLength(20);
    expect(res.body.buckets[0]).toEqual({ timestamp: from, total: 1, levels: { error: 1 } });
    expect(res.body.buckets[15]).toEqual({ timestamp: iso(T0 + 15 * MINUTE), total: 1, levels: { error: 1 } });
    const severe = await l.http.get(`/logs/volume?projectId=${a.projectId}&from=${from}&to=${to}&level=error,fatal`).set(bearer(a.token)).expect(200);
    expect(severe.body.total).toBe(3);
    expectError(await l.http.get(`/logs/volume?projectId=${b.projectId}`).set(bearer(a.token)), 404, 'not_found');
    expectError(await l.http.get(`/logs/volume?projectId=${a.projectId}&level=loud`).set(bearer(a.token)), 400, 'validation_failed');
    expectError(await l.http.get('/logs/volume').set(bearer(a.token)), 400, 'missing_parameter');
  });

  it('finds logs by attribute (attr) and counts the top values of chosen keys among the newest (GET /logs/facets)', async () => {
    const t = await createTenancy(l, 'logs-facets');
    const otel = (i: number) => ({ serviceName: i % 3 ? 'checkout' : 'billing', resource: [{ key: 'host.name', value: `web-${i % 2}` }], attributes: [{ key: 'http.status_code', value: 500 + (i % 2) }] });
    await sendAll(l, t.apiKey, Array.from({ length: 12 }, (_, i) => log({ level: i % 4 ? 'info' : 'error', message: `m-${i}`, timestamp: iso(T0 + i * MINUTE),
      tenant: i < 8 ? 'acme' : 'globex', ...(i === 5 ? { chargeId: 'ch_5' } : {}), ...(i >= 6 ? otel(i) : {}), ...(i < 2 ? { note: 'n'.repeat(300) } : {}) })));
    const read = async (query: string) => messages((await l.http.get(`/ingest/logs?projectId=${t.projectId}&${query}`).set(bearer(t.token)).expect(200)).body as LogEntry[]);
    expect(await read('attr=chargeId%3Dch_5')).toEqual(['m-5']);
    expect(await read('attr=tenant%3Dglobex&attr=http.status_code%3D501')).toEqual(['m-11', 'm-9']);
    expect(await read('attr=host.name%3Dweb-0&level=error')).toEqual(['m-8']);
    expect(await read('attr=chargeId')).toEqual(['m-5']);
    expectError(await l.http.get(`/ingest/logs?attr=${encodeURIComponent('=x')}`).set(bearer(t.token)), 400, 'validation_failed');

    const facets = await l.http.get(`/logs/facets?projectId=${t.projectId}&key=tenant&key=service.name&key=http.status_code&key=nothing&key=note`).set(bearer(t.token)).expect(200);
    expect(facets.body).toEqual({ sampled: 12, complete: true, facets: [
      { key: 'tenant', values: [{ value: 'acme', count: 8 }, { value: 'globex', count: 4 }], others: 0, missing: 0 },
      { key: 'service.name', values: [{ value: 'checkout', count: 4 }, { value: 'billing', count: 2 }], others: 0, missing: 6 },
      { key: 'http.status_code', values: [{ value: '500', count: 3 }, { value: '501', count: 3 }], others: 0, missing: 6 },
      { key: 'nothing', values: [], others: 0, missing: 12 },
      // A text too long to count: with the others.
      { key: 'note', values: [], others: 2, missing: 10 },
    ] });
    // The filters of GET /ingest/logs narrow what is counted.
    const narrowed = await l.http.get(`/logs/facets?projectId=${t.projectId}&key=tenant&level=error&attr=service.name`).set(bearer(t.token)).expect(200);
    expect(narrowed.body.facets[0].values).toEqual([{ value: 'globex', count: 1 }]);
    expect(narrowed.body.sampled).toBe(1);
    expectError(await l.http.get(`/logs/facets?projectId=${t.projectId}`).set(bearer(t.token)), 400, 'missing_parameter');
    expectError(await l.http.get(`/logs/facets?projectId=${t.projectId}&key=`).set(bearer(t.token)), 400, 'validation_failed');
    expectError(await l.http.get(`/logs/facets?projectId=${b.projectId}&key=tenant`).set(bearer(t.token)), 404, 'not_found');
  });

  it('answers 401 without a token and with an API key', async () => {
    expectError(await l.http.get('/ingest/logs'), 401, 'unauthorized');
    expectError(await l.http.get('/ingest/logs').set('x-api-key', a.apiKey), 401, 'unauthorized');
  });

  it('pages with limit: X-Next-Cursor and Link rel="next" until the last page; the union is the whole set', async () => {
    const all = await logs(l, a);
    const pages = await walkPages<LogEntry>(l, a.token, '/ingest/logs?limit=5');
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    const ids = pages.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(12);
    expect(ids).toEqual(all.map((e) => e.id));
  });

  it('takes a q of 200 characters', async () => {
    expect(await logs(l, a, { q: 'x'.repeat(200) })).toEqual([]);
  });

  it('pages through the logs matching q, keeping it on the next link', async () => {
    const pages = await walkPages<LogEntry>(l, a.token, '/ingest/logs?limit=4&q=a2-');
    expect(pages.map((p) => messages(p))).toEqual([['a2-5', 'a2-4', 'a2-3', 'a2-2'], ['a2-1', 'a2-0']]);
  });

  it('pages with filters kept on the next link', async () => {
    const pages = await walkPages<LogEntry>(l, a.token, `/ingest/logs?limit=2&traceId=${traceX}`);
    expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
    expect(messages(pages.flat())).toEqual(['a2-4', 'a-4', 'a2-2', 'a-2', 'a2-0', 'a-0']);
  });

  it('pages through logs that share a timestamp without losing or repeating any', async () => {
    const same = iso(T0 + 100 * MINUTE);
    await sendAll(l, a.apiKey, Array.from({ length: 7 }, (_, i) => log({ message: `tie-${i}`, timestamp: same })));
    const pages = await walkPages<LogEntry>(l, a.token, `/ingest/logs?limit=3&from=${encodeURIComponent(same)}`);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(messages(pages.flat()).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `tie-${i}`));
  });
});
