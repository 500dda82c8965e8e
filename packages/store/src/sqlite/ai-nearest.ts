import type { Database } from 'better-sqlite3';
import type { ChunkHit, VectorSearch } from '../port.js';
import { cosine, TopK, vectorOf } from '../vectors.js';
import { MEMBER_OF_TENANT } from './ai.js';
import { hitOf, type HitRow, SEARCHABLE } from './ai-search.js';

/**
 * The nearest chunks by cosine on SQLite: a brute-force pass over the vectors of the tenant's searchable documents
 * (those of the query's length: a model changed since keeps its vectors apart), streamed row by row and kept to the
 * best `limit`, then the hits read by id. Its cost grows with the tenant's chunks (docs/architecture.md).
 */
export function nearestSearcher(db: Database): (query: VectorSearch) => ChunkHit[] {
  const visible = db.prepare<[{ tenantId: string; userId: string }], { id: string }>(`SELECT t.id FROM tenants t ${MEMBER_OF_TENANT} WHERE t.id = @tenantId`);
  const vectors = (documents: string) => db.prepare<[{ tenantId: string; bytes: number; ids?: string }], { id: number; vector: Buffer }>(`
    SELECT c.id, c.vector FROM documents d JOIN chunks c ON c.document_id = d.id AND c.claim = d.chunks_claim
    WHERE d.tenant_id = @tenantId AND ${SEARCHABLE} AND c.vector IS NOT NULL AND length(c.vector) = @bytes ${documents}`);
  const all = vectors('');
  const some = vectors('AND d.id IN (SELECT value FROM json_each(@ids))');
  const rows = db.prepare<[{ ids: string }], Omit<HitRow, 'score'> & { id: number }>(`
    SELECT c.id, c.document_id, d.filename, c.chunk_index, c.text, c.start_offset, c.end_offset, c.page_first, c.page_last, c.page_breaks
    FROM chunks c JOIN documents d ON d.id = c.document_id AND d.chunks_claim = c.claim
    WHERE c.id IN (SELECT value FROM json_each(@ids)) AND ${SEARCHABLE}`);
  // One transaction: the pass and the reading see the same snapshot (a document deleted in between is in neither).
  const search = db.transaction((query: VectorSearch): ChunkHit[] => {
    if (query.limit <= 0 || !visible.get({ tenantId: query.tenantId, userId: query.userId })) return [];
    const params = { tenantId: query.tenantId, bytes: query.vector.byteLength };
    const candidates = query.documentIds ? some.iterate({ ...params, ids: JSON.stringify(query.documentIds) }) : all.iterate(params);
    const top = new TopK<number>(query.limit);
    for (const row of candidates) top.offer(row.id, cosine(query.vector, vectorOf(row.vector)));
    const best = top.best();
    const byId = new Map(rows.all({ ids: JSON.stringify(best.map((b) => b.item)) }).map((r) => [r.id, r]));
    return best.flatMap(({ item, similarity }) => {
      const row = byId.get(item);
      return row ? [hitOf({ ...row, score: similarity })] : [];
    });
  });
  return (query) => search(query);
}
