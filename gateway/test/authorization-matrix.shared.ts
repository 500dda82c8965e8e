import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response, Test } from 'supertest';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, span, traceBatch, type HttpTarget, type Tenancy } from './harness.js';
import { getAs, iso, logs, sendLogs, sendTraces, traces, type LogEntry } from './telemetry-helpers.js';

/**
 * A user of organization A against every project, log, tenant, document and API key of organization B:
 * each request answers 404 (or 403 where the contract names the organization in the body), never a 2xx,
 * and never any of B's data; a foreign resource answers exactly like one that does not exist.
 * Shared by the embedded run (authorization-matrix.test.ts) and the distributed one behind nginx.
 */

export interface MatrixTarget extends HttpTarget {
  /**
   * Resolves once `check` passes. Embedded, telemetry is stored before ingest answers, so one try; distributed,
   * the writer stores it a little later, so it is retried for a while.
   */
  settle(check: () => Promise<void>): Promise<void>;
  /** Whether the document's object is in the blob store. */
  documentStored(tenantId: string, documentId: string): Promise<boolean>;
  stop(): Promise<void>;
}

interface World extends Tenancy {
  tenantId: string;
  tenantName: string;
  docId: string;
  docSha256: string;
  docFilename: string;
  traceId: string;
  spanId: string;
  logMessage: string;
  applicationName: string;
  projectName: string;
  organizationName: string;
}

const NOW = Date.now();
const window = { from: iso(NOW - 30 * 60_000), to: iso(NOW + 30 * 60_000) };

/** Builds an organization with everything in it, through the API: project, app, key, spans, logs, tenant, document. */
async function buildWorld(l: MatrixTarget, label: string): Promise<World> {
  const t = await createTenancy(l, label);
  const traceId = randomUUID();
  const spanId = randomUUID();
  const logMessage = `secret log of ${label} ${randomUUID()}`;
  await sendTraces(l, t.apiKey, traceBatch([span({ traceId, spanId, timestamp: iso(NOW - 60_000) })])).expect(200, { accepted: 1, rejected: [] });
  await sendLogs(l, t.apiKey, logBatch([log({ message: logMessage, traceId, timestamp: iso(NOW - 60_000) })])).expect(200, { accepted: 1, rejected: [] });
  // Readable by its owner before anyone probes it: a refusal to A must not be an absence.
  await l.settle(async () => {
    expect((await traces(l, t, { traceId })).length).toBe(1);
    expect((await logs(l, t, { traceId })).map((e) => e.message)).toEqual([logMessage]);
  });
  const tenantName = `tenant of ${label} ${randomUUID().slice(0, 8)}`;
  const tenant = await l.http.post('/ai/tenant').set(bearer(t.token)).send({ name: tenantName, organizationId: t.organizationId }).expect(200);
  const docFilename = `notes-${label}-${randomUUID().slice(0, 8)}.txt`;
  const doc = await l.http.post(`/ai/docs?TenantId=${encodeURIComponent(tenant.body.id)}`).set(bearer(t.token))
    .attach('file', Buffer.from(`confidential notes of ${label}\n`), { filename: docFilename, contentType: 'text/plain' }).expect(200);
  return {
    ...t,
    tenantId: tenant.body.id,
    tenantName,
    docId: doc.body.id,
    docSha256: doc.body.sha256,
    docFilename,
    traceId,
    spanId,
    logMessage,
    applicationName: `app ${label}`,
    projectName: `project ${label}`,
    organizationName: `org ${label}`,
  };
}

/** Every text of B that must never reach A: string ids, key material, names, messages, file metadata. */
const secretsOf = (b: World) => [
  b.tenantId, b.tenantName, b.docId, b.docSha256, b.docFilename, b.traceId, b.spanId, b.logMessage,
  b.apiKey, b.apiKey.slice(0, 10), b.apiKeyId, b.applicationName, b.projectName, b.organizationName, b.email, b.userId,
];

