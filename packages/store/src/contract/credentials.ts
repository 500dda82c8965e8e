import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { makeUser, makeWorld } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

/** Token versions, password hashes, and the role each read of projects, applications and keys needs. */
export function credentialsContract(ctx: StoreContext): void {
  describe('token versions and password hashes', () => {
    it('starts a user at token version 0; revokeTokens raises it by one each time; null for an unknown user', async () => {
      const user = await makeUser(ctx.store);
      expect(await ctx.store.getTokenVersion(user.id)).toBe(0);
      expect(await ctx.store.revokeTokens(user.id)).toBe(1);
      expect(await ctx.store.revokeTokens(user.id)).toBe(2);
      expect(await ctx.store.getTokenVersion(user.id)).toBe(2);
      expect((await ctx.store.getStoredUser(user.id))?.tokenVersion).toBe(2);
      expect(await ctx.store.getTokenVersion(newId())).toBeNull();
      expect(await ctx.store.revokeTokens(newId())).toBeNull();
      expect(await ctx.store.getStoredUser(newId())).toBeNull();
    });

    it('setPasswordHash replaces the hash only if it is still the expected one, raising the version only when asked', async () => {
      const user = await ctx.store.createUser({ email: `p-${newId()}@example.test`, name: 'p', passwordHash: 'old' });
      expect(await ctx.store.setPasswordHash(user.id, 'old', 'rehashed', { revokeTokens: false })).toBe(0);
      expect(await ctx.store.getStoredUser(user.id)).toEqual({ ...user, passwordHash: 'rehashed', tokenVersion: 0 });
      expect(await ctx.store.setPasswordHash(user.id, 'old', 'stale', { revokeTokens: true })).toBeNull();
      expect(await ctx.store.setPasswordHash(user.id, 'rehashed', 'changed', { revokeTokens: true })).toBe(1);
      expect(await ctx.store.findUserByEmail(user.email)).toEqual({ ...user, passwordHash: 'changed', tokenVersion: 1 });
      expect(await ctx.store.setPasswordHash(newId(), 'changed', 'x', { revokeTokens: false })).toBeNull();
    });
  });

  describe('the role each read needs', () => {
    const keyInput = (app: { id: number; projectId: number }) =>
      ({ applicationId: app.id, projectId: app.projectId, name: 'k', prefix: 'lk_kxxxxxx', hash: `hash-${newId()}` });

    it('shows projects and applications to every member, and with minRole admin only to admins and owners', async () => {
      const { user: owner, org, project, app } = await makeWorld(ctx.store);
      const member = await makeUser(ctx.store, 'member');
      const admin = await makeUser(ctx.store, 'admin');
      await ctx.store.addMember(org.id, member.id, 'member');
      await ctx.store.addMember(org.id, admin.id, 'admin');
      for (const u of [owner, admin, member]) {
        expect(await ctx.store.getProject(project.id, u.id)).toEqual(project);
        expect(await ctx.store.getApplication(app.id, u.id)).toEqual(app);
        expect(await ctx.store.listProjects(org.id, u.id)).toEqual([project]);
        expect(await ctx.store.listApplications(project.id, u.id)).toEqual([app]);
      }
      for (const u of [owner, admin]) {
        expect(await ctx.store.getProject(project.id, u.id, 'admin')).toEqual(project);
        expect(await ctx.store.getApplication(app.id, u.id, 'admin')).toEqual(app);
      }
      expect(await ctx.store.getProject(project.id, member.id, 'admin')).toBeNull();
      expect(await ctx.store.getApplication(app.id, member.id, 'admin')).toBeNull();
      expect(await ctx.store.getProject(project.id, admin.id, 'owner')).toBeNull();
      expect(await ctx.store.getProject(project.id, owner.id, 'owner')).toEqual(project);
    });

    it('shows API keys to admins and owners only: a member lists none and gets none', async () => {
      const { user: owner, org, app } = await makeWorld(ctx.store);
      const member = await makeUser(ctx.store, 'member');
      const admin = await makeUser(ctx.store, 'admin');
      await ctx.store.addMember(org.id, member.id, 'member');
      await ctx.store.addMember(org.id, admin.id, 'admin');
      const key = await ctx.store.createApiKey(keyInput(app));
      for (const u of [owner, admin]) {
        expect(await ctx.store.listApiKeys(app.id, u.id)).toEqual([key]);
        expect(await ctx.store.getApiKey(key.id, u.id)).toEqual(key);
      }
      expect(await ctx.store.listApiKeys(app.id, member.id)).toEqual([]);
      expect(await ctx.store.getApiKey(key.id, member.id)).toBeNull();
    });
  });
}
