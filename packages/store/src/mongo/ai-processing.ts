import { newTimeOrderedId } from '@lantern/domain';
import type { ProcessingStore } from '../port.js';
import { attemptsUsedUp, UNRECORDED_SETTINGS } from '../processing.js';
import { cosine, TopK } from '../vectors.js';
import { insertIfAbsent } from './bulk.js';
import { DELETING, removeChunks, tenantVisibility, toDocument } from './ai.js';
import { SEARCHABLE, hitOf, searchChunksByPostings } from './chunk-search.js';
import type { ChunkDoc, RecordStoreDeps } from './collections.js';
import { POSTINGS_LAYOUT, chunkId, writePostings } from './postings.js';

/**
 * The processing queue and the chunks on MongoDB (port.ts, ProcessingStore), without transactions:
 * - a claim is one findOneAndUpdate on the oldest waiting document, so two workers never take the same one;
 * - a completion writes its chunks first, each under its claim (in its `_id` too: no other claim's write can
 *   replace it), then flips the document to `ready` with `chunksClaim` set to its claim only if the claim still
 *   holds, and then removes the chunks of every other claim; if the claim was lost (taken over, reprocessed,
 *   deleted), it takes its own chunks back;
 * - the chunks' postings (postings.ts) are written with them, under the same claim, and removed with them;
 * - search ranks by BM25 from the postings (chunk-search.ts), keeping only the postings of searchable documents
 *   whose `chunksClaim` is the posting's claim: a leftover of a slow or lost worker is never answered. Searchable:
 *   `ready` only (contract.md); requeueOutdated keeps `chunksClaim`, the earlier chunks, until the next completion;
 * - the nearest chunks are a brute-force pass over the tenant's vectors (a cursor, kept to the best few).
 */
