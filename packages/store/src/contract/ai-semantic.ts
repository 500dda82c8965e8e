import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { ChunkInput, ProcessingSettings, Store } from '../port.js';
import { T0, makeWorld } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

const LONG = 60_000;
const SETTINGS: ProcessingSettings = { chunkTokens: 800, chunkOverlap: 400, embeddingModel: 'fake-64' };

/** A unit vector of `length` dimensions pointing mostly along `axis` (a little along the next one). */
function unit(axis: number, length = 4, lean = 0): Float32Array {
  const v = new Float32Array(length);
  v[axis % length] = 1;
  v[(axis + 1) % length] = lean;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const chunk = (index: number, text: string, vector?: Float32Array): ChunkInput => ({ index, text, start: index * 100, end: index * 100 + text.length, ...(vector ? { vector } : {}) });

/** A tenant, and a helper that stores one ready document of these chunks with these settings. */
async function tenantOf(store: Store, name = 'Support') {
  const w = await makeWorld(store, `${name.toLowerCase()}-${newId().slice(0, 8)}`);
  const tenant = await store.createTenant({ name, organizationId: w.org.id });
  let seq = 0;
  async function ready(chunks: ChunkInput[], settings?: ProcessingSettings): Promise<string> {
    const id = newId();
    await store.createDocument({
      id, tenantId: tenant.id, filename: `${name.toLowerCase()}-${seq}.txt`, contentType: 'text/plain; charset=utf-8', size: 10, sha256: 'c'.repeat(64),
      status: 'stored', createdAt: toIso(T0 + seq++), objectKey: `tenants/${tenant.id}/documents/${id}`,
    });
    const taken = (await store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
    expect(taken.document.id).toBe(id);
    expect(await store.completeDocument(id, taken.claim, { characters: 100, chunks, ...(settings ? { settings } : {}) })).toBe(true);
    return id;
  }
  return { w, tenant, ready };
}

/** Chunk vectors and nearest-chunk search, and the settings a document was processed with (port.ts, ProcessingStore). */
export function aiSemanticContract(ctx: StoreContext): void {
  describe('semantic search and processing settings', () => {
    it('finds the nearest chunks by cosine within the tenant, best first, with the similarity as score and no vector', async () => {
      const { w, tenant, ready } = await tenantOf(ctx.store);
      const a = await ready([chunk(0, 'north', unit(0)), chunk(1, 'east', unit(1)), chunk(2, 'no vector')], SETTINGS);
      const b = await ready([chunk(0, 'north by east', unit(0, 4, 0.5)), chunk(1, 'other model', unit(0, 8))], SETTINGS);
      const outsider = await tenantOf(ctx.store, 'Other');
      await outsider.ready([chunk(0, 'their north', unit(0))], SETTINGS);
      const near = (vector: Float32Array, limit: number, documentIds?: string[]) =>
        ctx.store.nearestChunks({ userId: w.user.id, tenantId: tenant.id, vector, limit, ...(documentIds ? { documentIds } : {}) });
      const hits = await near(unit(0), 10);
      // Only vectors of the query's length are compared: the 8-dimension one is left out, as the chunk without one.
      expect(hits.map((h) => [h.documentId, h.text])).toEqual([[a, 'north'], [b, 'north by east'], [a, 'east']]);
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(hits[1]!.score).toBeCloseTo(1 / Math.hypot(1, 0.5), 5);
      expect(hits[2]!.score).toBeCloseTo(0, 5);
      expect(hits[0]).toEqual({ documentId: a, filename: 'support-0.txt', index: 0, text: 'north', start: 0, end: 5, score: expect.any(Number) });
      expect((await near(unit(0), 1)).map((h) => h.text)).toEqual(['north']);
      expect((await near(unit(0), 10, [b])).map((h) => h.text)).toEqual(['north by east']);
      expect((await near(unit(0, 8), 10)).map((h) => h.text)).toEqual(['other model']);
      // A user who cannot see the tenant finds nothing.
      expect(await ctx.store.nearestChunks({ userId: outsider.w.user.id, tenantId: tenant.id, vector: unit(0), limit: 5 })).toEqual([]);
    });

    it('keeps only the current claim\'s vectors: a reprocess or a delete takes them out of the nearest chunks at once', async () => {
      const { w, tenant, ready } = await tenantOf(ctx.store);
      const a = await ready([chunk(0, 'alpha', unit(0))], SETTINGS);
      const b = await ready([chunk(0, 'beta', unit(0, 4, 0.1))], SETTINGS);
      const near = () => ctx.store.nearestChunks({ userId: w.user.id, tenantId: tenant.id, vector: unit(0), limit: 5 });
      expect((await near()).map((h) => h.text)).toEqual(['alpha', 'beta']);
      await ctx.store.reprocessDocument(a, w.user.id);
      expect((await near()).map((h) => h.text)).toEqual(['beta']);
      const again = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect(await ctx.store.completeDocument(a, again.claim, { characters: 5, chunks: [chunk(0, 'alpha again', unit(0))], settings: SETTINGS })).toBe(true);
      expect((await near()).map((h) => h.text)).toEqual(['alpha again', 'beta']);
      expect(await ctx.store.withdrawDocument(b, 60_000)).toBe(true);
      expect((await near()).map((h) => h.text)).toEqual(['alpha again']);
    });

    it('queues again the ready documents made with other settings; the unrecorded ones count as 800/400 without vectors', async () => {
      const { w, tenant, ready } = await tenantOf(ctx.store);
      const plain = { chunkTokens: 800, chunkOverlap: 400 };
      const unrecorded = await ready([chunk(0, 'unrecorded words')]);
      const lexical = await ready([chunk(0, 'lexical words')], plain);
      const semantic = await ready([chunk(0, 'semantic words', unit(0))], SETTINGS);
      const status = async (id: string) => (await ctx.store.getDocument(id, w.user.id))?.status;
      expect(await ctx.store.requeueOutdated(plain)).toBe(1);
      expect([await status(unrecorded), await status(lexical), await status(semantic)]).toEqual(['ready', 'ready', 'stored']);
      expect(await ctx.store.requeueOutdated(plain)).toBe(0);
      expect(await ctx.store.requeueOutdated({ chunkTokens: 400, chunkOverlap: 200 })).toBe(2);
      expect(await ctx.store.getDocument(lexical, w.user.id)).toMatchObject({ status: 'stored' });
      expect(await ctx.store.getDocument(lexical, w.user.id)).not.toHaveProperty('chunks');
    });

    it('leaves a queued-again document out of search (only ready ones are searched) until its new chunks are in', async () => {
      const { w, tenant, ready } = await tenantOf(ctx.store);
      const id = await ready([chunk(0, 'earlier words', unit(0))], SETTINGS);
      const search = async (term: string) => (await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: [term], limit: 5 })).map((h) => h.text);
      const near = async () => (await ctx.store.nearestChunks({ userId: w.user.id, tenantId: tenant.id, vector: unit(0), limit: 5 })).map((h) => h.text);
      const next = { chunkTokens: 200, chunkOverlap: 100, embeddingModel: 'fake-64' };
      expect(await search('earlier')).toEqual(['earlier words']);
      expect(await ctx.store.requeueOutdated(next)).toBe(1);
      expect(await search('earlier')).toEqual([]);
      const taken = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect({ id: taken.document.id, attempt: taken.attempt }).toEqual({ id, attempt: 1 });
      expect(await search('earlier')).toEqual([]);
      expect(await near()).toEqual([]);
      expect(await ctx.store.completeDocument(id, taken.claim, { characters: 9, chunks: [chunk(0, 'later words', unit(0))], settings: next })).toBe(true);
      expect(await search('earlier')).toEqual([]);
      expect(await search('later')).toEqual(['later words']);
      expect(await near()).toEqual(['later words']);
      expect(await ctx.store.requeueOutdated(next)).toBe(0);
    });

    it('drops a queued-again document\'s earlier chunks when it fails or is reprocessed', async () => {
      const { w, tenant, ready } = await tenantOf(ctx.store);
      const failing = await ready([chunk(0, 'failing words')], SETTINGS);
      const reprocessed = await ready([chunk(0, 'reprocessed words')], SETTINGS);
      expect(await ctx.store.requeueOutdated({ chunkTokens: 300, chunkOverlap: 0 })).toBe(2);
      const search = async (term: string) => (await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: [term], limit: 5 })).map((h) => h.text);
      const taken = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect(taken.document.id).toBe(failing);
      expect(await ctx.store.failDocument(failing, taken.claim, { code: 'timeout', message: 'The embeddings provider could not be reached.' })).toBe(true);
      expect(await search('failing')).toEqual([]);
      expect(await ctx.store.reprocessDocument(reprocessed, w.user.id)).toMatchObject({ status: 'stored' });
      expect(await search('reprocessed')).toEqual([]);
    });
  });
}
