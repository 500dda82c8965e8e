import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ISO_MS, expectError, register, type Registered } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

describe('accounts: organizations and members', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'orga');
    b = await createTenancy(l, 'orgb');
  });
  afterAll(() => l.stop());

  const post = (token: string, path: string, body: object) => l.http.post(path).set(bearer(token)).send(body);
  const addMember = (token: string, orgId: number | string, body: object) => post(token, `/organizations/${orgId}/members`, body);
  /** Accepts every pending invitation of the user. */
  const acceptAll = async (user: { token: string }) => {
    for (const i of (await l.http.get('/invitations').set(bearer(user.token)).expect(200)).body as Array<{ id: string }>) {
      await l.http.post(`/invitations/${i.id}/accept`).set(bearer(user.token)).expect(200);
    }
  };

  describe('POST /organizations and GET /organizations', () => {
    it('answers 201 {id, name} with a positive integer id and the name trimmed; the creator is owner', async () => {
      const res = await post(a.token, '/organizations', { name: '  Acme  ' }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['id', 'name']);
      expect(res.body.name).toBe('Acme');
      expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);
      const list = await l.http.get('/organizations').set(bearer(a.token)).expect(200);
      expect(list.body).toContainEqual({ id: res.body.id, name: 'Acme', role: 'owner' });
    });

    it('lists only the caller\'s organizations, each as {id, name, role}', async () => {
      const list = await l.http.get('/organizations').set(bearer(b.token)).expect(200);
      expect(list.body).toEqual([{ id: b.organizationId, name: 'org orgb', role: 'owner' }]);
    });

    it.each([
      ['name missing', {}],
      ['name of the wrong type', { name: 42 }],
      ['an empty name', { name: '' }],
      ['a blank name', { name: ' \t ' }],
      ['a name over 200 characters', { name: 'o'.repeat(201) }],
      ['a name with a newline', { name: 'two\nlines' }],
      ['an unknown extra field', { name: 'x', plan: 'enterprise' }],
      ['an operator object as the name', { name: { $gt: '' } }],
    ])('answers 400 validation_failed for %s and creates nothing', async (_label, body) => {
      const before = (await l.http.get('/organizations').set(bearer(b.token)).expect(200)).body.length;
      expectError(await post(b.token, '/organizations', body), 400, 'validation_failed');
      expect((await l.http.get('/organizations').set(bearer(b.token)).expect(200)).body).toHaveLength(before);
    });

    it('answers 400 validation_failed for a C1 control character in a name (U+0085, U+009B), like the C0 ones', async () => {
      for (const name of ['next\u0085line', 'red\u009b31m']) {
        const res = await post(b.token, '/organizations', { name });
        expect(`${JSON.stringify(name)} ${res.status}`).toBe(`${JSON.stringify(name)} 400`);
        expectError(res, 400, 'validation_failed');
      }
    });
  });

  describe('POST /organizations/{id}/members (an invitation: accounts-invitations.test.ts has the whole flow)', () => {
    let member: Registered;
    let admin: Registered;
    let later: Registered;
    beforeAll(async () => {
      member = await register(l, 'member');
      admin = await register(l, 'admin');
      later = await register(l, 'later');
    });

    it('lets the owner invite a registered user, as member by default: 201, and the membership waits for their consent', async () => {
      const res = await addMember(a.token, a.organizationId, { email: member.email.toUpperCase() }).expect(201);
      expect(res.body).toEqual({ organizationId: a.organizationId, email: member.email.toLowerCase(), role: 'member', expiresAt: expect.stringMatching(ISO_MS) });
      expect(res.text).not.toMatch(/password|hash/i);
      expect(res.text).not.toContain(member.user.id);
      expect((await l.http.get('/auth/me').set(bearer(member.token)).expect(200)).body.organizations).toEqual([]);
      await acceptAll(member);
      const me = await l.http.get('/auth/me').set(bearer(member.token)).expect(200);
      expect(me.body.organizations).toEqual([{ id: a.organizationId, name: 'org orga', role: 'member' }]);
      const projects = await l.http.get(`/projects?organizationId=${a.organizationId}`).set(bearer(member.token)).expect(200);
      expect(projects.body.map((p: { id: number }) => p.id)).toContain(a.projectId);
    });

    it('takes an explicit role, given on acceptance', async () => {
      const res = await addMember(a.token, a.organizationId, { email: admin.email, role: 'admin' }).expect(201);
      expect(res.body.role).toBe('admin');
      await acceptAll(admin);
      const orgs = await l.http.get('/organizations').set(bearer(admin.token)).expect(200);
      expect(orgs.body).toEqual([{ id: a.organizationId, name: 'org orga', role: 'admin' }]);
    });

    it('answers 403 forbidden to a member or admin who is not an owner, and invites nobody', async () => {
      expectError(await addMember(member.token, a.organizationId, { email: later.email }), 403, 'forbidden');
      expectError(await addMember(admin.token, a.organizationId, { email: later.email }), 403, 'forbidden');
      expectError(await addMember(member.token, a.organizationId, { email: member.email, role: 'owner' }), 403, 'forbidden');
      expect((await l.http.get('/invitations').set(bearer(later.token)).expect(200)).body).toEqual([]);
      expect((await l.http.get('/organizations').set(bearer(later.token)).expect(200)).body).toEqual([]);
    });

    it('answers 404 for an organization the caller is not in, one that does not exist, and a non-integer id', async () => {
      expectError(await addMember(b.token, a.organizationId, { email: b.email }), 404, 'not_found');
      expectError(await addMember(a.token, 999999, { email: later.email }), 404, 'not_found');
      for (const id of ['abc', '0', '-1', '1.5', '1e3']) expectError(await addMember(a.token, id, { email: later.email }), 404, 'not_found');
      expect((await l.http.get('/invitations').set(bearer(b.token)).expect(200)).body).toEqual([]);
      expect((await l.http.get('/organizations').set(bearer(b.token)).expect(200)).body.map((o: { id: number }) => o.id)).not.toContain(a.organizationId);
    });

    it.each([
      ['email missing', {}],
      ['a malformed email', { email: 'nope' }],
      ['an unknown role', { email: 'x@example.com', role: 'superuser' }],
      ['an unknown extra field', { email: 'x@example.com', admin: true }],
      ['an operator object as the email', { email: { $gt: '' } }],
    ])('answers 400 validation_failed for %s', async (_label, body) => {
      expectError(await addMember(a.token, a.organizationId, body), 400, 'validation_failed');
    });

    it('never changes the role of an existing member: the only owner inviting themselves as member stays owner', async () => {
      const solo = await createTenancy(l, 'solo');
      await addMember(solo.token, solo.organizationId, { email: solo.email, role: 'member' }).expect(201);
      await acceptAll({ token: solo.token });
      const orgs = await l.http.get('/organizations').set(bearer(solo.token)).expect(200);
      expect(orgs.body).toEqual([{ id: solo.organizationId, name: 'org solo', role: 'owner' }]);
    });
  });
});

