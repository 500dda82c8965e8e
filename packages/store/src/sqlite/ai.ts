import type { Database } from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import type { DocumentFailureCode, Tenant } from '@lantern/domain';
import type { AiStore, StoredDocument } from '../port.js';
import { guard } from './errors.js';
import { chunkRemover, type ChunkWriter, localChunkWriter } from './chunk-sweep.js';
import { writeUnblocked } from './write-lock.js';

const NAME_TAKEN = 'This organization already has a tenant with that name.';

export interface DocumentRow {
  id: string;
  tenant_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  status: string;
  created_ms: number;
  object_key: string;
  chunk_count: number | null;
  characters: number | null;
  pages: number | null;
  error_code: string | null;
  error_message: string | null;
}

export const DOC_COLUMNS = `d.id, d.tenant_id, d.filename, d.content_type, d.size, d.sha256, d.status, d.created_ms, d.object_key,
  d.chunk_count, d.characters, d.pages, d.error_code, d.error_message`;
/** Keeps only tenants of organizations `@userId` belongs to. */
export const MEMBER_OF_TENANT = 'JOIN memberships m ON m.organization_id = t.organization_id AND m.user_id = @userId';

export function toDocument(row: DocumentRow): StoredDocument {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    filename: row.filename,
    contentType: row.content_type,
    size: row.size,
    sha256: row.sha256,
    status: row.status,
    createdAt: toIso(row.created_ms),
    objectKey: row.object_key,
    ...(row.status === 'ready' ? { chunks: row.chunk_count ?? 0, characters: row.characters ?? 0, ...(row.pages === null ? {} : { pages: row.pages }) } : {}),
    ...(row.status === 'failed' && row.error_code !== null
      ? { error: { code: row.error_code as DocumentFailureCode, message: row.error_message ?? '' } }
      : {}),
  };
}

export function createAiStore(db: Database, now: () => number, chunks: ChunkWriter = localChunkWriter(db)): AiStore {
  const q = {
    insertTenant: db.prepare('INSERT INTO tenants (id, organization_id, name) VALUES (?, ?, ?)'),
    tenants: db.prepare<[{ organizationId: number; userId: string }], Tenant>(`SELECT t.id, t.name, t.organization_id AS organizationId
      FROM tenants t ${MEMBER_OF_TENANT} WHERE t.organization_id = @organizationId ORDER BY t.seq`),
    tenant: db.prepare<[{ id: string; userId: string }], Tenant>(`SELECT t.id, t.name, t.organization_id AS organizationId
      FROM tenants t ${MEMBER_OF_TENANT} WHERE t.id = @id`),
    insertDoc: db.prepare(`INSERT INTO documents
      (id, tenant_id, filename, content_type, size, sha256, status, created_ms, object_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    documents: db.prepare<[{ tenantId: string; userId: string }], DocumentRow>(`SELECT ${DOC_COLUMNS}
      FROM documents d JOIN tenants t ON t.id = d.tenant_id ${MEMBER_OF_TENANT}
      WHERE d.tenant_id = @tenantId AND d.status <> 'deleting' ORDER BY d.created_ms DESC, d.rowid DESC`),
    document: db.prepare<[{ id: string; userId: string }], DocumentRow>(`SELECT ${DOC_COLUMNS}
      FROM documents d JOIN tenants t ON t.id = d.tenant_id ${MEMBER_OF_TENANT} WHERE d.id = @id AND d.status <> 'deleting'`),
    // Visible, or withdrawn by a delete that has not finished: what a DELETE or its retry works on.
    toDelete: db.prepare<[{ id: string; userId: string }], DocumentRow>(`SELECT ${DOC_COLUMNS}
      FROM documents d JOIN tenants t ON t.id = d.tenant_id ${MEMBER_OF_TENANT} WHERE d.id = @id`),
    // Marked first: no list, lookup, dedupe or search sees it from then on, and any claim on it is lost. The lease
    // of a withdrawn document is its grace: abandonedDeletes leaves it alone until then.
    mark: db.prepare<[{ id: string; until: number }]>(`UPDATE documents SET status = 'deleting', claim = NULL, lease_until_ms = @until, chunks_claim = NULL
      WHERE id = @id`),
    // The grace runs again from each batch of the chunks' removal (a large document's takes long), then from its end.
    regrace: db.prepare<[{ id: string; until: number }]>(`UPDATE documents SET lease_until_ms = @until WHERE id = @id AND status = 'deleting'`),
    // Its chunks go with it (ON DELETE CASCADE), should any be left.
    deleteDoc: db.prepare<[string]>(`DELETE FROM documents WHERE id = ? AND status = 'deleting'`),
  };
  const removeChunks = chunkRemover(chunks);

  return {
    async createTenant({ name, organizationId }) {
      const id = newId();
      guard(() => q.insertTenant.run(id, organizationId, name), { unique: NAME_TAKEN, foreignKey: 'organization' });
      return { id, name, organizationId };
    },
    async listTenants(organizationId, userId) {
      return guard(() => q.tenants.all({ organizationId, userId }));
    },
    async getTenant(id, userId) {
      return guard(() => q.tenant.get({ id, userId })) ?? null;
    },
    async createDocument(doc) {
      const parsed = Date.parse(doc.createdAt);
      const createdMs = Number.isNaN(parsed) ? now() : parsed;
      // On timers, as the claims (write-lock.ts): an upload's record does not hold the event loop in SQLite's busy
      // handler while the writer thread commits span batches or a document's chunks.
      await writeUnblocked(db, () => q.insertDoc.run(doc.id, doc.tenantId, doc.filename, doc.contentType, doc.size, doc.sha256, doc.status,
        createdMs, doc.objectKey), { foreignKey: 'tenant' });
      return { ...doc, createdAt: toIso(createdMs) };
    },
    async listDocuments(tenantId, userId) {
      return guard(() => q.documents.all({ tenantId, userId })).map(toDocument);
    },
    async getDocument(id, userId) {
      const row = guard(() => q.document.get({ id, userId }));
      return row ? toDocument(row) : null;
    },
    async getDocumentToDelete(id, userId) {
      const row = guard(() => q.toDelete.get({ id, userId }));
      return row ? toDocument(row) : null;
    },
    // The mark, then the chunks in batches (a turn of the event loop between): a 10 MB document's chunks are not
    // removed in one transaction.
    async withdrawDocument(id, graceMs) {
      if (guard(() => q.mark.run({ id, until: now() + graceMs })).changes === 0) return false;
      const regrace = () => guard(() => q.regrace.run({ id, until: now() + graceMs }));
      await removeChunks(id, { all: true }, regrace);
      regrace();
      return true;
    },
    async removeDocument(id) {
      return guard(() => q.deleteDoc.run(id)).changes > 0;
    },
  };
}
