import type { Database } from 'better-sqlite3';
import { highlightsOf } from '@lantern/domain';
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
 * The documents whose chunks answer: ready ones only (contract.md). One queued again by requeueOutdated keeps its
 * earlier chunks (`chunks_claim`) until the next completion replaces them, but is out of search meanwhile.
 */
export const SEARCHABLE = `d.status = 'ready'`;

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
  return `tenant : "${tenantToken(tenantId)}" AND ${textMatch(terms)}`;
}

/** Any of the terms in `text`, in every tenant's chunks (the search's joins keep the tenant's: searchPlan). */
function textMatch(terms: readonly string[]): string {
  return `text : (${terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ')})`;
}

/**
 * The most chunks one search scores with bm25(). FTS5 scores every row a query matches before it can sort them
 * (about 4 us a row here): a word found in 100,000 chunks took 150-500 ms. Under this budget the ranking is exact;
 * above it, see searchPlan.
 */
export const SCORED_CHUNKS = 5_000;

interface Step {
  match: string;
  /** The newest chunks that match, scored here from their text rather than by bm25() (see searchPlan). */
  newest?: boolean;
}

/**
 * How a search ranks, in steps whose answers are taken in order until the limit is reached:
 * - the query's words found in at most `scored` (SCORED_CHUNKS) chunks of the tenant together: one exact BM25 step;
 * - else the rarest words while their matches add up to at most `scored` (each counted up to that bound) rank
 *   first, exact over their chunks; their chunks hold the query's most telling words (BM25's IDF is highest for
 *   them), and the service's ranking then raises those that also hold the others (coverage, proximity);
 * - then, to fill, the newest chunks that hold any word, as many as the limit asks, scored by how often they hold
 *   the words for their length (BM25's term frequency part; the IDF of words this common is near 0 anyway): a query
 *   made only of words found in more than `scored` chunks answers with the newest of them, not the best of all
 *   (docs/architecture.md, known limits).
 * Leaving the common words out of bm25() spares it its IDF count of their whole posting lists (tens of ms each).
 * For the same reason a bm25() step whose words are in at most `scored` chunks of all tenants together leaves the
 * tenant's token out of its MATCH (its IDF would count every chunk of the tenant: 10-30 ms at 120,000): the
 * step's join on the documents' tenant keeps the search to the tenant, and few rows of others are read.
 */
function searchPlan(scored: number, count: (match: string) => number, tenantId: string, terms: readonly string[]): Step[] {
  const whole = ftsMatch(tenantId, terms);
  const ranked = (words: readonly string[]): Step => {
    const everyone = textMatch(words);
    return { match: count(everyone) <= scored ? everyone : ftsMatch(tenantId, words) };
  };
  if (count(whole) <= scored) return [ranked(terms)];
  const byRarity = terms.map((term) => ({ term, n: count(ftsMatch(tenantId, [term])) })).sort((a, b) => a.n - b.n);
  const selective: string[] = [];
  let sum = 0;
  for (const { term, n } of byRarity) {
    if (sum + n > scored) break;
    selective.push(term);
    sum += n;
  }
  const steps: Step[] = selective.length > 0 ? [ranked(selective)] : [];
  steps.push({ match: whole, newest: true });
  return steps;
}

/**
 * BM25 over the chunks of a tenant's ready documents (FTS5's bm25() with the `tenant` column weighted 0, so only the
 * text ranks; negated: higher is better), as searchPlan bounds it. The tenant must be one the user can see; the
 * document ready. The ranking reads only ids and scores; the text is read for the chunks answered.
 */