describe('accounts: projects and applications', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'pa');
    b = await createTenancy(l, 'pb');
  });
  afterAll(() => l.stop());

  const post = (token: string, path: string, body: object) => l.http.post(path).set(bearer(token)).send(body);
  const get = (token: string, path: string) => l.http.get(path).set(bearer(token));

  it('POST /projects answers 201 {id, name, organizationId} and GET /projects lists it', async () => {
    const res = await post(a.token, '/projects', { name: ' Shop ', organizationId: a.organizationId }).expect(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'name', 'organizationId']);
    expect(res.body).toMatchObject({ name: 'Shop', organizationId: a.organizationId });
    expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);
    const list = await get(a.token, `/projects?organizationId=${a.organizationId}`).expect(200);
    expect(list.body).toEqual([
      { id: a.projectId, name: 'project pa', organizationId: a.organizationId },
      { id: res.body.id, name: 'Shop', organizationId: a.organizationId },
    ]);
  });

  it('POST /projects answers 403 for an organization the caller is not in, or one that does not exist', async () => {
    expectError(await post(b.token, '/projects', { name: 'intruder', organizationId: a.organizationId }), 403, 'forbidden');
    expectError(await post(b.token, '/projects', { name: 'nowhere', organizationId: 999999 }), 403, 'forbidden');
    const names = (await get(a.token, `/projects?organizationId=${a.organizationId}`).expect(200)).body.map((p: { name: string }) => p.name);
    expect(names).not.toContain('intruder');
  });

  it.each([
    ['name missing', { organizationId: 1 }],
    ['organizationId missing', { name: 'p' }],
    ['organizationId as text', { name: 'p', organizationId: '1' }],
    ['organizationId zero', { name: 'p', organizationId: 0 }],
    ['organizationId fractional', { name: 'p', organizationId: 1.5 }],
    ['a name over 200 characters', { name: 'p'.repeat(201), organizationId: 1 }],
    ['an unknown extra field', { name: 'p', organizationId: 1, public: true }],
    ['an operator object as organizationId', { name: 'p', organizationId: { $gt: 0 } }],
  ])('POST /projects answers 400 validation_failed for %s', async (_label, body) => {
    expectError(await post(a.token, '/projects', body), 400, 'validation_failed');
  });

  it('GET /projects answers 400 missing_parameter without organizationId, 400 for a bad one, 404 for another org', async () => {
    expectError(await get(a.token, '/projects'), 400, 'missing_parameter');
    expectError(await get(a.token, '/projects?organizationId='), 400, 'missing_parameter');
    expectError(await get(a.token, '/projects?organizationId=abc'), 400, 'validation_failed');
    expectError(await get(a.token, `/projects?organizationId=${a.organizationId}&organizationId=${b.organizationId}`), 400, 'validation_failed');
    expectError(await get(b.token, `/projects?organizationId=${a.organizationId}`), 404, 'not_found');
    expectError(await get(b.token, '/projects?organizationId=999999'), 404, 'not_found');
  });

  it('POST /applications answers 201 {id, name, projectId} and GET /applications lists it', async () => {
    const res = await post(a.token, '/applications', { name: 'checkout', projectId: a.projectId }).expect(201);
    expect(Object.keys(res.body).sort()).toEqual(['id', 'name', 'projectId']);
    expect(res.body).toMatchObject({ name: 'checkout', projectId: a.projectId });
    expect(Number.isInteger(res.body.id) && res.body.id > 0).toBe(true);
    const list = await get(a.token, `/applications?projectId=${a.projectId}`).expect(200);
    expect(list.body).toEqual([
      { id: a.applicationId, name: 'app pa', projectId: a.projectId },
      { id: res.body.id, name: 'checkout', projectId: a.projectId },
    ]);
  });

  it('POST /applications answers 403 for a project of another organization, or one that does not exist', async () => {
    expectError(await post(b.token, '/applications', { name: 'intruder', projectId: a.projectId }), 403, 'forbidden');
    expectError(await post(b.token, '/applications', { name: 'nowhere', projectId: 999999 }), 403, 'forbidden');
    const names = (await get(a.token, `/applications?projectId=${a.projectId}`).expect(200)).body.map((x: { name: string }) => x.name);
    expect(names).not.toContain('intruder');
  });

  it.each([
    ['name missing', { projectId: 1 }],
    ['projectId missing', { name: 'app' }],
    ['projectId as text', { name: 'app', projectId: '1' }],
    ['projectId negative', { name: 'app', projectId: -1 }],
    ['a name over 200 characters', { name: 'a'.repeat(201), projectId: 1 }],
    ['an unknown extra field', { name: 'app', projectId: 1, env: 'prod' }],
  ])('POST /applications answers 400 validation_failed for %s', async (_label, body) => {
    expectError(await post(a.token, '/applications', body), 400, 'validation_failed');
  });

  it('GET /applications answers 400 missing_parameter without projectId, 400 for a bad one, 404 for another org', async () => {
    expectError(await get(a.token, '/applications'), 400, 'missing_parameter');
    expectError(await get(a.token, '/applications?projectId=1.5'), 400, 'validation_failed');
    expectError(await get(b.token, `/applications?projectId=${a.projectId}`), 404, 'not_found');
    expectError(await get(b.token, '/applications?projectId=999999'), 404, 'not_found');
  });
});
