import type { TokenService } from '@lantern/auth';
import { errors, highlightsOf, schemas, searchTerms, termSpan, validatorFor } from '@lantern/domain';
import { jsonBody, requireUser, requiredText, userIdOf } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { ChunkHit, Store, StoredDocument } from '@lantern/store';
import { Router } from 'express';
import type { AnnounceDocument } from './processing/events.js';
import type { Embedder } from './search/embeddings.js';
import { fuseByReciprocalRank } from './search/rank-fusion.js';

export type KnowledgeStore = Pick<Store, 'getTenant' | 'getDocument' | 'reprocessDocument' | 'searchChunks' | 'nearestChunks'>;

export interface KnowledgeDeps {
  store: KnowledgeStore;
  tokens: TokenService;
  /** Announces a reprocessed document to the document workers (processing/events.ts). */
  announce?: AnnounceDocument;
  /** Semantic search's query client (search/semantic.ts `queries`); absent: search is lexical only. */
  queryEmbedder?: Embedder;
  /** Where a search that fell back to lexical says why. */
  logger?: Logger;
}

const searchBody = validatorFor<{ query: string; limit?: number; documentIds?: string[] }>(schemas.ai.searchBody.$id);
/** How many of the index's best hits are ranked again here, per result asked for. */
const CANDIDATES_PER_RESULT = 4;

/** The public document record: everything but the object key. */
export function publicDocument({ objectKey: _key, ...doc }: StoredDocument) {
  return doc;
}

/**
 * The page a hit's first highlight stands on (contract: `page`): the chunk's first page, plus the pages that begin
 * before that highlight within it.
 */
function pageOf(hit: ChunkHit, highlights: [number, number][]): number | undefined {
  if (!hit.pages) return undefined;
  const at = highlights[0]?.[0] ?? 0;
  return hit.pages[0] + (hit.pageBreaks ?? []).filter((start) => start <= at).length;
}

/**
 * The ranking of a hit: the index's relevance (BM25), raised by how many of the query's
 * words the chunk holds and by how close together they stand (all of them in a row doubles it; scattered across
 * ten words, by a fifth), so that chunks holding the words next to each other rank above scattered ones.
 */
function rankOf(hit: ChunkHit, terms: readonly string[]): number {
  const { held, span } = termSpan(hit.text, terms);
  const coverage = terms.length === 0 ? 0 : held / terms.length;
  const proximity = held > 1 ? held / span : 0;
  return hit.score * (1 + coverage) * (1 + proximity);
}

/** The query's vector, or undefined when the provider cannot give it (the search is then lexical, and says so in the log). */
async function queryVector(embedder: Embedder | undefined, query: string, logger: Logger | undefined): Promise<Float32Array | undefined> {
  if (!embedder) return undefined;
  try {
    return (await embedder.embed([query]))[0];
  } catch (err) {
    logger?.warn('semantic search unavailable, answering lexically', { error: (err as Error).message });
    return undefined;
  }
}

/** GET /ai/docs/{docId}, POST /ai/docs/{docId}/reprocess and POST /ai/search?TenantId=. */
export function createKnowledgeRouter({ store, tokens, announce, queryEmbedder, logger }: KnowledgeDeps): Router {
  const router = Router();
  const auth = requireUser(tokens);

  router.get('/ai/docs/:docId', auth, async (req, res) => {
    const doc = await store.getDocument(String(req.params['docId'] ?? ''), userIdOf(res));
    if (!doc) throw errors.notFound('document');
    res.json(publicDocument(doc));
  });

  router.post('/ai/docs/:docId/reprocess', auth, async (req, res) => {
    const doc = await store.reprocessDocument(String(req.params['docId'] ?? ''), userIdOf(res));
    if (!doc) throw errors.notFound('document');
    announce?.(doc);
    res.status(202).json(publicDocument(doc));
  });

  router.post('/ai/search', auth, jsonBody({ limit: 64 * 1024 }), async (req, res) => {
    const tenantId = requiredText(req, 'TenantId');
    const body = searchBody.assert(req.body);
    // A tenant the user cannot see answers as one that does not exist.
    if (!(await store.getTenant(tenantId, userIdOf(res)))) throw errors.notFound('tenant');
    const limit = body.limit ?? 10;
    const terms = searchTerms(body.query);
    const scope = { userId: userIdOf(res), tenantId, limit: limit * CANDIDATES_PER_RESULT, ...(body.documentIds ? { documentIds: body.documentIds } : {}) };
    // The query's vector first (up to 5 s): the store's reads come after it, so a document deleted meanwhile is in none.
    const vector = await queryVector(queryEmbedder, body.query, logger);
    const hits = await store.searchChunks({ ...scope, terms });
    const lexical = hits.map((hit) => ({ hit, score: rankOf(hit, terms) }))
      .sort((a, b) => b.score - a.score || b.hit.score - a.hit.score);
    let ranked = lexical.slice(0, limit);
    if (vector) {
      // Hybrid: the lexical ranking and the nearest chunks (a chunk pointing away from the query is no match) fused
      // by reciprocal rank (k = 60); the score is the fused one.
      const near = (await store.nearestChunks({ ...scope, vector })).filter((hit) => hit.score > 0);
      ranked = fuseByReciprocalRank([lexical.map((r) => r.hit), near], (hit) => `${hit.documentId}:${hit.index}`)
        .slice(0, limit).map((f) => ({ hit: f.item, score: f.score }));
    }
    // Scores relative to the best (1): the index's raw scores carry statistics of the whole index, every tenant's
    // documents included (how many chunks hold a word), which a tenant must not be able to watch change.
    const best = ranked[0]?.score ?? 1;
    res.json({
      query: body.query,
      results: ranked.map(({ hit, score }) => {
        const highlights = highlightsOf(hit.text, terms);
        const page = pageOf(hit, highlights);
        return {
          documentId: hit.documentId, filename: hit.filename, chunkIndex: hit.index,
          ...(page === undefined ? {} : { page, pages: hit.pages }), score: best > 0 ? score / best : 0, text: hit.text, highlights,
        };
      }),
    });
  });
  return router;
}
