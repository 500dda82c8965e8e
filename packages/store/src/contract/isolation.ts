import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import type { Store } from '../port.js';
import { T0, collect, logBatch, logEntry, makeWorld, rootSpan, spanBatch } from './fixtures.js';
import type { StoreContext, World } from './fixtures.js';

/** Organization B with something of every kind: a second project, a key, a tenant, a document, spans and logs. */
async function populate(store: Store, world: World) {
  const key = await store.createApiKey({
    applicationId: world.app.id, projectId: world.project.id, name: 'k', prefix: 'lk_abcdefg', hash: `hash-${newId()}`,
  });
  const tenant = await store.createTenant({ name: 'Tenant', organizationId: world.org.id });
  const document = await store.createDocument({
    id: newId(), tenantId: tenant.id, filename: 'a.txt', contentType: 'text/plain', size: 3, sha256: 'abc', status: 'stored',
    createdAt: new Date(T0).toISOString(), objectKey: `tenants/${tenant.id}/documents/x`,
  });
  await store.writeSpans(spanBatch(world.app, [rootSpan(newId(), T0 + 10)]));
  await store.writeLogs(logBatch(world.app, [logEntry(world.app, T0 + 20)]));
  return { key, tenant, document };
}

export function isolationContract(ctx: StoreContext): void {
  describe('tenant isolation', () => {
    it('a user of organization A gets null or nothing for every read of organization B', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      const { key, tenant, document } = await populate(ctx.store, b);
      await populate(ctx.store, a);
      const s = ctx.store;
      const viewer = a.user.id;
      expect(await s.getProject(b.project.id, viewer)).toBeNull();
      expect(await s.listProjects(b.org.id, viewer)).toEqual([]);
      expect(await s.getApplication(b.app.id, viewer)).toBeNull();
      expect(await s.listApplications(b.project.id, viewer)).toEqual([]);
      expect(await s.listApiKeys(b.app.id, viewer)).toEqual([]);
      expect(await s.getApiKey(key.id, viewer)).toBeNull();
      expect(await s.listTenants(b.org.id, viewer)).toEqual([]);
      expect(await s.getTenant(tenant.id, viewer)).toBeNull();
      expect(await s.listDocuments(tenant.id, viewer)).toEqual([]);
      expect(await s.getDocument(document.id, viewer)).toBeNull();
      expect(await s.getRole(b.org.id, viewer)).toBeNull();
      expect(await collect(s.streamTraces({ userId: viewer, projectId: b.project.id }))).toEqual([]);
      expect(await collect(s.streamLogs({ userId: viewer, projectId: b.project.id }))).toEqual([]);
      expect(await collect(s.streamRootSpans({ userId: viewer, projectId: b.project.id, from: 0, to: T0 + 3_600_000 }))).toEqual([]);
    });

    it('the same reads answer the owner of organization B, so the nulls above come from isolation alone', async () => {
      const b = await makeWorld(ctx.store, 'b');
      const { key, tenant, document } = await populate(ctx.store, b);
      const s = ctx.store;
      const viewer = b.user.id;
      expect(await s.getProject(b.project.id, viewer)).toEqual(b.project);
      expect(await s.listProjects(b.org.id, viewer)).toEqual([b.project]);
      expect(await s.getApplication(b.app.id, viewer)).toEqual(b.app);
      expect(await s.listApplications(b.project.id, viewer)).toEqual([b.app]);
      expect(await s.listApiKeys(b.app.id, viewer)).toEqual([key]);
      expect(await s.getApiKey(key.id, viewer)).toEqual(key);
      expect(await s.listTenants(b.org.id, viewer)).toEqual([tenant]);
      expect(await s.getTenant(tenant.id, viewer)).toEqual(tenant);
      expect(await s.listDocuments(tenant.id, viewer)).toEqual([document]);
      expect(await s.getDocument(document.id, viewer)).toEqual(document);
      expect(await collect(s.streamTraces({ userId: viewer, projectId: b.project.id }))).toHaveLength(1);
      expect(await collect(s.streamLogs({ userId: viewer, projectId: b.project.id }))).toHaveLength(1);
      expect(await collect(s.streamRootSpans({ userId: viewer, projectId: b.project.id, from: 0, to: T0 + 3_600_000 }))).toHaveLength(1);
    });

    it('streams without a project never include the telemetry of an organization the user is not in', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      await populate(ctx.store, a);
      await populate(ctx.store, b);
      const logs = await collect(ctx.store.streamLogs({ userId: a.user.id }));
      expect(logs.map((log) => log.projectId)).toEqual([a.project.id]);
      const roots = await collect(ctx.store.streamRootSpans({ userId: a.user.id, from: 0, to: T0 + 3_600_000 }));
      expect(roots.map((row) => row.projectId)).toEqual([a.project.id]);
    });

    it('becoming a member of organization B makes its resources visible', async () => {
      const a = await makeWorld(ctx.store, 'a');
      const b = await makeWorld(ctx.store, 'b');
      const { tenant } = await populate(ctx.store, b);
      expect(await ctx.store.getProject(b.project.id, a.user.id)).toBeNull();
      await ctx.store.addMember(b.org.id, a.user.id, 'member');
      expect(await ctx.store.getProject(b.project.id, a.user.id)).toEqual(b.project);
      expect(await ctx.store.getTenant(tenant.id, a.user.id)).toEqual(tenant);
      expect(await collect(ctx.store.streamTraces({ userId: a.user.id, projectId: b.project.id }))).toHaveLength(1);
      expect((await collect(ctx.store.streamLogs({ userId: a.user.id }))).map((l) => l.projectId)).toEqual([b.project.id]);
    });

    it('a project that does not exist yields nothing', async () => {
      const a = await makeWorld(ctx.store, 'a');
      await populate(ctx.store, a);
      const missing = a.project.id + 1000;
      expect(await collect(ctx.store.streamTraces({ userId: a.user.id, projectId: missing }))).toEqual([]);
      expect(await collect(ctx.store.streamLogs({ userId: a.user.id, projectId: missing }))).toEqual([]);
      expect(await collect(ctx.store.streamRootSpans({ userId: a.user.id, projectId: missing, from: 0, to: T0 + 3_600_000 }))).toEqual([]);
    });
  });
}
