import type { Database } from 'better-sqlite3';
import type { ChunkHit, ChunkSearch } from '../port.js';
import { MEMBER_OF_TENANT } from './ai.js';

export interface HitRow {
  document_id: string;
  filename: string;
  chunk_index: number;
  text: string;
  start_offset: number;
  end_offset: number;
  page_first: number | null;
  page_last: number | null;
  page_breaks: string | null;
  score: number;
}

/**
 * The documents whose chunks answer: ready ones, and ones queued again by requeueOutdated whose earlier chunks
 * (`chunks_claim`) stand until the next completion; any other document has no `chunks_claim`.
 */
export const SEARCHABLE = `d.status IN ('ready', 'stored', 'processing')`;

/** A chunk row as a search hit. */
export const hitOf = (r: HitRow): ChunkHit => ({
  documentId: r.document_id, filename: r.filename, index: r.chunk_index, text: r.text, start: r.start_offset, end: r.end_offset,
  ...(r.page_first === null ? {} : { pages: [r.page_first, r.page_last ?? r.page_first] as [number, number] }),
  ...(r.page_breaks === null ? {} : { pageBreaks: JSON.parse(r.page_breaks) as number[] }), score: r.score,
});

/** The tenant id as the chunks' FTS5 `tenant` column holds it: its hex digits, one token. */
export const tenantToken = (tenantId: string): string => tenantId.replace(/-/g, '').toLowerCase();

/**
 * The FTS5 query of a search: the tenant's token in the `tenant` column AND any of the terms in `text`, each term
 * a quoted string (the terms are letters and digits only: packages/domain searchTerms; a quote is doubled all the
 * same), so nothing of the user's text is read as FTS5 syntax.
 */
export function ftsMatch(tenantId: string, terms: readonly string[]): string {
  const quoted = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
  return `tenant : "${tenantToken(tenantId)}" AND text : (${quoted})`;
}

/**
 * BM25 over the chunks of a tenant's searchable documents (FTS5's bm25() with the `tenant` column weighted 0, so only the
 * text ranks; negated: higher is better). The tenant must be one the user can see; the document ready.
 */
export function chunkSearcher(db: Database): (query: ChunkSearch) => ChunkHit[] {
  const visible = db.prepare<[{ tenantId: string; userId: string }], { id: string }>(`SELECT t.id FROM tenants t ${MEMBER_OF_TENANT} WHERE t.id = @tenantId`);
  const select = (documents: string) => db.prepare<[{ match: string; tenantId: string; limit: number; ids?: string }], HitRow>(`
    SELECT c.document_id, d.filename, c.chunk_index, c.text, c.start_offset, c.end_offset, c.page_first, c.page_last, c.page_breaks,
      -bm25(chunks_fts, 0.0, 1.0) AS score
    FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id AND d.chunks_claim = c.claim
    WHERE chunks_fts MATCH @match AND d.tenant_id = @tenantId AND ${SEARCHABLE} ${documents}
    ORDER BY bm25(chunks_fts, 0.0, 1.0), c.document_id, c.chunk_index LIMIT @limit`);
  const all = select('');
  const some = select('AND c.document_id IN (SELECT value FROM json_each(@ids))');
  return (query) => {
    if (query.terms.length === 0 || !visible.get({ tenantId: query.tenantId, userId: query.userId })) return [];
    const params = { match: ftsMatch(query.tenantId, query.terms), tenantId: query.tenantId, limit: query.limit };
    const rows = query.documentIds ? some.all({ ...params, ids: JSON.stringify(query.documentIds) }) : all.all(params);
    return rows.map(hitOf);
  };
}
