import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { ChunkInput, Store } from '../port.js';
import { T0, makeWorld } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

/** A tenant with ready documents of these chunks' texts (one document per list). */
async function tenantWithText(store: Store, documents: string[][], name = 'Support') {
  const w = await makeWorld(store, `${name.toLowerCase()}-${newId().slice(0, 8)}`);
  const tenant = await store.createTenant({ name, organizationId: w.org.id });
  const ids: string[] = [];
  for (const [i, texts] of documents.entries()) {
    const id = newId();
    ids.push(id);
    await store.createDocument({
      id, tenantId: tenant.id, filename: `${name.toLowerCase()}-${i}.pdf`, contentType: 'application/pdf', size: 10, sha256: 'b'.repeat(64),
      status: 'stored', createdAt: toIso(T0 + i), objectKey: `tenants/${tenant.id}/documents/${id}`,
    });
    const claim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    expect(claim.document.id).toBe(id);
    let at = 0;
    const chunks: ChunkInput[] = texts.map((text, index) => ({ index, text, start: at, end: (at += text.length), pages: [index + 1, index + 1] }));
    expect(await store.completeDocument(id, claim.claim, { characters: at, pages: texts.length, chunks })).toBe(true);
  }
  return { w, tenant, ids };
}

/** Lexical search over the chunks of ready documents (port.ts, searchChunks). */
export function aiSearchContract(ctx: StoreContext): void {
  describe('document search', () => {
    it('finds the chunks holding any of the terms, best first, with their document, place and pages', async () => {
      const { w, tenant, ids } = await tenantWithText(ctx.store, [
        ['Switch the circuit breaker to the fallback provider.', 'The breaker trips; the breaker resets; the breaker trips again.'],
        ['Heap snapshots show an unbounded retry queue.'],
      ]);
      const hits = await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['breaker'], limit: 10 });
      expect(hits.map((h) => [h.documentId, h.index])).toEqual([[ids[0], 1], [ids[0], 0]]);
      expect(hits[1]).toEqual({
        documentId: ids[0], filename: 'support-0.pdf', index: 0, text: 'Switch the circuit breaker to the fallback provider.', start: 0, end: 52, pages: [1, 1], score: expect.any(Number),
      });
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits[1]!.score).toBeGreaterThan(0);
      const either = await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['heap', 'fallback'], limit: 10 });
      expect(either.map((h) => h.text).sort()).toEqual(['Heap snapshots show an unbounded retry queue.', 'Switch the circuit breaker to the fallback provider.']);
      expect(await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['breaker'], limit: 1 })).toHaveLength(1);
    });

    it('ranks a word rare in the tenant above a common one said more often (BM25: the rarer word weighs more)', async () => {
      // 'ubiquitous' in every chunk, 'singular' in one: a chunk saying the common word three times ranks below the
      // one that says the rare word once. (MongoDB's text score, with no IDF, ranked them the other way round.)
      const filler = Array.from({ length: 10 }, (_, i) => `ubiquitous entry number ${i} of the log`);
      const { w, tenant, ids } = await tenantWithText(ctx.store, [
        ['ubiquitous ubiquitous ubiquitous words here', 'singular ubiquitous words here', ...filler],
      ]);
      const hits = await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['ubiquitous', 'singular'], limit: 3 });
      expect(hits.map((h) => [h.documentId, h.index])).toEqual([[ids[0], 1], [ids[0], 0], expect.anything()]);
    });

    it('gives back where the pages after the first begin in a chunk spanning pages', async () => {
      const { w, tenant } = await tenantWithText(ctx.store, [['unrelated']]);
      const id = newId();
      await ctx.store.createDocument({
        id, tenantId: tenant.id, filename: 'spans.pdf', contentType: 'application/pdf', size: 10, sha256: 'd'.repeat(64),
        status: 'stored', createdAt: toIso(T0 + 10), objectKey: `tenants/${tenant.id}/documents/${id}`,
      });
      const claim = (await ctx.store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
      const text = 'end of page two\n\nstart of page three';
      await ctx.store.completeDocument(id, claim.claim, { characters: text.length, pages: 3, chunks: [{ index: 0, text, start: 40, end: 40 + text.length, pages: [2, 3], pageBreaks: [17] }] });
      const [hit] = await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['three'], limit: 5 });
      expect(hit).toMatchObject({ documentId: id, pages: [2, 3], pageBreaks: [17], start: 40 });
      expect(hit!.text.slice(17)).toBe('start of page three');
    });

    it('matches words whatever their case and accents, and nothing for no terms or no match', async () => {
      const { w, tenant } = await tenantWithText(ctx.store, [['The CAFÉ in Zürich sends orders.']]);
      const search = (terms: string[]) => ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms, limit: 5 });
      expect(await search(['cafe'])).toHaveLength(1);
      expect(await search(['zurich'])).toHaveLength(1);
      expect(await search([])).toEqual([]);
      expect(await search(['tokyo'])).toEqual([]);
    });

    it('keeps each search inside its tenant, for members only, and within the documents asked for', async () => {
      const mine = await tenantWithText(ctx.store, [['payments runbook for the on-call'], ['payments escalation policy']], 'Mine');
      const theirs = await tenantWithText(ctx.store, [['payments secrets of another organization']], 'Theirs');
      const search = (userId: string, tenantId: string, documentIds?: string[]) =>
        ctx.store.searchChunks({ userId, tenantId, terms: ['payments'], limit: 10, ...(documentIds ? { documentIds } : {}) });
      expect((await search(mine.w.user.id, mine.tenant.id)).map((h) => h.documentId).sort()).toEqual([...mine.ids].sort());
      expect(await search(mine.w.user.id, theirs.tenant.id)).toEqual([]);
      expect(await search(theirs.w.user.id, mine.tenant.id)).toEqual([]);
      expect((await search(mine.w.user.id, mine.tenant.id, [mine.ids[1]!])).map((h) => h.documentId)).toEqual([mine.ids[1]]);
      expect(await search(mine.w.user.id, mine.tenant.id, [theirs.ids[0]!])).toEqual([]);
    });
  });
}
