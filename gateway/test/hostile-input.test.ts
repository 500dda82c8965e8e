import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';
import { sendLogs, sendTraces } from './telemetry-helpers.js';

/**
 * Hostile query strings and path segments on every GET and DELETE: MongoDB-style operators in the bracket
 * syntax, arrays, ids of the wrong type, negative and huge numbers, over-long values. Each answers the
 * contract's error (400 for a query parameter, 404 for a path id) and never data. Bodies are in
 * hostile-input-bodies.test.ts and hostile-input-ingest.test.ts.
 */

interface Setup extends Tenancy {
  tenantId: string;
  docId: string;
}

/** Every GET that takes query parameters: its path, a valid query, and the parameters it reads. */
const GETS = (s: Setup): Array<[path: string, valid: Record<string, string | number>, params: string[]]> => [
  ['/projects', { organizationId: s.organizationId }, ['organizationId']],
  ['/applications', { projectId: s.projectId }, ['projectId']],
  ['/logs/project', { id: s.projectId }, ['id', 'from', 'to', 'limit', 'cursor', 'applicationId', 'traceId', 'minDurationMs', 'status', 'url']],
  ['/ingest/logs', {}, ['projectId', 'from', 'to', 'limit', 'cursor', 'applicationId', 'traceId', 'level', 'q']],
  ['/metrics', {}, ['projectId', 'applicationId', 'from', 'to']],
  ['/ai/tenant', { organizationId: s.organizationId }, ['organizationId']],
  ['/ai/docs', { TenantId: s.tenantId }, ['TenantId']],
];

/** The raw (already URL-encoded where needed) hostile forms of a parameter `p`. */
const OPERATOR_FORMS = (p: string) => [`${p}[$gt]=`, `${p}[$ne]=x`, `${p}[$regex]=.*`, `${p}[]=1`, `${p}%5B%24gt%5D=`, `${p}[0]=1`];

