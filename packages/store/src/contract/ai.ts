import { describe, expect, it } from '@jest/globals';
import { AppError, newId, toIso } from '@lantern/domain';
import type { StoredDocument } from '../port.js';
import { T0, UUID, makeWorld } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

function document(tenantId: string, at: number, fields: Partial<StoredDocument> = {}): StoredDocument {
  const id = newId();
  return {
    id, tenantId, filename: 'report.pdf', contentType: 'application/pdf', size: 1234, sha256: 'a'.repeat(64),
    status: 'stored', createdAt: toIso(at), objectKey: `tenants/${tenantId}/documents/${id}`, ...fields,
  };
}

export function aiContract(ctx: StoreContext): void {
  describe('AI tenants', () => {
    it('creates tenants with UUID ids and lists those of an organization in creation order', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'other');
      await ctx.store.addMember(other.org.id, w.user.id, 'member');
      const support = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const legal = await ctx.store.createTenant({ name: 'Legal', organizationId: w.org.id });
      await ctx.store.createTenant({ name: 'Elsewhere', organizationId: other.org.id });
      expect(support).toEqual({ id: expect.stringMatching(UUID), name: 'Support', organizationId: w.org.id });
      expect(await ctx.store.listTenants(w.org.id, w.user.id)).toEqual([support, legal]);
      expect(await ctx.store.getTenant(legal.id, w.user.id)).toEqual(legal);
      expect(await ctx.store.getTenant(newId(), w.user.id)).toBeNull();
    });

    it('rejects a tenant name the organization already uses with a 409; another organization may use it', async () => {
      const w = await makeWorld(ctx.store);
      const other = await makeWorld(ctx.store, 'other');
      const first = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const attempt = ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      await expect(attempt).rejects.toBeInstanceOf(AppError);
      await expect(attempt).rejects.toMatchObject({
        status: 409, code: 'conflict', message: 'This organization already has a tenant with that name.',
      });
      expect(await ctx.store.listTenants(w.org.id, w.user.id)).toEqual([first]);
      const elsewhere = await ctx.store.createTenant({ name: 'Support', organizationId: other.org.id });
      expect(await ctx.store.getTenant(elsewhere.id, other.user.id)).toEqual(elsewhere);
    });
  });

  describe('AI references', () => {
    it('answers 404 for a tenant of an organization that does not exist, and for a document of a tenant that does not exist', async () => {
      const w = await makeWorld(ctx.store);
      const tenant = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const notFound = { status: 404, code: 'not_found' };
      await expect(ctx.store.createTenant({ name: 'Support', organizationId: w.org.id + 1000 })).rejects.toMatchObject(notFound);
      await expect(ctx.store.createDocument(document(newId(), T0))).rejects.toMatchObject(notFound);
      expect(await ctx.store.listTenants(w.org.id, w.user.id)).toEqual([tenant]);
      expect(await ctx.store.listDocuments(tenant.id, w.user.id)).toEqual([]);
    });
  });

  describe('documents', () => {
    it('stores documents, lists those of a tenant newest first and gets one by id', async () => {
      const w = await makeWorld(ctx.store);
      const tenant = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const otherTenant = await ctx.store.createTenant({ name: 'Legal', organizationId: w.org.id });
      const oldest = document(tenant.id, T0, { filename: 'a.txt', contentType: 'text/plain', size: 0 });
      const newest = document(tenant.id, T0 + 2000, { status: 'indexed' });
      const middle = document(tenant.id, T0 + 1000);
      for (const doc of [oldest, newest, middle]) expect(await ctx.store.createDocument(doc)).toEqual(doc);
      const foreign = await ctx.store.createDocument(document(otherTenant.id, T0 + 5000));
      expect(await ctx.store.listDocuments(tenant.id, w.user.id)).toEqual([newest, middle, oldest]);
      expect(await ctx.store.listDocuments(otherTenant.id, w.user.id)).toEqual([foreign]);
      expect(await ctx.store.getDocument(middle.id, w.user.id)).toEqual(middle);
      expect(await ctx.store.getDocument(newId(), w.user.id)).toBeNull();
    });

    it('lists documents created in the same millisecond newest first, by the order they were stored', async () => {
      const w = await makeWorld(ctx.store);
      const tenant = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const docs = Array.from({ length: 12 }, () => document(tenant.id, T0));
      for (const doc of docs) await ctx.store.createDocument(doc);
      expect((await ctx.store.listDocuments(tenant.id, w.user.id)).map((d) => d.id)).toEqual(docs.map((d) => d.id).reverse());
    });

    it('withdraws a document (gone from lookups and lists, still there to delete), then removes its record once', async () => {
      const w = await makeWorld(ctx.store);
      const outsider = await makeWorld(ctx.store, 'outsider');
      const tenant = await ctx.store.createTenant({ name: 'Support', organizationId: w.org.id });
      const doomed = await ctx.store.createDocument(document(tenant.id, T0));
      const kept = await ctx.store.createDocument(document(tenant.id, T0 + 1));
      expect(await ctx.store.removeDocument(doomed.id)).toBe(false);
      expect(await ctx.store.getDocumentToDelete(doomed.id, w.user.id)).toEqual(doomed);
      expect(await ctx.store.withdrawDocument(doomed.id, 60_000)).toBe(true);
      expect(await ctx.store.getDocument(doomed.id, w.user.id)).toBeNull();
      expect(await ctx.store.listDocuments(tenant.id, w.user.id)).toEqual([kept]);
      expect(await ctx.store.getDocumentToDelete(doomed.id, w.user.id)).toMatchObject({ id: doomed.id, status: 'deleting' });
      expect(await ctx.store.getDocumentToDelete(doomed.id, outsider.user.id)).toBeNull();
      expect(await ctx.store.withdrawDocument(doomed.id, 60_000)).toBe(true);
      expect(await ctx.store.removeDocument(kept.id)).toBe(false);
      expect(await ctx.store.removeDocument(doomed.id)).toBe(true);
      expect(await ctx.store.removeDocument(doomed.id)).toBe(false);
      expect(await ctx.store.withdrawDocument(doomed.id, 60_000)).toBe(false);
      expect(await ctx.store.withdrawDocument(newId(), 60_000)).toBe(false);
      expect(await ctx.store.getDocumentToDelete(doomed.id, w.user.id)).toBeNull();
      expect(await ctx.store.listDocuments(tenant.id, w.user.id)).toEqual([kept]);
    });
  });
}
