import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response, Test } from 'supertest';
import { addMember, expectError, register } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

type Role = 'member' | 'admin' | 'owner';
const ROLES: Role[] = ['member', 'admin', 'owner'];

/**
 * The role matrix of docs/api.md ("Roles"), route by route over HTTP: for each route, what a member, an admin
 * and an owner of the organization get. A refusal changes nothing (checked where the route writes).
 */
describe('roles: every JWT route for a member, an admin and an owner of the organization', () => {
  let l: Lantern;
  let org: Tenancy;
  const tokens = {} as Record<Role, string>;
  let tenantId: string;

  beforeAll(async () => {
    l = await startLantern();
    org = await createTenancy(l, 'roles');
    tokens.owner = org.token;
    for (const role of ['member', 'admin'] as const) {
      const u = await register(l, role);
      await addMember(l, org.token, org.organizationId, u, role);
      tokens[role] = u.token;
    }
    tenantId = (await l.http.post('/ai/tenant').set(bearer(org.token)).send({ name: 'roles tenant', organizationId: org.organizationId }).expect(200)).body.id;
  });
  afterAll(() => l.stop());

  const as = (role: Role) => ({
    get: (p: string) => l.http.get(p).set(bearer(tokens[role])),
    post: (p: string, body?: object) => (body === undefined ? l.http.post(p).set(bearer(tokens[role])) : l.http.post(p).set(bearer(tokens[role])).send(body)),
    patch: (p: string, body: object) => l.http.patch(p).set(bearer(tokens[role])).send(body),
    del: (p: string) => l.http.delete(p).set(bearer(tokens[role])),
  });
  /** A fresh API key (made by the owner), so that every revocation has one to revoke. */
  const freshKey = async () => (await l.http.post(`/applications/${org.applicationId}/api-keys`).set(bearer(org.token)).expect(201)).body.id as string;
  /** A fresh plain member, so that every role change and removal has someone to act on. */
  const freshMember = async () => {
    const u = await register(l, 'target');
    await addMember(l, org.token, org.organizationId, u, 'member');
    return u.user.id;
  };
  const upload = (role: Role) => l.http.post(`/ai/docs?TenantId=${encodeURIComponent(tenantId)}`).set(bearer(tokens[role]))
    .attach('file', Buffer.from(`notes ${randomUUID()}\n`), { filename: 'n.txt', contentType: 'text/plain' });
  const freshDoc = async () => (await upload('owner').expect(200)).body.id as string;

  type Expect = [number, string?];
  const ok = (status: number): Expect => [status];
  const forbidden: Expect = [403, 'forbidden'];
  const rows: Array<[string, (r: Role) => Promise<Response> | Test, Record<Role, Expect>]> = [
    // Reads: every member.
    ['GET /auth/me', (r) => as(r).get('/auth/me'), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /organizations', (r) => as(r).get('/organizations'), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /organizations/{id}/members', (r) => as(r).get(`/organizations/${org.organizationId}/members`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /projects', (r) => as(r).get(`/projects?organizationId=${org.organizationId}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /applications', (r) => as(r).get(`/applications?projectId=${org.projectId}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /logs/project', (r) => as(r).get(`/logs/project?id=${org.projectId}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /ingest/logs', (r) => as(r).get('/ingest/logs'), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /metrics', (r) => as(r).get(`/metrics?projectId=${org.projectId}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /ai/tenant', (r) => as(r).get(`/ai/tenant?organizationId=${org.organizationId}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['GET /ai/docs', (r) => as(r).get(`/ai/docs?TenantId=${encodeURIComponent(tenantId)}`), { member: ok(200), admin: ok(200), owner: ok(200) }],
    // Documents are the members' working content: they upload and delete them.
    ['POST /ai/docs', (r) => upload(r), { member: ok(200), admin: ok(200), owner: ok(200) }],
    ['DELETE /ai/docs/{docId}', async (r) => as(r).del(`/ai/docs/${await freshDoc()}`), { member: ok(204), admin: ok(204), owner: ok(204) }],
    // Admins and owners manage projects, applications and keys.
    ['POST /projects', (r) => as(r).post('/projects', { name: `p ${r}`, organizationId: org.organizationId }), { member: forbidden, admin: ok(201), owner: ok(201) }],
    ['POST /applications', (r) => as(r).post('/applications', { name: `a ${r}`, projectId: org.projectId }), { member: forbidden, admin: ok(201), owner: ok(201) }],
    ['POST /applications/{id}/api-keys', (r) => as(r).post(`/applications/${org.applicationId}/api-keys`, { name: r }), { member: forbidden, admin: ok(201), owner: ok(201) }],
    ['GET /applications/{id}/api-keys', (r) => as(r).get(`/applications/${org.applicationId}/api-keys`), { member: forbidden, admin: ok(200), owner: ok(200) }],
    // A member sees no key at all: an unknown key, as for anyone who cannot see it.
    ['DELETE /api-keys/{id}', async (r) => as(r).del(`/api-keys/${await freshKey()}`), { member: [404, 'not_found'], admin: ok(204), owner: ok(204) }],
    // contract.md: any member of the organization creates tenants.
    ['POST /ai/tenant', (r) => as(r).post('/ai/tenant', { name: `t ${r} ${randomUUID()}`, organizationId: org.organizationId }), { member: ok(200), admin: ok(200), owner: ok(200) }],
    // Owners manage members.
    ['POST /organizations/{id}/members', (r) => as(r).post(`/organizations/${org.organizationId}/members`, { email: `x-${randomUUID().slice(0, 8)}@example.com` }),
      { member: forbidden, admin: forbidden, owner: ok(201) }],
    ['PATCH /organizations/{id}/members/{userId}', async (r) => as(r).patch(`/organizations/${org.organizationId}/members/${await freshMember()}`, { role: 'admin' }),
      { member: forbidden, admin: forbidden, owner: ok(200) }],
    ['DELETE /organizations/{id}/members/{userId}', async (r) => as(r).del(`/organizations/${org.organizationId}/members/${await freshMember()}`),
      { member: forbidden, admin: forbidden, owner: ok(204) }],
  ];

  it.each(rows.flatMap(([label, send, expected]) => ROLES.map((role) => [label, role, send, expected[role]] as const)))(
    '%s as %s', async (_label, role, send, [status, code]) => {
      const res = await send(role);
      if (code) expectError(res, status, code);
      else expect({ status: res.status, body: res.status === status ? 'ok' : res.body }).toEqual({ status, body: 'ok' });
    });

  it('changes nothing when a member is refused: no project, application or key appears, no key is revoked', async () => {
    const count = async (p: string) => ((await l.http.get(p).set(bearer(org.token)).expect(200)).body as unknown[]).length;
    const before = await Promise.all([`/projects?organizationId=${org.organizationId}`, `/applications?projectId=${org.projectId}`,
      `/applications/${org.applicationId}/api-keys`].map(count));
    const key = await freshKey();
    await as('member').post('/projects', { name: 'no', organizationId: org.organizationId }).expect(403);
    await as('member').post('/applications', { name: 'no', projectId: org.projectId }).expect(403);
    await as('member').post(`/applications/${org.applicationId}/api-keys`, { name: 'no' }).expect(403);
    await as('member').del(`/api-keys/${key}`).expect(404);
    const after = await Promise.all([`/projects?organizationId=${org.organizationId}`, `/applications?projectId=${org.projectId}`,
      `/applications/${org.applicationId}/api-keys`].map(count));
    expect(after).toEqual([before[0], before[1], before[2]! + 1]);
    const keys = (await l.http.get(`/applications/${org.applicationId}/api-keys`).set(bearer(org.token)).expect(200)).body as Array<{ id: string; revokedAt: string | null }>;
    expect(keys.find((k) => k.id === key)?.revokedAt).toBeNull();
  });
});
