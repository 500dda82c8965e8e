import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { ChunkInput, ProcessingStore } from '../port.js';
import { DOC_COLUMNS, type DocumentRow, MEMBER_OF_TENANT, toDocument } from './ai.js';
import { attemptsUsedUp } from '../processing.js';
import { guard } from './errors.js';
import { chunkSearcher, tenantToken } from './ai-search.js';

/**
 * The processing queue and the chunks on SQLite (port.ts, ProcessingStore). One process owns the database, so each
 * step is one transaction: a claim takes the oldest waiting document at once, and a result (chunks and status)
 * lands only while its claim still holds.
 */
export function createProcessingStore(db: Database, now: () => number): ProcessingStore {
  const q = {
    // On the partial index of the waiting documents (the status condition is what lets SQLite use it).
    expired: db.prepare<[{ now: number; max: number }]>(`SELECT id, attempts FROM documents
      WHERE status IN ('stored', 'processing') AND status = 'processing' AND lease_until_ms < @now AND attempts >= @max`),
    next: db.prepare<[{ now: number }], { id: string; attempts: number }>(`SELECT id, attempts FROM documents
      WHERE status IN ('stored', 'processing') AND (status = 'stored' OR lease_until_ms < @now)
      ORDER BY created_ms, rowid LIMIT 1`),
    fail: db.prepare(`UPDATE documents SET status = 'failed', claim = NULL, lease_until_ms = NULL, error_code = @code,
      error_message = @message WHERE id = @id`),
    take: db.prepare(`UPDATE documents SET status = 'processing', claim = @claim, lease_until_ms = @until, attempts = attempts + 1,
      error_code = NULL, error_message = NULL WHERE id = @id`),
    byId: db.prepare<[string], DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = ?`),
    renew: db.prepare(`UPDATE documents SET lease_until_ms = @until WHERE id = @id AND claim = @claim AND status = 'processing'`),
    held: db.prepare<[{ id: string; claim: string }], { tenant_id: string }>(`SELECT tenant_id FROM documents
      WHERE id = @id AND claim = @claim AND status = 'processing'`),
    deleteChunks: db.prepare<[string]>('DELETE FROM chunks WHERE document_id = ?'),
    insertChunk: db.prepare(`INSERT INTO chunks (document_id, tenant, chunk_index, text, start_offset, end_offset, page_first, page_last, page_breaks)
      VALUES (@documentId, @tenant, @index, @text, @start, @end, @pageFirst, @pageLast, @pageBreaks)`),
    ready: db.prepare(`UPDATE documents SET status = 'ready', claim = NULL, lease_until_ms = NULL, chunk_count = @chunks,
      characters = @characters, pages = @pages WHERE id = @id`),
    visible: db.prepare<[{ id: string; userId: string }], { id: string }>(`SELECT d.id FROM documents d
      JOIN tenants t ON t.id = d.tenant_id ${MEMBER_OF_TENANT} WHERE d.id = @id`),
    requeue: db.prepare<[string]>(`UPDATE documents SET status = 'stored', claim = NULL, lease_until_ms = NULL, attempts = 0,
      chunk_count = NULL, characters = NULL, pages = NULL, error_code = NULL, error_message = NULL WHERE id = ?`),
  };

  const search = chunkSearcher(db);

  const claim = db.transaction((leaseMs: number, maxAttempts: number) => {
    const at = now();
    for (const doc of q.expired.all({ now: at, max: maxAttempts }) as { id: string; attempts: number }[]) {
      q.deleteChunks.run(doc.id);
      q.fail.run({ id: doc.id, code: 'timeout', message: attemptsUsedUp(doc.attempts) });
    }
    const next = q.next.get({ now: at });
    if (!next) return null;
    const token = randomUUID();
    q.take.run({ id: next.id, claim: token, until: at + leaseMs });
    return { document: toDocument(q.byId.get(next.id)!), claim: token, attempt: next.attempts + 1 };
  });

  const complete = db.transaction((id: string, token: string, result: { characters: number; pages?: number; chunks: ChunkInput[] }) => {
    const held = q.held.get({ id, claim: token });
    if (!held) return false;
    q.deleteChunks.run(id);
    const tenant = tenantToken(held.tenant_id);
    for (const c of result.chunks) {
      q.insertChunk.run({ documentId: id, tenant, index: c.index, text: c.text, start: c.start, end: c.end, pageFirst: c.pages?.[0] ?? null, pageLast: c.pages?.[1] ?? null,
        pageBreaks: c.pageBreaks ? JSON.stringify(c.pageBreaks) : null });
    }
    q.ready.run({ id, chunks: result.chunks.length, characters: result.characters, pages: result.pages ?? null });
    return true;
  });

  const fail = db.transaction((id: string, token: string, code: string, message: string) => {
    if (!q.held.get({ id, claim: token })) return false;
    q.deleteChunks.run(id);
    q.fail.run({ id, code, message });
    return true;
  });

  const reprocess = db.transaction((id: string, userId: string) => {
    if (!q.visible.get({ id, userId })) return null;
    q.deleteChunks.run(id);
    q.requeue.run(id);
    return toDocument(q.byId.get(id)!);
  });

  return {
    async claimDocument({ leaseMs, maxAttempts }) {
      return guard(() => claim.immediate(leaseMs, maxAttempts));
    },
    async renewClaim(documentId, token, leaseMs) {
      return guard(() => q.renew.run({ id: documentId, claim: token, until: now() + leaseMs })).changes > 0;
    },
    async completeDocument(documentId, token, result) {
      return guard(() => complete.immediate(documentId, token, result));
    },
    async failDocument(documentId, token, error) {
      return guard(() => fail.immediate(documentId, token, error.code, error.message));
    },
    async reprocessDocument(id, userId) {
      return guard(() => reprocess.immediate(id, userId));
    },
    async searchChunks(query) {
      return guard(() => search(query));
    },
  };
}