export function chunkSearcher(db: Database, scored = SCORED_CHUNKS): (query: ChunkSearch) => ChunkHit[] {
  const visible = db.prepare<[{ tenantId: string; userId: string }], { id: string }>(`SELECT t.id FROM tenants t ${MEMBER_OF_TENANT} WHERE t.id = @tenantId`);
  const counter = db.prepare<[{ match: string; cap: number }], number>('SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH @match LIMIT @cap)').pluck();
  type RankParams = { match: string; tenantId: string; limit: number; ids?: string };
  const rank = (documents: string) => db.prepare<[RankParams], { id: number; score: number }>(`
    SELECT c.id, -bm25(chunks_fts, 0.0, 1.0) AS score
    FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id AND d.chunks_claim = c.claim
    WHERE chunks_fts MATCH @match AND d.tenant_id = @tenantId AND ${SEARCHABLE} ${documents}
    ORDER BY bm25(chunks_fts, 0.0, 1.0), c.document_id, c.chunk_index LIMIT @limit`);
  const newest = (documents: string) => db.prepare<[RankParams], { id: number; score: number }>(`
    SELECT c.id, 0 AS score
    FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN documents d ON d.id = c.document_id AND d.chunks_claim = c.claim
    WHERE chunks_fts MATCH @match AND d.tenant_id = @tenantId AND d.status = 'ready' ${documents}
    ORDER BY chunks_fts.rowid DESC LIMIT @limit`);
  const some = 'AND c.document_id IN (SELECT value FROM json_each(@ids))';
  const ranks = { all: rank(''), some: rank(some), newestAll: newest(''), newestSome: newest(some) };
  const details = db.prepare<[string], Omit<HitRow, 'score'> & { id: number }>(`
    SELECT c.id, c.document_id, d.filename, c.chunk_index, c.text, c.start_offset, c.end_offset, c.page_first, c.page_last, c.page_breaks
    FROM chunks c JOIN documents d ON d.id = c.document_id AND d.chunks_claim = c.claim
    WHERE c.id IN (SELECT value FROM json_each(?)) AND d.status = 'ready'`);
  const count = (match: string) => counter.get({ match, cap: scored + 1 }) ?? 0;
  // One transaction: the ranking and the reading see the same snapshot (a document deleted in between is in neither).
  const search = db.transaction((query: ChunkSearch): ChunkHit[] => {
    if (query.terms.length === 0 || !visible.get({ tenantId: query.tenantId, userId: query.userId })) return [];
    const ranked = new Map<number, number | undefined>();
    for (const step of searchPlan(scored, count, query.tenantId, query.terms)) {
      const params = { match: step.match, tenantId: query.tenantId, limit: query.limit };
      const statement = step.newest ? (query.documentIds ? ranks.newestSome : ranks.newestAll) : (query.documentIds ? ranks.some : ranks.all);
      const rows = statement.all(query.documentIds ? { ...params, ids: JSON.stringify(query.documentIds) } : params);
      for (const r of rows) if (ranked.size < query.limit && !ranked.has(r.id)) ranked.set(r.id, step.newest ? undefined : r.score);
      if (ranked.size >= query.limit) break;
    }
    const rows = new Map(details.all(JSON.stringify([...ranked.keys()])).map((r) => [r.id, r]));
    const hits = [...ranked].flatMap(([id, score]) => {
      const r = rows.get(id);
      // The newest step's chunks (score undefined) are scored by scoreNewest below.
      return r ? [{ ...hitOf({ ...r, score: 0 }), score }] : [];
    });
    return scoreNewest(hits, query.terms);
  });
  return (query) => search(query);
}

/** Keeps the newest chunks' scores below those bm25() gives the first steps' chunks (but for words in over half the index). */
const NEWEST_WEIGHT = 0.001;

/**
 * Scores the chunks of the last step (score undefined) by BM25's term-frequency part over their own lengths, times
 * NEWEST_WEIGHT, and sorts them after the others, best first.
 */
function scoreNewest(hits: Array<Omit<ChunkHit, 'score'> & { score: number | undefined }>, terms: readonly string[]): ChunkHit[] {
  const newest = hits.filter((h) => h.score === undefined);
  if (newest.length === 0) return hits as ChunkHit[];
  const average = newest.reduce((sum, h) => sum + h.text.length, 0) / newest.length;
  const scored = newest.map((h) => {
    const held = highlightsOf(h.text, terms).length;
    return { ...h, score: NEWEST_WEIGHT * ((held * 2.2) / (held + 1.2 * (0.25 + (0.75 * h.text.length) / average))) };
  }).sort((a, b) => b.score - a.score);
  return [...(hits.filter((h) => h.score !== undefined) as ChunkHit[]), ...scored];
}
