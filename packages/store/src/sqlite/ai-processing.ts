import type { Database } from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import type { ProcessingStore } from '../port.js';
import { DOC_COLUMNS, type DocumentRow, MEMBER_OF_TENANT, toDocument } from './ai.js';
import { attemptsUsedUp, UNRECORDED_SETTINGS } from '../processing.js';
import { guard } from './errors.js';
import { chunkRemover, type ChunkWriter, localChunkWriter } from './chunk-sweep.js';
import { chunkSearcher } from './ai-search.js';
import { writeUnblocked } from './write-lock.js';
import { nearestSearcher } from './ai-nearest.js';

/**
 * The processing queue and the chunks on SQLite (port.ts, ProcessingStore). One process owns the database: a claim
 * is one transaction that takes the oldest waiting document. A result is written in batches by the ChunkWriter
 * (chunk-sweep.ts: the writer thread's, else this connection's), each its own transaction that checks the claim
 * still holds, under the claim (chunks carry it, so two claims of one document never collide); then the ChunkWriter's
 * `finish` flips the document to `ready` with `chunks_claim` set, and only chunks of that claim are searched. Claims,
 * renewals, failures and reprocesses are written on this connection without blocking its event loop behind the
 * writer thread's lock (write-lock.ts). Chunks of other claims (an earlier
 * attempt, a lost worker, a failure, a reprocess) are removed afterwards in batches too. A document queued again
 * because the settings changed (requeueOutdated) keeps its `chunks_claim` (out of search: only ready documents are
 * searched) until the next completion replaces it.
 */