describe('hostile query strings and path segments', () => {
  let l: Lantern;
  let s: Setup;
  let other: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    const t = await createTenancy(l, 'hostile-q');
    const tenant = await l.http.post('/ai/tenant').set(bearer(t.token)).send({ name: 'hq tenant', organizationId: t.organizationId }).expect(200);
    const doc = await l.http.post(`/ai/docs?TenantId=${tenant.body.id}`).set(bearer(t.token))
      .attach('file', Buffer.from('hello\n'), { filename: 'a.txt', contentType: 'text/plain' }).expect(200);
    s = { ...t, tenantId: tenant.body.id, docId: doc.body.id };
    await sendTraces(l, s.apiKey, traceBatch([span()])).expect(200);
    await sendLogs(l, s.apiKey, logBatch([log()])).expect(200);
    other = await createTenancy(l, 'hostile-q-other');
  });
  afterAll(() => l.stop());

  const get = (path: string, query: string) => l.http.get(`${path}?${query}`).set(bearer(s.token));
  const encode = (q: Record<string, string | number>) => new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)])).toString();
  /** The valid query without `param`, joined with `extra`. */
  const withExtra = (valid: Record<string, string | number>, param: string, extra: string) => {
    const { [param]: _omit, ...rest } = valid;
    return [encode(rest), extra].filter(Boolean).join('&');
  };

  it('the valid queries answer 200 (the cases below differ from them in one parameter)', async () => {
    for (const [path, valid] of GETS(s)) {
      const res = await get(path, encode(valid));
      expect(`${path} ${res.status}`).toBe(`${path} 200`);
    }
  });

  it('answers 400 for an operator, array or index form of any parameter of any GET: missing_parameter for a required one, else validation_failed', async () => {
    for (const [path, valid, params] of GETS(s)) {
      for (const p of params) {
        // A required parameter given only in the bracket form is absent; an optional one is refused, not dropped.
        const code = p in valid ? 'missing_parameter' : 'validation_failed';
        for (const form of OPERATOR_FORMS(p)) {
          const query = withExtra(valid, p, form);
          const res = await get(path, query);
          expect(`${path}?${query} ${res.status} ${res.body?.error?.code}`).toBe(`${path}?${query} 400 ${code}`);
          expectError(res, 400, code);
          expect(JSON.stringify(res.body.error)).toContain(p);
        }
      }
    }
  });

  it('answers 400 validation_failed for an operator form given next to the plain parameter', async () => {
    for (const [path, valid, params] of GETS(s)) {
      const p = params[0]!;
      const query = `${encode(valid)}&${p}[$ne]=0`;
      const plain = valid[p] === undefined ? `${p}=1&${query}` : query;
      expectError(await get(path, plain), 400, 'validation_failed');
    }
  });

  it('answers 400 validation_failed for a JSON operator object as the value of an id parameter', async () => {
    const op = encodeURIComponent('{"$gt":""}');
    for (const [path, query] of [
      ['/projects', `organizationId=${op}`], ['/applications', `projectId=${op}`], ['/logs/project', `id=${op}`],
      ['/ingest/logs', `projectId=${op}`], ['/metrics', `applicationId=${op}`], ['/ai/tenant', `organizationId=${op}`],
      ['/ingest/logs', `limit=${op}`], ['/ingest/logs', `level=${op}`], ['/metrics', `from=${op}`],
    ] as const) {
      expectError(await get(path, query), 400, 'validation_failed');
    }
  });

  it('answers 404 for a TenantId that is an operator object, SQL or over-long text: a tenant that does not exist', async () => {
    for (const value of ['{"$gt":""}', "' OR '1'='1", '%', '*', '../../etc/passwd', randomUUID().toUpperCase()]) {
      const res = await get('/ai/docs', `TenantId=${encodeURIComponent(value)}`);
      expectError(res, 404, 'not_found');
    }
    expectError(await get('/ai/docs', `TenantId=${'t'.repeat(5000)}`), 400, 'validation_failed');
  });

  it.each([
    ['negative', '-1'], ['zero', '0'], ['fractional', '1.5'], ['exponent', '1e3'], ['hexadecimal', '0x10'], ['huge', '99999999999999999999'],
    ['beyond 2^53', '9007199254740993'], ['a word', 'abc'], ['padded', '%201'], ['signed', '+1'], ['over-long', '1'.repeat(2000)],
  ])('answers 400 validation_failed for a %s integer id in the query of every GET', async (_label, value) => {
    for (const [path, query] of [
      ['/projects', 'organizationId'], ['/applications', 'projectId'], ['/logs/project', 'id'], ['/ingest/logs', 'projectId'],
      ['/ingest/logs', 'applicationId'], ['/metrics', 'projectId'], ['/metrics', 'applicationId'], ['/ai/tenant', 'organizationId'],
    ] as const) {
      const res = await get(path, `${query}=${value}`);
      expect(`${path}?${query}=${value.slice(0, 30)} ${res.status}`).toBe(`${path}?${query}=${value.slice(0, 30)} 400`);
      expectError(res, 400, 'validation_failed');
    }
  });

  it.each([
    ['limit=99999999999999999999'], ['limit=-1'], ['limit=1e2'], ['minDurationMs=99999999999999999999'], ['minDurationMs=-0'],
    ['from=%2B275760-09-13T00:00:00.000Z'], ['from=9999-99-99T99:99:99Z'], ['to=-000001-01-01T00:00:00Z'], ['from=1700000000000'],
  ])('answers 400 validation_failed for the out-of-range value %s on the trace and log reads', async (query) => {
    expectError(await get('/logs/project', `id=${s.projectId}&${query}`), 400, 'validation_failed');
    if (!query.startsWith('minDurationMs')) expectError(await get('/ingest/logs', query), 400, 'validation_failed');
  });

  it('answers 400 validation_failed for a metrics window that is too long or reversed', async () => {
    expectError(await get('/metrics', 'from=0000-01-01T00:00:00Z&to=9999-12-31T23:59:59Z'), 400, 'validation_failed');
    expectError(await get('/metrics', 'from=2026-03-01T00:00:00Z&to=2026-02-01T00:00:00Z'), 400, 'validation_failed');
  });

  it.each([
    ['an operator object', encodeURIComponent('{"$gt":""}')],
    ['a $-word', '$gt'],
    ['a negative id', '-1'],
    ['a huge id', '99999999999999999999'],
    ['an exponent', '1e3'],
    ['SQL', encodeURIComponent("1' OR '1'='1")],
    ['an over-long id', 'x'.repeat(5000)],
    ['a NUL', '%00'],
    ['an encoded slash', '..%2F..%2Fetc'],
  ])('answers 404 not_found for %s as a path id of every endpoint that takes one', async (_label, id) => {
    const requests = [
      l.http.get(`/applications/${id}/api-keys`),
      l.http.post(`/applications/${id}/api-keys`).send({ name: 'k' }),
      l.http.post(`/organizations/${id}/members`).send({ email: other.email }),
      l.http.delete(`/api-keys/${id}`),
      l.http.delete(`/ai/docs/${id}`),
    ];
    for (const req of requests) expectError(await req.set(bearer(s.token)), 404, 'not_found');
  });

  it('POST /ai/docs refuses TenantId in the bracket form, alone (missing) or beside a valid one (400), and stores nothing', async () => {
    const upload = (query: string) => l.http.post(`/ai/docs?${query}`).set(bearer(s.token))
      .attach('file', Buffer.from('smuggled\n'), { filename: 'smuggled.txt', contentType: 'text/plain' });
    expectError(await upload('TenantId[$ne]=x'), 400, 'missing_parameter');
    expectError(await upload('TenantId[$gt]='), 400, 'missing_parameter');
    expectError(await upload(`TenantId=${s.tenantId}&TenantId[$ne]=x`), 400, 'validation_failed');
    expectError(await upload(`TenantId=${s.tenantId}&TenantId=${s.tenantId}`), 400, 'validation_failed');
  });

  it('deleted nothing and created nothing through the hostile paths and queries', async () => {
    const keys = await l.http.get(`/applications/${s.applicationId}/api-keys`).set(bearer(s.token)).expect(200);
    expect(keys.body.map((k: { id: string; revokedAt?: string | null }) => [k.id, k.revokedAt ?? null])).toEqual([[s.apiKeyId, null]]);
    const docs = await l.http.get(`/ai/docs?TenantId=${s.tenantId}`).set(bearer(s.token)).expect(200);
    expect(docs.body.map((d: { id: string }) => d.id)).toEqual([s.docId]);
    const orgs = await l.http.get('/organizations').set(bearer(other.token)).expect(200);
    expect(orgs.body.map((o: { id: number }) => o.id)).toEqual([other.organizationId]);
  });

  it('answers 401 before looking at a hostile query when there is no token', async () => {
    for (const [path, valid, params] of GETS(s)) {
      const res = await l.http.get(`${path}?${withExtra(valid, params[0]!, `${params[0]}[$gt]=`)}`);
      expectError(res, 401, 'unauthorized');
    }
  });
});
