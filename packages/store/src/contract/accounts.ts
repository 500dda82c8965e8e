import { describe, expect, it } from '@jest/globals';
import { AppError, newId } from '@lantern/domain';
import { ISO, UUID, makeUser, makeWorld, sleep } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

export function accountsContract(ctx: StoreContext): void {
  describe('users', () => {
    it('creates a user with a UUID id, keeps the email as given and finds the user by id', async () => {
      const user = await ctx.store.createUser({ email: 'Ada.Lovelace@Example.test', name: 'Ada', passwordHash: 'scrypt$1' });
      expect(user).toEqual({ id: expect.stringMatching(UUID), email: 'Ada.Lovelace@Example.test', name: 'Ada' });
      expect(await ctx.store.getUser(user.id)).toEqual(user);
      expect(await ctx.store.getUser(newId())).toBeNull();
    });

    it('hasUsers is false on an empty store and true once a user exists', async () => {
      expect(await ctx.store.hasUsers()).toBe(false);
      await makeUser(ctx.store);
      expect(await ctx.store.hasUsers()).toBe(true);
    });

    it('rejects an email already taken in another case with a 409 conflict and keeps the first account', async () => {
      const first = await ctx.store.createUser({ email: 'ada@example.test', name: 'First', passwordHash: 'h1' });
      const attempt = ctx.store.createUser({ email: 'ADA@Example.TEST', name: 'Second', passwordHash: 'h2' });
      await expect(attempt).rejects.toBeInstanceOf(AppError);
      await expect(attempt).rejects.toMatchObject({
        status: 409, code: 'conflict', message: 'An account with this email already exists.',
      });
      expect(await ctx.store.findUserByEmail('ada@example.test')).toEqual({ ...first, passwordHash: 'h1', tokenVersion: 0 });
    });

    it('finds a user by email in any case, with the password hash; null for an unknown email', async () => {
      const user = await ctx.store.createUser({ email: 'Grace@Example.test', name: 'Grace', passwordHash: 'scrypt$grace' });
      expect(await ctx.store.findUserByEmail('grace@example.TEST')).toEqual({ ...user, passwordHash: 'scrypt$grace', tokenVersion: 0 });
      expect(await ctx.store.findUserByEmail('nobody@example.test')).toBeNull();
    });
  });

  describe('organizations and memberships', () => {
    it('creates organizations with distinct positive integer ids and makes the creator the owner', async () => {
      const user = await makeUser(ctx.store);
      const a = await ctx.store.createOrganization({ name: 'Acme', ownerId: user.id });
      const b = await ctx.store.createOrganization({ name: 'Beta', ownerId: user.id });
      expect(a).toEqual({ id: expect.any(Number), name: 'Acme' });
      for (const org of [a, b]) expect(Number.isInteger(org.id) && org.id > 0).toBe(true);
      expect(a.id).not.toBe(b.id);
      expect(await ctx.store.getRole(a.id, user.id)).toBe('owner');
    });

    it('lists the memberships of a user ordered by organization id, with names and roles', async () => {
      const ada = await makeUser(ctx.store, 'ada');
      const bob = await makeUser(ctx.store, 'bob');
      const loner = await makeUser(ctx.store, 'loner');
      const a = await ctx.store.createOrganization({ name: 'A', ownerId: ada.id });
      const c = await ctx.store.createOrganization({ name: 'C', ownerId: bob.id });
      const b = await ctx.store.createOrganization({ name: 'B', ownerId: ada.id });
      await ctx.store.addMember(c.id, ada.id, 'member');
      const expected = [
        { id: a.id, name: 'A', role: 'owner' },
        { id: c.id, name: 'C', role: 'member' },
        { id: b.id, name: 'B', role: 'owner' },
      ].sort((x, y) => x.id - y.id);
      expect(await ctx.store.listMemberships(ada.id)).toEqual(expected);
      expect(await ctx.store.listMemberships(bob.id)).toEqual([{ id: c.id, name: 'C', role: 'owner' }]);
      expect(await ctx.store.listMemberships(loner.id)).toEqual([]);
    });

    it('getRole returns the member role, and null for a user who is not a member', async () => {
      const { org } = await makeWorld(ctx.store);
      const member = await makeUser(ctx.store, 'member');
      const stranger = await makeUser(ctx.store, 'stranger');
      await ctx.store.addMember(org.id, member.id, 'member');
      expect(await ctx.store.getRole(org.id, member.id)).toBe('member');
      expect(await ctx.store.getRole(org.id, stranger.id)).toBeNull();
    });

    it('addMember on an existing member changes the role instead of adding a second membership', async () => {
      const { org } = await makeWorld(ctx.store);
      const member = await makeUser(ctx.store, 'member');
      await ctx.store.addMember(org.id, member.id, 'member');
      await ctx.store.addMember(org.id, member.id, 'admin');
      expect(await ctx.store.getRole(org.id, member.id)).toBe('admin');
      expect(await ctx.store.listMemberships(member.id)).toEqual([{ id: org.id, name: org.name, role: 'admin' }]);
    });
  });

  describe('projects and applications', () => {
    it('creates projects with positive integer ids, gets them and lists those of an organization by id', async () => {
      const { user, org, project } = await makeWorld(ctx.store);
      const second = await ctx.store.createProject({ name: 'Second', organizationId: org.id });
      const other = await makeWorld(ctx.store, 'other');
      await ctx.store.addMember(other.org.id, user.id, 'member');
      expect(second).toEqual({ id: expect.any(Number), name: 'Second', organizationId: org.id });
      expect(Number.isInteger(second.id) && second.id > 0 && second.id !== project.id).toBe(true);
      expect(await ctx.store.getProject(second.id, user.id)).toEqual(second);
      expect(await ctx.store.listProjects(org.id, user.id)).toEqual([project, second].sort((x, y) => x.id - y.id));
      expect(await ctx.store.getProject(Math.max(project.id, second.id, other.project.id) + 1000, user.id)).toBeNull();
    });

    it('creates applications with positive integer ids, gets them and lists those of a project by id', async () => {
      const { user, org, project, app } = await makeWorld(ctx.store);
      const second = await ctx.store.createApplication({ name: 'Worker', projectId: project.id });
      const otherProject = await ctx.store.createProject({ name: 'Other', organizationId: org.id });
      const elsewhere = await ctx.store.createApplication({ name: 'Elsewhere', projectId: otherProject.id });
      expect(second).toEqual({ id: expect.any(Number), name: 'Worker', projectId: project.id });
      expect(Number.isInteger(second.id) && second.id > 0 && second.id !== app.id).toBe(true);
      expect(await ctx.store.getApplication(second.id, user.id)).toEqual(second);
      expect(await ctx.store.listApplications(project.id, user.id)).toEqual([app, second].sort((x, y) => x.id - y.id));
      expect(await ctx.store.listApplications(otherProject.id, user.id)).toEqual([elsewhere]);
      expect(await ctx.store.getApplication(Math.max(app.id, second.id, elsewhere.id) + 1000, user.id)).toBeNull();
    });
  });

  describe('references', () => {
    it('answers 404 for a parent that does not exist, and for an API key whose project is not its application\'s', async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createProject({ name: 'Other', organizationId: w.org.id });
      const missingOrg = w.org.id + 1000;
      const notFound = { status: 404, code: 'not_found' };
      await expect(ctx.store.createOrganization({ name: 'Nobody\'s', ownerId: newId() })).rejects.toMatchObject(notFound);
      await expect(ctx.store.addMember(missingOrg, w.user.id, 'member')).rejects.toMatchObject(notFound);
      await expect(ctx.store.addMember(w.org.id, newId(), 'member')).rejects.toMatchObject(notFound);
      await expect(ctx.store.createProject({ name: 'x', organizationId: missingOrg })).rejects.toMatchObject(notFound);
      await expect(ctx.store.createApplication({ name: 'x', projectId: other.id + 1000 })).rejects.toMatchObject(notFound);
      await expect(ctx.store.createApiKey({ applicationId: w.app.id, projectId: other.id, name: 'k', prefix: 'lk_abcdefg', hash: `hash-${newId()}` }))
        .rejects.toMatchObject(notFound);
      expect(await ctx.store.listMemberships(w.user.id)).toEqual([{ id: w.org.id, name: w.org.name, role: 'owner' }]);
      expect(await ctx.store.listProjects(w.org.id, w.user.id)).toEqual([w.project, other].sort((x, y) => x.id - y.id));
      expect(await ctx.store.listApplications(other.id, w.user.id)).toEqual([]);
      expect(await ctx.store.listApiKeys(w.app.id, w.user.id)).toEqual([]);
    });
  });

  describe('API keys', () => {
    const keyInput = (app: { id: number; projectId: number }, name = 'ci') =>
      ({ applicationId: app.id, projectId: app.projectId, name, prefix: `lk_${name}`.padEnd(10, 'x'), hash: `hash-${newId()}` });

    it('creates a key with a UUID id, createdAt now in ISO form and no revocation, never returning the hash', async () => {
      const { app } = await makeWorld(ctx.store);
      const input = keyInput(app);
      const before = Date.now();
      const key = await ctx.store.createApiKey(input);
      const after = Date.now();
      expect(key).toEqual({
        id: expect.stringMatching(UUID), applicationId: app.id, projectId: app.projectId, name: 'ci', prefix: input.prefix,
        createdAt: expect.stringMatching(ISO), revokedAt: null,
      });
      expect(key).not.toHaveProperty('hash');
      const created = Date.parse(key.createdAt);
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
    });

    it('lists the keys of an application oldest first and gets one by id', async () => {
      const { user, app, project } = await makeWorld(ctx.store);
      const first = await ctx.store.createApiKey(keyInput(app, 'first'));
      await sleep(3);
      const second = await ctx.store.createApiKey(keyInput(app, 'second'));
      const otherApp = await ctx.store.createApplication({ name: 'other', projectId: project.id });
      await ctx.store.createApiKey(keyInput(otherApp, 'other'));
      expect(await ctx.store.listApiKeys(app.id, user.id)).toEqual([first, second]);
      expect(await ctx.store.getApiKey(second.id, user.id)).toEqual(second);
      expect(await ctx.store.getApiKey(newId(), user.id)).toBeNull();
    });

    it('finds a key by its hash, and null for an unknown hash', async () => {
      const { app } = await makeWorld(ctx.store);
      const input = keyInput(app);
      const key = await ctx.store.createApiKey(input);
      expect(await ctx.store.findApiKeyByHash(input.hash)).toEqual(key);
      expect(await ctx.store.findApiKeyByHash('no-such-hash')).toBeNull();
    });

    it('revokes a key once: revokedAt is set everywhere and a second revocation keeps the first time', async () => {
      const { user, app } = await makeWorld(ctx.store);
      const input = keyInput(app);
      const key = await ctx.store.createApiKey(input);
      const before = Date.now();
      expect(await ctx.store.revokeApiKey(key.id)).toBe(true);
      const revoked = await ctx.store.findApiKeyByHash(input.hash);
      expect(revoked).toEqual({ ...key, revokedAt: expect.stringMatching(ISO) });
      expect(Date.parse(revoked!.revokedAt!)).toBeGreaterThanOrEqual(before);
      expect(await ctx.store.getApiKey(key.id, user.id)).toEqual(revoked);
      expect(await ctx.store.listApiKeys(app.id, user.id)).toEqual([revoked]);
      await sleep(5);
      expect(await ctx.store.revokeApiKey(key.id)).toBe(true);
      expect(await ctx.store.findApiKeyByHash(input.hash)).toEqual(revoked);
    });

    it('revokeApiKey returns false for an unknown key and revokes nothing', async () => {
      const { app } = await makeWorld(ctx.store);
      const input = keyInput(app);
      await ctx.store.createApiKey(input);
      expect(await ctx.store.revokeApiKey(newId())).toBe(false);
      expect((await ctx.store.findApiKeyByHash(input.hash))?.revokedAt).toBeNull();
    });
  });
}