export function createProcessingStore(db: Database, now: () => number, chunks: ChunkWriter = localChunkWriter(db)): ProcessingStore {
  const q = {
    // On the partial index of the waiting documents (the status condition is what lets SQLite use it).
    expired: db.prepare<[{ now: number; max: number }]>(`SELECT id, attempts FROM documents
      WHERE status IN ('stored', 'processing') AND status = 'processing' AND lease_until_ms < @now AND attempts >= @max`),
    next: db.prepare<[{ now: number }], { id: string; attempts: number }>(`SELECT id, attempts FROM documents
      WHERE status IN ('stored', 'processing') AND (status = 'stored' OR lease_until_ms < @now)
      ORDER BY created_ms, rowid LIMIT 1`),
    fail: db.prepare(`UPDATE documents SET status = 'failed', claim = NULL, lease_until_ms = NULL, chunks_claim = NULL,
      error_code = @code, error_message = @message WHERE id = @id`),
    take: db.prepare(`UPDATE documents SET status = 'processing', claim = @claim, lease_until_ms = @until, attempts = attempts + 1,
      error_code = NULL, error_message = NULL WHERE id = @id`),
    byId: db.prepare<[string], DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = ?`),
    renew: db.prepare(`UPDATE documents SET lease_until_ms = @until WHERE id = @id AND claim = @claim AND status = 'processing'`),
    held: db.prepare<[{ id: string; claim: string }], { tenant_id: string }>(`SELECT tenant_id FROM documents
      WHERE id = @id AND claim = @claim AND status = 'processing'`),
    // On its partial index (schema.ts): withdrawn documents are few, and last long only after an interrupted delete.
    // A NULL lease: marked before the mark carried its grace.
    abandoned: db.prepare<[{ now: number; limit: number }], { id: string; object_key: string }>(`SELECT id, object_key FROM documents
      WHERE status = 'deleting' AND coalesce(lease_until_ms, 0) < @now LIMIT @limit`),
    // A scan of the documents, once at start (start.ts): NULL settings are the unrecorded ones (migration 11).
    outdated: db.prepare(`UPDATE documents SET status = 'stored', attempts = 0, error_code = NULL, error_message = NULL
      WHERE status = 'ready' AND NOT (coalesce(chunk_tokens, @defaultTokens) = @tokens AND coalesce(chunk_overlap, @defaultOverlap) = @overlap
        AND coalesce(embedding_model, @defaultModel) = @model)`),
    visible: db.prepare<[{ id: string; userId: string }], { claim: string | null; chunks_claim: string | null }>(`SELECT d.claim, d.chunks_claim
      FROM documents d JOIN tenants t ON t.id = d.tenant_id ${MEMBER_OF_TENANT} WHERE d.id = @id AND d.status <> 'deleting'`),
    requeue: db.prepare<[string]>(`UPDATE documents SET status = 'stored', claim = NULL, lease_until_ms = NULL, attempts = 0, chunks_claim = NULL,
      chunk_count = NULL, characters = NULL, pages = NULL, error_code = NULL, error_message = NULL WHERE id = ?`),
  };

  const search = chunkSearcher(db);
  const nearest = nearestSearcher(db);

  const removeChunks = chunkRemover(chunks);
  const sweep = (id: string, keep: string | null) => removeChunks(id, keep === null ? { all: true } : { but: keep });
  const sweepClaim = (id: string, claim: string) => removeChunks(id, { only: claim });

  const claim = db.transaction((leaseMs: number, maxAttempts: number) => {
    const at = now();
    const failed: string[] = [];
    for (const doc of q.expired.all({ now: at, max: maxAttempts }) as { id: string; attempts: number }[]) {
      q.fail.run({ id: doc.id, code: 'timeout', message: attemptsUsedUp(doc.attempts) });
      failed.push(doc.id);
    }
    const next = q.next.get({ now: at });
    if (!next) return { failed, taken: null };
    const token = randomUUID();
    q.take.run({ id: next.id, claim: token, until: at + leaseMs });
    return { failed, taken: { document: toDocument(q.byId.get(next.id)!), claim: token, attempt: next.attempts + 1 } };
  });

  const fail = db.transaction((id: string, token: string, code: string, message: string) => {
    if (!q.held.get({ id, claim: token })) return false;
    q.fail.run({ id, code, message });
    return true;
  });

  const reprocess = db.transaction((id: string, userId: string) => {
    const before = q.visible.get({ id, userId });
    if (!before) return null;
    q.requeue.run(id);
    return { document: toDocument(q.byId.get(id)!), stale: [before.chunks_claim, before.claim].filter((c): c is string => c !== null) };
  });

  return {
    async abandonedDeletes(limit) {
      return guard(() => q.abandoned.all({ now: now(), limit })).map((row) => ({ id: row.id, objectKey: row.object_key }));
    },
    async claimDocument({ leaseMs, maxAttempts }) {
      const { failed, taken } = await writeUnblocked(db, () => claim.immediate(leaseMs, maxAttempts));
      for (const id of failed) await sweep(id, null);
      return taken;
    },
    async renewClaim(documentId, token, leaseMs) {
      return (await writeUnblocked(db, () => q.renew.run({ id: documentId, claim: token, until: now() + leaseMs }))).changes > 0;
    },
    async completeDocument(documentId, token, result) {
      for (let i = 0; i < result.chunks.length; i += chunks.batch) {
        if (!(await chunks.insert(documentId, token, result.chunks.slice(i, i + chunks.batch)))) {
          await sweepClaim(documentId, token);
          return false;
        }
      }
      const { characters, pages, settings } = result;
      if (!(await chunks.finish(documentId, token, { chunks: result.chunks.length, characters, ...(pages === undefined ? {} : { pages }), ...(settings ? { settings } : {}) }))) {
        await sweepClaim(documentId, token);
        return false;
      }
      await sweep(documentId, token);
      return true;
    },
    async failDocument(documentId, token, error) {
      if (!(await writeUnblocked(db, () => fail.immediate(documentId, token, error.code, error.message)))) return false;
      await sweep(documentId, null);
      return true;
    },
    async reprocessDocument(id, userId) {
      const done = await writeUnblocked(db, () => reprocess.immediate(id, userId));
      if (!done) return null;
      // Only the chunks of the claims before the requeue: a worker may already have taken it again.
      for (const stale of done.stale) await sweepClaim(id, stale);
      return done.document;
    },
    async searchChunks(query) {
      return guard(() => search(query));
    },
    async nearestChunks(query) {
      return guard(() => nearest(query));
    },
    async requeueOutdated(current) {
      const u = UNRECORDED_SETTINGS;
      return guard(() => q.outdated.run({ tokens: current.chunkTokens, overlap: current.chunkOverlap, model: current.embeddingModel ?? '',
        defaultTokens: u.chunkTokens, defaultOverlap: u.chunkOverlap, defaultModel: u.embeddingModel })).changes;
    },
  };
}