function expectNoLeak(res: Response, b: World): void {
  for (const secret of secretsOf(b)) expect({ leaked: res.text.includes(secret), secret }).toEqual({ leaked: false, secret });
}

export function describeAuthorizationMatrix(start: () => Promise<MatrixTarget>): void {
  describe('authorization: a user of organization A against every resource of organization B', () => {
    let l: MatrixTarget;
    let a: World;
    let b: World;
    beforeAll(async () => {
      l = await start();
      a = await buildWorld(l, 'authz-a');
      b = await buildWorld(l, 'authz-b');
    });
    afterAll(() => l.stop());

    const as = (token: string) => ({
      get: (path: string) => l.http.get(path).set(bearer(token)),
      post: (path: string, body?: object) => {
        const req = l.http.post(path).set(bearer(token));
        return body === undefined ? req : req.send(body);
      },
      del: (path: string) => l.http.delete(path).set(bearer(token)),
      patch: (path: string, body: object) => l.http.patch(path).set(bearer(token)).send(body),
      upload: (tenantId: string) => l.http.post(`/ai/docs?TenantId=${encodeURIComponent(tenantId)}`).set(bearer(token))
        .attach('file', Buffer.from('an intruder writes here\n'), { filename: 'intruder.txt', contentType: 'text/plain' }),
    });

    /**
     * [label, status, code, the request against B's resource, the same request against one that does not exist].
     * Every JWT endpoint that can name a resource of another organization.
     */
    type Row = [string, number, string, () => Test, () => Test];
    const missingUuid = randomUUID();
    const rows = (): Row[] => {
      // Resolved when a request is made: the table is built before beforeAll has run.
      const A = {
        get: (p: string) => as(a.token).get(p), post: (p: string, body?: object) => as(a.token).post(p, body), del: (p: string) => as(a.token).del(p),
        patch: (p: string, body: object) => as(a.token).patch(p, body), upload: (id: string) => as(a.token).upload(id),
      };
      return [
        ['GET /logs/project?id=B', 404, 'not_found', () => A.get(`/logs/project?id=${b.projectId}`), () => A.get('/logs/project?id=999999')],
        ['GET /logs/project?id=B with filters', 404, 'not_found',
          () => A.get(`/logs/project?id=${b.projectId}&traceId=${b.traceId}&limit=10`), () => A.get(`/logs/project?id=999999&traceId=${b.traceId}&limit=10`)],
        ['GET /ingest/logs?projectId=B', 404, 'not_found', () => A.get(`/ingest/logs?projectId=${b.projectId}`), () => A.get('/ingest/logs?projectId=999999')],
        ['GET /metrics?projectId=B', 404, 'not_found', () => A.get(`/metrics?projectId=${b.projectId}`), () => A.get('/metrics?projectId=999999')],
        ['GET /projects?organizationId=B', 404, 'not_found', () => A.get(`/projects?organizationId=${b.organizationId}`), () => A.get('/projects?organizationId=999999')],
        ['POST /projects {organizationId: B}', 403, 'forbidden',
          () => A.post('/projects', { name: 'intruder project', organizationId: b.organizationId }), () => A.post('/projects', { name: 'intruder project', organizationId: 999999 })],
        ['GET /applications?projectId=B', 404, 'not_found', () => A.get(`/applications?projectId=${b.projectId}`), () => A.get('/applications?projectId=999999')],
        ['POST /applications {projectId: B}', 403, 'forbidden',
          () => A.post('/applications', { name: 'intruder app', projectId: b.projectId }), () => A.post('/applications', { name: 'intruder app', projectId: 999999 })],
        ['GET /applications/{B app}/api-keys', 404, 'not_found', () => A.get(`/applications/${b.applicationId}/api-keys`), () => A.get('/applications/999999/api-keys')],
        ['POST /applications/{B app}/api-keys', 404, 'not_found',
          () => A.post(`/applications/${b.applicationId}/api-keys`, { name: 'intruder key' }), () => A.post('/applications/999999/api-keys', { name: 'intruder key' })],
        ['POST /applications/{B app}/api-keys without a body', 404, 'not_found',
          () => A.post(`/applications/${b.applicationId}/api-keys`), () => A.post('/applications/999999/api-keys')],
        ['DELETE /api-keys/{B key}', 404, 'not_found', () => A.del(`/api-keys/${b.apiKeyId}`), () => A.del(`/api-keys/${missingUuid}`)],
        ['POST /organizations/{B}/members (adding oneself)', 404, 'not_found',
          () => A.post(`/organizations/${b.organizationId}/members`, { email: a.email, role: 'owner' }), () => A.post('/organizations/999999/members', { email: a.email, role: 'owner' })],
        ['GET /organizations/{B}/members', 404, 'not_found', () => A.get(`/organizations/${b.organizationId}/members`), () => A.get('/organizations/999999/members')],
        ['PATCH /organizations/{B}/members/{B owner}', 404, 'not_found',
          () => A.patch(`/organizations/${b.organizationId}/members/${b.userId}`, { role: 'member' }), () => A.patch(`/organizations/999999/members/${b.userId}`, { role: 'member' })],
        ['DELETE /organizations/{B}/members/{B owner}', 404, 'not_found',
          () => A.del(`/organizations/${b.organizationId}/members/${b.userId}`), () => A.del(`/organizations/999999/members/${b.userId}`)],
        ['POST /ai/tenant {organizationId: B}', 403, 'forbidden',
          () => A.post('/ai/tenant', { name: 'intruder tenant', organizationId: b.organizationId }), () => A.post('/ai/tenant', { name: 'intruder tenant', organizationId: 999999 })],
        ['POST /ai/tenant {organizationId: B} with B\'s tenant name', 403, 'forbidden',
          () => A.post('/ai/tenant', { name: b.tenantName, organizationId: b.organizationId }), () => A.post('/ai/tenant', { name: b.tenantName, organizationId: 999999 })],
        ['GET /ai/tenant?organizationId=B', 404, 'not_found', () => A.get(`/ai/tenant?organizationId=${b.organizationId}`), () => A.get('/ai/tenant?organizationId=999999')],
        ['POST /ai/docs?TenantId={B tenant}', 404, 'not_found', () => A.upload(b.tenantId), () => A.upload(missingUuid)],
        ['GET /ai/docs?TenantId={B tenant}', 404, 'not_found', () => A.get(`/ai/docs?TenantId=${b.tenantId}`), () => A.get(`/ai/docs?TenantId=${missingUuid}`)],
        ['DELETE /ai/docs/{B doc}', 404, 'not_found', () => A.del(`/ai/docs/${b.docId}`), () => A.del(`/ai/docs/${missingUuid}`)],
        ['GET /ai/docs/{B doc}', 404, 'not_found', () => A.get(`/ai/docs/${b.docId}`), () => A.get(`/ai/docs/${missingUuid}`)],
        ['POST /ai/docs/{B doc}/reprocess', 404, 'not_found', () => A.post(`/ai/docs/${b.docId}/reprocess`), () => A.post(`/ai/docs/${missingUuid}/reprocess`)],
        ['POST /ai/search?TenantId={B tenant}', 404, 'not_found',
          () => A.post(`/ai/search?TenantId=${b.tenantId}`, { query: 'intruder' }), () => A.post(`/ai/search?TenantId=${missingUuid}`, { query: 'intruder' })],
      ];
    };

    it('the requests of the matrix succeed for B itself (so their refusal to A is about A)', async () => {
      const B = as(b.token);
      await B.get(`/logs/project?id=${b.projectId}`).expect(200);
      await B.get(`/ingest/logs?projectId=${b.projectId}`).expect(200);
      await B.get(`/metrics?projectId=${b.projectId}`).expect(200);
      await B.get(`/projects?organizationId=${b.organizationId}`).expect(200);
      await B.get(`/applications?projectId=${b.projectId}`).expect(200);
      await B.get(`/applications/${b.applicationId}/api-keys`).expect(200);
      await B.get(`/ai/tenant?organizationId=${b.organizationId}`).expect(200);
      await B.get(`/ai/docs?TenantId=${b.tenantId}`).expect(200);
      await B.get(`/ai/docs/${b.docId}`).expect(200);
      await B.post(`/ai/search?TenantId=${b.tenantId}`, { query: 'intruder' }).expect(200);
      await B.get(`/organizations/${b.organizationId}/members`).expect(200);
    });

    it.each(rows().map((r) => [r[0], r[1], r[2]] as const))('%s answers %i %s to A and shows nothing of B', async (label, status, code) => {
      const row = rows().find((r) => r[0] === label)!;
      const foreign = await row[3]();
      expectError(foreign, status, code);
      expectNoLeak(foreign, b);
    });

    it.each(rows().map((r) => [r[0]] as const))('%s: the answer for B\'s resource equals the answer for one that does not exist', async (label) => {
      const row = rows().find((r) => r[0] === label)!;
      const foreign = await row[3]();
      const missing = await row[4]();
      expect({ status: foreign.status, body: foreign.body }).toEqual({ status: missing.status, body: missing.body });
    });

    it('GET /ingest/logs returns only A\'s logs', async () => {
      const res = await getAs(l, a.token, '/ingest/logs').expect(200);
      const entries = res.body as LogEntry[];
      expect(entries.map((e) => e.message)).toEqual([a.logMessage]);
      expect(entries.every((e) => e.projectId === a.projectId && e.applicationId === a.applicationId)).toBe(true);
      expectNoLeak(res, b);
    });

    it.each<[string, (b: World) => Record<string, string | number>]>([
      ['applicationId of B', (x) => ({ applicationId: x.applicationId })],
      ['traceId of B', (x) => ({ traceId: x.traceId })],
      ['a window covering B\'s logs', () => window],
    ])('GET /ingest/logs narrowed by %s shows none of B\'s logs', async (_label, query) => {
      const res = await getAs(l, a.token, '/ingest/logs', query(b)).expect(200);
      expect((res.body as LogEntry[]).filter((e) => e.projectId !== a.projectId)).toEqual([]);
      expectNoLeak(res, b);
    });

    it('GET /logs/project?id=A narrowed by B\'s applicationId or traceId is empty', async () => {
      for (const query of [{ applicationId: b.applicationId }, { traceId: b.traceId }] as Array<Record<string, string | number>>) {
        const res = await getAs(l, a.token, '/logs/project', { id: a.projectId, ...query }).expect(200);
        expect(res.body).toEqual([]);
      }
    });

    it('GET /metrics without projectId shows A\'s application and none of B\'s; with B\'s applicationId, nothing', async () => {
      const all = await getAs(l, a.token, '/metrics', window).expect(200);
      const apps = all.body.applications as Array<{ applicationId: number; projectId: number }>;
      expect(apps.map((x) => [x.applicationId, x.projectId])).toEqual([[a.applicationId, a.projectId]]);
      const narrowed = await getAs(l, a.token, '/metrics', { ...window, applicationId: b.applicationId }).expect(200);
      expect(narrowed.body.applications).toEqual([]);
      // B does see its own application in the same window: the filter above is not empty by accident.
      const own = await getAs(l, b.token, '/metrics', window).expect(200);
      expect(own.body.applications.map((x: { applicationId: number }) => x.applicationId)).toEqual([b.applicationId]);
    });

    it('GET /organizations and GET /auth/me list none of B\'s organizations', async () => {
      for (const path of ['/organizations', '/auth/me']) {
        const res = await as(a.token).get(path).expect(200);
        expectNoLeak(res, b);
      }
    });

    describe('after every refused request, B is unchanged', () => {
      beforeAll(async () => {
        for (const row of rows()) await row[3]();
      });

      it('B\'s projects, applications, API keys, members, tenants and documents are as before', async () => {
        const B = as(b.token);
        const projects = await B.get(`/projects?organizationId=${b.organizationId}`).expect(200);
        expect(projects.body).toEqual([{ id: b.projectId, name: b.projectName, organizationId: b.organizationId }]);
        const apps = await B.get(`/applications?projectId=${b.projectId}`).expect(200);
        expect(apps.body).toEqual([{ id: b.applicationId, name: b.applicationName, projectId: b.projectId }]);
        const keys = await B.get(`/applications/${b.applicationId}/api-keys`).expect(200);
        expect(keys.body.map((k: { id: string; revokedAt?: string | null }) => [k.id, k.revokedAt ?? null])).toEqual([[b.apiKeyId, null]]);
        const tenants = await B.get(`/ai/tenant?organizationId=${b.organizationId}`).expect(200);
        expect(tenants.body).toEqual([{ id: b.tenantId, name: b.tenantName, organizationId: b.organizationId }]);
        const docs = await B.get(`/ai/docs?TenantId=${b.tenantId}`).expect(200);
        expect(docs.body.map((d: { id: string }) => d.id)).toEqual([b.docId]);
        // A did not become a member of B.
        const orgs = await as(a.token).get('/organizations').expect(200);
        expect(orgs.body.map((o: { id: number }) => o.id)).toEqual([a.organizationId]);
      });

      it('B\'s document object is still in object storage', async () => {
        expect(await l.documentStored(b.tenantId, b.docId)).toBe(true);
      });

      it('B\'s API key still ingests into B\'s project', async () => {
        const s = span();
        await sendTraces(l, b.apiKey, traceBatch([s])).expect(200, { accepted: 1, rejected: [] });
        await l.settle(async () => {
          expect((await traces(l, b, { traceId: s['traceId'] as string })).map((r) => r.projectId)).toEqual([b.projectId]);
        });
      });
    });
  });

  describe('authorization: an API key ingests into its own application and project only', () => {
    let l: MatrixTarget;
    let a: Tenancy;
    let b: Tenancy;
    beforeAll(async () => {
      l = await start();
      a = await createTenancy(l, 'key-a');
      b = await createTenancy(l, 'key-b');
    });
    afterAll(() => l.stop());

    it('spans carrying A\'s projectId and applicationId (in the items and in the envelope) are stored under B', async () => {
      const s = span({ projectId: a.projectId, applicationId: a.applicationId });
      const body = { ...traceBatch([s]), projectId: a.projectId, applicationId: a.applicationId };
      await sendTraces(l, b.apiKey, body).expect(200, { accepted: 1, rejected: [] });
      await l.settle(async () => {
        const mine = await traces(l, b);
        expect(mine.map((r) => [r.traceId, r.projectId, r.applicationId])).toEqual([[s['traceId'], b.projectId, b.applicationId]]);
      });
      expect(await traces(l, a)).toEqual([]);
    });

    it('logs carrying A\'s projectId, applicationId and an id of their choice are stored under B with an id of the service', async () => {
      const chosenId = randomUUID();
      const entry = log({ message: 'smuggled', projectId: a.projectId, applicationId: a.applicationId, id: chosenId });
      const body = { ...logBatch([entry]), projectId: a.projectId, applicationId: a.applicationId };
      await sendLogs(l, b.apiKey, body).expect(200, { accepted: 1, rejected: [] });
      await l.settle(async () => {
        const mine = await logs(l, b);
        expect(mine.map((e) => [e.message, e.projectId, e.applicationId])).toEqual([['smuggled', b.projectId, b.applicationId]]);
        expect(mine[0]!.id).not.toBe(chosenId);
      });
      expect(await logs(l, a)).toEqual([]);
    });

    it('a key of B cannot read: the JWT endpoints answer 401 to it', async () => {
      for (const path of [`/logs/project?id=${b.projectId}`, '/ingest/logs', '/metrics', `/ai/tenant?organizationId=${b.organizationId}`]) {
        expectError(await l.http.get(path).set('x-api-key', b.apiKey), 401, 'unauthorized');
      }
    });
  });
}