export function createProcessingStore({ c, guard, access, now }: RecordStoreDeps): ProcessingStore {
  const held = (id: string, claim: string) => ({ _id: id, claim, status: 'processing' });

  const visibleTenant = tenantVisibility({ c, access });
  return {
    // On status_created (indexes.ts): withdrawn documents are few. No lease: marked before the mark carried its grace.
    abandonedDeletes: (limit) => guard.run(async () =>
      (await c.documents.find({ status: DELETING, $or: [{ leaseUntil: { $lt: new Date(now()) } }, { leaseUntil: { $exists: false } }] },
        { projection: { _id: 1, objectKey: 1 }, limit }).toArray()).map((d) => ({ id: d._id, objectKey: d.objectKey }))),

    claimDocument: ({ leaseMs, maxAttempts }) => guard.run(async () => {
      const at = new Date(now());
      // Documents whose lease ran out after their last attempt: failed, not taken again.
      for (const doc of await c.documents.find({ status: 'processing', leaseUntil: { $lt: at }, attempts: { $gte: maxAttempts } }, { projection: { attempts: 1 } }).toArray()) {
        const failed = await c.documents.updateOne({ _id: doc._id, status: 'processing', leaseUntil: { $lt: at } },
          { $set: { status: 'failed', error: { code: 'timeout', message: attemptsUsedUp(doc.attempts ?? maxAttempts) } }, $unset: { claim: '', leaseUntil: '' } });
        if (failed.modifiedCount > 0) await removeChunks(c, doc._id);
      }
      // Time-ordered: the chunks and postings keyed by it land at the end of their indexes (postings.ts).
      const claim = newTimeOrderedId(now());
      const taken = await c.documents.findOneAndUpdate(
        { $or: [{ status: 'stored' }, { status: 'processing', leaseUntil: { $lt: at }, attempts: { $lt: maxAttempts } }] },
        { $set: { status: 'processing', claim, leaseUntil: new Date(at.getTime() + leaseMs) }, $inc: { attempts: 1 }, $unset: { error: '' } },
        { sort: { createdAt: 1, seq: 1 }, returnDocument: 'after' },
      );
      return taken === null ? null : { document: toDocument(taken), claim, attempt: taken.attempts ?? 1 };
    }),

    renewClaim: (id, claim, leaseMs) => guard.run(async () =>
      (await c.documents.updateOne(held(id, claim), { $set: { leaseUntil: new Date(now() + leaseMs) } })).matchedCount > 0),

    completeDocument: (id, claim, result) => guard.run(async () => {
      const doc = await c.documents.findOne(held(id, claim), { projection: { tenantId: 1 } });
      if (doc === null) return false;
      // Inserts, not upserts (an upsert is a query first): a chunk's `_id` holds its claim, so a repeat of this
      // completion writes the same chunks, and keeps the first.
      await insertIfAbsent(c.chunks, result.chunks.map((chunk): ChunkDoc => ({
        _id: chunkId(claim, chunk.index), documentId: id, tenantId: doc.tenantId, index: chunk.index, text: chunk.text, start: chunk.start, end: chunk.end,
        ...(chunk.pages ? { pages: chunk.pages } : {}), ...(chunk.pageBreaks ? { pageBreaks: chunk.pageBreaks } : {}), ...(chunk.vector ? { vector: Array.from(chunk.vector) } : {}), claim,
      })));
      const postings = await writePostings(c, { tenantId: doc.tenantId, documentId: id, claim }, result.chunks);
      const ready = await c.documents.updateOne(held(id, claim), {
        $set: { status: 'ready', chunksClaim: claim, chunkCount: result.chunks.length, chunkWords: postings.words, postingsLayout: POSTINGS_LAYOUT, characters: result.characters, ...(result.pages === undefined ? {} : { pages: result.pages }),
          ...(result.settings ? { processedWith: { chunkTokens: result.settings.chunkTokens, chunkOverlap: result.settings.chunkOverlap, embeddingModel: result.settings.embeddingModel ?? '' } } : {}) },
        $unset: { claim: '', leaseUntil: '', error: '', ...(result.pages === undefined ? { pages: '' } : {}), ...(result.settings ? {} : { processedWith: '' }) },
      });
      if (ready.modifiedCount > 0) {
        await removeChunks(c, id, { keep: claim });
        return true;
      }
      // Its own postings by their ids first: a withdrawal may have taken its list already.
      await postings.takeBack();
      await removeChunks(c, id, { only: [claim] });
      return false;
    }),

    failDocument: (id, claim, error) => guard.run(async () => {
      const failed = await c.documents.updateOne(held(id, claim), { $set: { status: 'failed', error }, $unset: { claim: '', leaseUntil: '', chunksClaim: '' } });
      if (failed.modifiedCount === 0) return false;
      await removeChunks(c, id);
      return true;
    }),

    reprocessDocument: (id, userId) => guard.run(async () => {
      const doc = await c.documents.findOne({ _id: id, status: { $ne: DELETING } }, { projection: { tenantId: 1 } });
      if (doc === null || (await visibleTenant(doc.tenantId, userId)) === null) return null;
      // Back in the queue first (search keeps only ready documents), then its chunks go.
      const before = await c.documents.findOneAndUpdate({ _id: id, status: { $ne: DELETING } }, {
        $set: { status: 'stored', attempts: 0 }, $unset: { claim: '', leaseUntil: '', error: '', chunkCount: '', chunkWords: '', postingsLayout: '', characters: '', pages: '', chunksClaim: '' },
      }, { returnDocument: 'before' });
      if (before === null) return null;
      // Only the chunks of the claims before the requeue: a worker may already have taken it again and written its own.
      const stale = [before.chunksClaim, before.claim].filter((claim): claim is string => claim !== undefined);
      if (stale.length > 0) await removeChunks(c, id, { only: stale });
      const { attempts: _a, claim: _c, leaseUntil: _l, error: _e, chunkCount: _n, chunkWords: _w, postingsLayout: _b, characters: _h, pages: _p, chunksClaim: _k, ...rest } = before;
      return toDocument({ ...rest, status: 'stored' });
    }),

    searchChunks: (query) => guard.run(async () => {
      if (query.terms.length === 0 || query.limit <= 0 || (await visibleTenant(query.tenantId, query.userId)) === null) return [];
      return searchChunksByPostings(c, query);
    }),

    nearestChunks: (query) => guard.run(async () => {
      if (query.limit <= 0 || (await visibleTenant(query.tenantId, query.userId)) === null) return [];
      // The tenant's searchable documents first (their chunks' claims), then their vectors of the query's length.
      const docs = await c.documents.find({ tenantId: query.tenantId, status: { $in: SEARCHABLE }, chunksClaim: { $exists: true },
        ...(query.documentIds ? { _id: { $in: query.documentIds } } : {}) }, { projection: { filename: 1, chunksClaim: 1 } }).toArray();
      if (docs.length === 0) return [];
      const byId = new Map(docs.map((d) => [d._id, d]));
      const top = new TopK<string>(query.limit);
      const cursor = c.chunks.find({ tenantId: query.tenantId, documentId: { $in: docs.map((d) => d._id) }, vector: { $size: query.vector.length } },
        { projection: { documentId: 1, claim: 1, vector: 1 } });
      for await (const chunk of cursor) {
        if (byId.get(chunk.documentId)?.chunksClaim === chunk.claim) top.offer(chunk._id, cosine(query.vector, chunk.vector!));
      }
      const best = top.best();
      const found = new Map((await c.chunks.find({ _id: { $in: best.map((b) => b.item) } }, { projection: { vector: 0 } }).toArray()).map((h) => [h._id, h]));
      return best.flatMap(({ item, similarity }) => {
        const h = found.get(item);
        return h ? [hitOf(h, byId.get(h.documentId)!.filename, similarity)] : [];
      });
    }),

    requeueOutdated: (current) => guard.run(async () => {
      const u = UNRECORDED_SETTINGS;
      const same = { $and: [
        { $eq: [{ $ifNull: ['$processedWith.chunkTokens', u.chunkTokens] }, current.chunkTokens] },
        { $eq: [{ $ifNull: ['$processedWith.chunkOverlap', u.chunkOverlap] }, current.chunkOverlap] },
        { $eq: [{ $ifNull: ['$processedWith.embeddingModel', u.embeddingModel] }, current.embeddingModel ?? ''] },
      ] };
      // chunksClaim stays (the earlier chunks, out of search meanwhile) until the new ones replace them. A document
      // whose postings were written in another layout (postings.ts), or none (indexed by mongod's text index before the
      // postings), is made again: search skips it meanwhile.
      const queued = await c.documents.updateMany({ status: 'ready', $or: [{ $expr: { $not: [same] } }, { postingsLayout: { $ne: POSTINGS_LAYOUT } }] }, { $set: { status: 'stored', attempts: 0 }, $unset: { error: '' } });
      return queued.modifiedCount;
    }),
  };
}
