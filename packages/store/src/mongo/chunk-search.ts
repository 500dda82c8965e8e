import type { ChunkHit, ChunkSearch } from '../port.js';
import { TopK } from '../vectors.js';
import type { ChunkDoc, Collections, DocumentDoc } from './collections.js';
import { POSTINGS_LAYOUT, bucketRange, bucketOf, chunkId, entryOwner, termPostings } from './postings.js';
import type { PostingDoc } from './postings.js';

/**
 * BM25's parameters and IDF as SQLite FTS5's bm25() (k1 1.2, b 0.75), so that both stores rank alike (SQLite's
 * statistics are its whole index's, these the tenant's).
 */
const K1 = 1.2;
const B = 0.75;

type Searchable = Pick<DocumentDoc, '_id' | 'filename' | 'chunksClaim' | 'chunkCount' | 'chunkWords'>;
/** The statuses whose chunks answer (contract.md: `ready` only). */
export const SEARCHABLE = ['ready'];

export const hitOf = (h: ChunkDoc, filename: string, score: number): ChunkHit => ({
  documentId: h.documentId, filename, index: h.index, text: h.text, start: h.start, end: h.end, ...(h.pages ? { pages: h.pages } : {}),
  ...(h.pageBreaks ? { pageBreaks: h.pageBreaks } : {}), score,
});

/**
 * Lexical search on MongoDB (postings.ts): BM25 over the chunks of the tenant's ready documents, from their
 * postings, with the statistics of that tenant alone (its chunk count, their average length, each term's chunk
 * count). A term's postings are read from its bucket's entries in the tenant (at most one per document), however
 * many chunks hold a common word. Entries of another claim than the document's `chunksClaim` (a leftover of a
 * slow or lost worker, a reprocess under way) are skipped. The texts are read for the chunks answered only, and
 * their documents checked again after: a document withdrawn meanwhile is not answered.
 */
export async function searchChunksByPostings(c: Collections, query: ChunkSearch): Promise<ChunkHit[]> {
  // Only documents whose postings are of the current layout (others wait to be made again; their entries, read
  // in the same ranges, are of no document here and are skipped).
  const docs = await c.documents.find({ tenantId: query.tenantId, status: { $in: SEARCHABLE }, chunksClaim: { $exists: true }, postingsLayout: POSTINGS_LAYOUT },
    { projection: { filename: 1, chunksClaim: 1, chunkCount: 1, chunkWords: 1 }, hint: 'tenant_status' }).toArray() as Searchable[];
  const byId = new Map(docs.map((d) => [d._id, d]));
  let chunkTotal = 0;
  let wordTotal = 0;
  for (const d of docs) {
    chunkTotal += d.chunkCount ?? 0;
    wordTotal += d.chunkWords ?? 0;
  }
  if (chunkTotal === 0) return [];
  const averageLength = Math.max(1, wordTotal / chunkTotal);
  const wanted = query.documentIds ? new Set(query.documentIds) : undefined;
  // Per document answered, its chunks' scores by index.
  const scores = new Map<string, Map<number, number>>();
  // One read per bucket: terms that share one read it once.
  const buckets = new Map<number, Promise<PostingDoc[]>>();
  const entriesOf = (bucket: number) => {
    let read = buckets.get(bucket);
    if (read === undefined) buckets.set(bucket, (read = c.postings.find({ _id: bucketRange(query.tenantId, bucket) }).toArray()));
    return read;
  };
  await Promise.all(query.terms.map(async (term) => {
    const entries = await entriesOf(bucketOf(term));
    const held: { documentId: string; entries: Uint32Array }[] = [];
    let chunksHolding = 0;
    for (const entry of entries) {
      const { documentId, claim } = entryOwner(entry._id);
      if (byId.get(documentId)?.chunksClaim !== claim) continue;
      const postings = termPostings(entry, term);
      if (postings === undefined) continue;
      chunksHolding += postings.length / 3;
      if (wanted === undefined || wanted.has(documentId)) held.push({ documentId, entries: postings });
    }
    // The IDF as FTS5's bm25() has it: a word in more than half the chunks weighs next to nothing, never less.
    const idf = Math.max(1e-6, Math.log((chunkTotal - chunksHolding + 0.5) / (chunksHolding + 0.5)));
    for (const { documentId, entries } of held) {
      let chunks = scores.get(documentId);
      if (chunks === undefined) scores.set(documentId, (chunks = new Map()));
      for (let i = 0; i < entries.length; i += 3) {
        const [index, count, length] = [entries[i]!, entries[i + 1]!, entries[i + 2]!];
        const part = idf * ((count * (K1 + 1)) / (count + K1 * (1 - B + (B * length) / averageLength)));
        chunks.set(index, (chunks.get(index) ?? 0) + part);
      }
    }
  }));
  // The best, in a fixed order among equal scores: by document id, then index.
  const top = new TopK<{ documentId: string; index: number }>(query.limit);
  for (const documentId of [...scores.keys()].sort()) {
    const chunks = scores.get(documentId)!;
    for (const index of [...chunks.keys()].sort((a, b) => a - b)) top.offer({ documentId, index }, chunks.get(index)!);
  }
  const best = top.best();
  if (best.length === 0) return [];
  const ids = best.map(({ item }) => chunkId(byId.get(item.documentId)!.chunksClaim!, item.index));
  const texts = new Map((await c.chunks.find({ _id: { $in: ids } }, { projection: { vector: 0 } }).toArray()).map((h) => [h._id, h]));
  // Still searchable with the same chunks, now that the texts are read.
  const still = new Map((await c.documents.find({ _id: { $in: [...new Set(best.map(({ item }) => item.documentId))] }, status: { $in: SEARCHABLE } },
    { projection: { chunksClaim: 1 } }).toArray()).map((d) => [d._id, d.chunksClaim]));
  return best.flatMap(({ item, similarity }, i) => {
    const chunk = texts.get(ids[i]!);
    const doc = byId.get(item.documentId)!;
    return chunk !== undefined && still.get(item.documentId) === doc.chunksClaim ? [hitOf(chunk, doc.filename, similarity)] : [];
  });
}
