import { errors, newId, toIso } from '@lantern/domain';
import type { DocumentFailureCode, Tenant } from '@lantern/domain';
import type { AiStore, StoredDocument } from '../port.js';
import type { DocumentDoc, RecordStoreDeps, TenantDoc } from './collections.js';
import { removePostings } from './postings.js';

const NAME_TAKEN = 'This organization already has a tenant with that name.';

const toTenant = (t: TenantDoc): Tenant => ({ id: t._id, name: t.name, organizationId: t.organizationId });

export function toDocument(d: DocumentDoc): StoredDocument {
  return {
    id: d._id,
    tenantId: d.tenantId,
    filename: d.filename,
    contentType: d.contentType,
    size: d.size,
    sha256: d.sha256,
    status: d.status,
    createdAt: toIso(d.createdAt.getTime()),
    objectKey: d.objectKey,
    ...(d.status === 'ready' ? { chunks: d.chunkCount ?? 0, characters: d.characters ?? 0, ...(d.pages === undefined ? {} : { pages: d.pages }) } : {}),
    ...(d.status === 'failed' && d.error ? { error: { code: d.error.code as DocumentFailureCode, message: d.error.message } } : {}),
  };
}

/** A document being deleted (its record goes last, after its chunks): never listed, found or searched again. */
export const DELETING = 'deleting';
/** Chunks a withdrawal removes at a time. */
const REMOVE_BATCH = 1000;

/** Removes a document's chunks and postings: of every claim, or of every claim but `keep`, or of `only`. */
export async function removeChunks(c: RecordStoreDeps['c'], documentId: string, which: { keep?: string; only?: string[] } = {}): Promise<void> {
  const { keep, only } = which;
  await c.chunks.deleteMany({ documentId, ...(keep !== undefined ? { claim: { $ne: keep } } : only ? { claim: { $in: only } } : {}) });
  await removePostings(c, documentId, (claim) => (keep !== undefined ? claim === keep : only ? !only.includes(claim) : false));
}

/** The tenant, if the user is a member of its organization; else null (isolation in the store, not only in routes). */
export function tenantVisibility({ c, access }: Pick<RecordStoreDeps, 'c' | 'access'>): (id: string, userId: string) => Promise<TenantDoc | null> {
  return async (id, userId) => {
    const tenant = await c.tenants.findOne({ _id: id });
    return tenant !== null && (await access.isMember(tenant.organizationId, userId)) ? tenant : null;
  };
}

/** AI tenants and their documents' metadata (the bytes are in the blob store). */
export function createAiStore({ c, guard, access, next, now }: RecordStoreDeps): AiStore {
  const visibleTenant = tenantVisibility({ c, access });

  return {
    createTenant: ({ name, organizationId }) => guard.run(async () => {
      if ((await c.organizations.findOne({ _id: organizationId }, { projection: { _id: 1 } })) === null) {
        throw errors.notFound('organization');
      }
      const id = newId();
      // The unique (organizationId, name) index rejects a second tenant of that name, however close the requests.
      await c.tenants.insertOne({ _id: id, seq: await next('tenants'), organizationId, name });
      return { id, name, organizationId };
    }, { duplicate: NAME_TAKEN }),

    listTenants: (organizationId, userId) => guard.run(async () => {
      if (!(await access.isMember(organizationId, userId))) return [];
      return (await c.tenants.find({ organizationId }, { sort: { seq: 1 } }).toArray()).map(toTenant);
    }),

    getTenant: (id, userId) => guard.run(async () => {
      const tenant = await visibleTenant(id, userId);
      return tenant === null ? null : toTenant(tenant);
    }),

    createDocument: (doc) => guard.run(async () => {
      if ((await c.tenants.findOne({ _id: doc.tenantId }, { projection: { _id: 1 } })) === null) throw errors.notFound('tenant');
      const parsed = Date.parse(doc.createdAt);
      const createdMs = Number.isNaN(parsed) ? now() : parsed;
      // `seq` orders documents of the same millisecond: the last stored first.
      await c.documents.insertOne({
        _id: doc.id, seq: await next('documents'), tenantId: doc.tenantId, filename: doc.filename, contentType: doc.contentType,
        size: doc.size, sha256: doc.sha256, status: doc.status, createdAt: new Date(createdMs), objectKey: doc.objectKey,
      });
      return { ...doc, createdAt: toIso(createdMs) };
    }),

    listDocuments: (tenantId, userId) => guard.run(async () => {
      if ((await visibleTenant(tenantId, userId)) === null) return [];
      return (await c.documents.find({ tenantId, status: { $ne: DELETING } }, { sort: { createdAt: -1, seq: -1 } }).toArray()).map(toDocument);
    }),

    getDocument: (id, userId) => guard.run(async () => {
      const doc = await c.documents.findOne({ _id: id, status: { $ne: DELETING } });
      return doc !== null && (await visibleTenant(doc.tenantId, userId)) !== null ? toDocument(doc) : null;
    }),

    getDocumentToDelete: (id, userId) => guard.run(async () => {
      const doc = await c.documents.findOne({ _id: id });
      return doc !== null && (await visibleTenant(doc.tenantId, userId)) !== null ? toDocument(doc) : null;
    }),

    // Marked first (no search returns it from then on, and a worker's claim on it is lost; its lease is the grace
    // abandonedDeletes waits), then its chunks, then its postings: each step safe to run again (services/ai delete.ts).
    withdrawDocument: (id, graceMs) => guard.run(async () => {
      const marked = await c.documents.updateOne({ _id: id },
        { $set: { status: DELETING, leaseUntil: new Date(now() + graceMs) }, $unset: { claim: '', chunksClaim: '' } });
      if (marked.matchedCount === 0) return false;
      const renew = async () => {
        await c.documents.updateOne({ _id: id, status: DELETING }, { $set: { leaseUntil: new Date(now() + graceMs) } });
      };
      // In batches, the grace running again from each (a large document's chunks and postings take long to remove).
      for (;;) {
        const batch = (await c.chunks.find({ documentId: id }, { projection: { _id: 1 }, limit: REMOVE_BATCH }).toArray()).map((chunk) => chunk._id);
        if (batch.length === 0) break;
        await c.chunks.deleteMany({ _id: { $in: batch } });
        await renew();
      }
      await removePostings(c, id, undefined, renew);
      return true;
    }),

    removeDocument: (id) => guard.run(async () => {
      const removed = await c.documents.deleteOne({ _id: id, status: DELETING });
      // Should a chunk have been left (none can land once marked: completions check their claim).
      if (removed.deletedCount > 0) await removeChunks(c, id);
      return removed.deletedCount > 0;
    }),
  };
}
