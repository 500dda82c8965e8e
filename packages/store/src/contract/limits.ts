import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { StoredDocument } from '../port.js';
import { T0, makeWorld } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

function document(tenantId: string, at: number, size: number, sha256: string): StoredDocument {
  const id = newId();
  return {
    id, tenantId, filename: 'notes.txt', contentType: 'text/plain', size, sha256, status: 'stored',
    createdAt: toIso(at), objectKey: `tenants/${tenantId}/documents/${id}`,
  };
}

/** What the fair limits count (issue 18): active keys, a key's organization, stored bytes, dedupe, rate windows. */
export function limitsContract(ctx: StoreContext): void {
  describe('limits', () => {
    it('counts the active keys of an application: revoked keys and other applications do not count', async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createApplication({ name: 'Other', projectId: w.project.id });
      const key = (applicationId: number, n: number) =>
        ctx.store.createApiKey({ applicationId, projectId: w.project.id, name: `k${n}`, prefix: `lk_${n}`, hash: newId() });
      expect(await ctx.store.countActiveApiKeys(w.app.id)).toBe(0);
      const keys = [await key(w.app.id, 1), await key(w.app.id, 2), await key(w.app.id, 3)];
      await key(other.id, 4);
      expect(await ctx.store.countActiveApiKeys(w.app.id)).toBe(3);
      await ctx.store.revokeApiKey(keys[1]!.id);
      expect(await ctx.store.countActiveApiKeys(w.app.id)).toBe(2);
      expect(await ctx.store.countActiveApiKeys(other.id)).toBe(1);
    });

    it('creates a key under a cap only while the application has fewer active keys: 30 parallel creations under a cap of 20 make 20', async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createApplication({ name: 'Other', projectId: w.project.id });
      const create = (applicationId: number, n: number, maxActive: number) =>
        ctx.store.createApiKey({ applicationId, projectId: w.project.id, name: `k${n}`, prefix: `lk_${n}`, hash: newId() }, { maxActive });
      const made = await Promise.all(Array.from({ length: 30 }, (_, n) => create(w.app.id, n, 20)));
      expect(made.filter((k) => k !== null)).toHaveLength(20);
      expect(await ctx.store.countActiveApiKeys(w.app.id)).toBe(20);
      expect(await create(w.app.id, 30, 20)).toBeNull();
      // Another application has its own count; a revoked key frees a place, and revoking it again frees no other.
      expect(await create(other.id, 31, 20)).not.toBeNull();
      const revoked = made.find((k) => k !== null)!;
      expect(await ctx.store.revokeApiKey(revoked.id)).toBe(true);
      expect(await ctx.store.revokeApiKey(revoked.id)).toBe(true);
      expect(await create(w.app.id, 32, 20)).toMatchObject({ applicationId: w.app.id, revokedAt: null });
      expect(await create(w.app.id, 33, 20)).toBeNull();
      // Keys created without a cap count too.
      await ctx.store.createApiKey({ applicationId: other.id, projectId: w.project.id, name: 'free', prefix: 'lk_free', hash: newId() });
      expect(await create(other.id, 34, 2)).toBeNull();
      await expect(create(w.app.id + 1000, 35, 20)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });

    it('creates an organization under a cap only while the user has created fewer: 8 in parallel under a cap of 3 make 3, ever', async () => {
      const w = await makeWorld(ctx.store);
      const other = await ctx.store.createUser({ email: `other-${newId()}@example.test`, name: 'other', passwordHash: 'h' });
      const create = (ownerId: string, maxCreated: number) => ctx.store.createOrganization({ name: 'capped', ownerId }, { maxCreated });
      // The world's organization counts: 8 parallel creations under a cap of 4 make 3 more.
      const made = await Promise.all(Array.from({ length: 8 }, () => create(w.user.id, 4)));
      expect(made.filter((o) => o !== null)).toHaveLength(3);
      expect(await ctx.store.listMemberships(w.user.id)).toHaveLength(4);
      // Leaving one does not give one back; another user has their own count.
      const heir = await ctx.store.createUser({ email: `heir-${newId()}@example.test`, name: 'heir', passwordHash: 'h' });
      await ctx.store.addMember(made.find((o) => o !== null)!.id, heir.id, 'owner');
      expect(await ctx.store.removeMember(made.find((o) => o !== null)!.id, w.user.id, w.user.id)).toBe('done');
      expect(await create(w.user.id, 4)).toBeNull();
      expect(await create(other.id, 1)).toMatchObject({ name: 'capped' });
      expect(await create(other.id, 1)).toBeNull();
      await expect(create(newId(), 4)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });

    it('finds the organization of a project, and null for no such project', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'other');
      expect(await ctx.store.findProjectOrganization(w.project.id)).toBe(w.org.id);
      expect(await ctx.store.findProjectOrganization(other.project.id)).toBe(other.org.id);
      expect(await ctx.store.findProjectOrganization(other.project.id + 1000)).toBeNull();
    });

    it('sums the stored bytes of an organization over all its tenants, and of no other', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'other');
      expect(await ctx.store.organizationStoredBytes(w.org.id)).toBe(0);
      const support = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const legal = await ctx.store.createTenant({ name: 'Legal', organizationId: w.org.id });
      const elsewhere = await ctx.store.createTenant({ name: 'Support', organizationId: other.org.id });
      await ctx.store.createDocument(document(support.id, T0, 1000, 'a'.repeat(64)));
      const gone = await ctx.store.createDocument(document(legal.id, T0, 234, 'b'.repeat(64)));
      await ctx.store.createDocument(document(legal.id, T0, 10_000_000, 'c'.repeat(64)));
      await ctx.store.createDocument(document(elsewhere.id, T0, 7, 'a'.repeat(64)));
      expect(await ctx.store.organizationStoredBytes(w.org.id)).toBe(10_001_234);
      await ctx.store.withdrawDocument(gone.id, 60_000);
      expect(await ctx.store.organizationStoredBytes(w.org.id)).toBe(10_001_000);
      expect(await ctx.store.organizationStoredBytes(other.org.id)).toBe(7);
    });

    it('finds a tenant\'s document by its sha256, the oldest first, never another tenant\'s', async () => {
      const w = await makeWorld(ctx.store);
      const support = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const legal = await ctx.store.createTenant({ name: 'Legal', organizationId: w.org.id });
      const sha = 'd'.repeat(64);
      const first = await ctx.store.createDocument(document(support.id, T0, 10, sha));
      await ctx.store.createDocument(document(support.id, T0 + 1000, 10, sha));
      expect(await ctx.store.findDocumentBySha256(support.id, sha)).toEqual(first);
      expect(await ctx.store.findDocumentBySha256(legal.id, sha)).toBeNull();
      expect(await ctx.store.findDocumentBySha256(support.id, 'e'.repeat(64))).toBeNull();
    });

    it('counts hits per key and window: a new window starts at one, other keys are apart', async () => {
      const minute = 60_000;
      const start = Math.floor(Date.now() / minute) * minute;
      const key = `test:${newId()}`;
      const counts = [];
      for (let i = 0; i < 3; i++) counts.push(await ctx.store.countHit(key, start, minute));
      expect(counts).toEqual([1, 2, 3]);
      expect(await ctx.store.countHit(`test:${newId()}`, start, minute)).toBe(1);
      expect(await ctx.store.countHit(key, start + minute, minute)).toBe(1);
      expect(await ctx.store.countHit(key, start, minute)).toBe(4);
    });

    it('counts hits made at once without losing any', async () => {
      const minute = 60_000;
      const start = Math.floor(Date.now() / minute) * minute;
      const key = `test:${newId()}`;
      const counts = await Promise.all(Array.from({ length: 20 }, () => ctx.store.countHit(key, start, minute)));
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });
  });
}
