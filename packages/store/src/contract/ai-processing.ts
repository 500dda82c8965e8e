import { describe, expect, it } from '@jest/globals';
import { newId, toIso } from '@lantern/domain';
import type { ChunkInput, DocumentClaim, Store, StoredDocument } from '../port.js';
import { T0, makeWorld, sleep } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

const LONG = 60_000;

async function tenantWithDocs(store: Store, count: number, name = 'Support') {
  const w = await makeWorld(store, name.toLowerCase());
  const tenant = await store.createTenant({ name, organizationId: w.org.id });
  const docs: StoredDocument[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    docs.push(await store.createDocument({
      id, tenantId: tenant.id, filename: `doc-${i}.txt`, contentType: 'text/plain; charset=utf-8', size: 10, sha256: newId().replace(/-/g, '').repeat(2),
      status: 'stored', createdAt: toIso(T0 + i * 1000), objectKey: `tenants/${tenant.id}/documents/${id}`,
    }));
  }
  return { w, tenant, docs };
}

const chunk = (index: number, text: string, pages?: [number, number]): ChunkInput => ({ index, text, start: index * 1000, end: index * 1000 + text.length, ...(pages ? { pages } : {}) });

/** The processing queue with leases and attempts, results, reprocess and delete (port.ts, ProcessingStore). */
export function aiProcessingContract(ctx: StoreContext): void {
  describe('document processing', () => {
    it('takes waiting documents oldest first, each by one worker only, with a claim and its attempt', async () => {
      const { docs, w } = await tenantWithDocs(ctx.store, 4);
      const first = await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 });
      expect(first).toEqual({ document: { ...docs[0], status: 'processing' }, claim: expect.any(String), attempt: 1 });
      const rest = await Promise.all(Array.from({ length: 5 }, () => ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 })));
      const taken = rest.filter((c): c is DocumentClaim => c !== null);
      expect(taken.map((c) => c.document.id).sort()).toEqual(docs.slice(1).map((d) => d.id).sort());
      expect(new Set([first!.claim, ...taken.map((c) => c.claim)]).size).toBe(4);
      expect(rest.filter((c) => c === null)).toHaveLength(2);
      expect((await ctx.store.getDocument(docs[2]!.id, w.user.id))?.status).toBe('processing');
    });

    it('takes a document again once its lease ran out: the first worker\'s claim is lost and keeps nothing', async () => {
      const { docs, w, tenant } = await tenantWithDocs(ctx.store, 1);
      const lost = (await ctx.store.claimDocument({ leaseMs: 1, maxAttempts: 3 }))!;
      await sleep(20);
      const again = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect({ id: again.document.id, attempt: again.attempt }).toEqual({ id: docs[0]!.id, attempt: 2 });
      expect(await ctx.store.renewClaim(docs[0]!.id, lost.claim, LONG)).toBe(false);
      expect(await ctx.store.completeDocument(docs[0]!.id, lost.claim, { characters: 9, chunks: [chunk(0, 'stale words')] })).toBe(false);
      expect(await ctx.store.failDocument(docs[0]!.id, lost.claim, { code: 'unreadable', message: 'x' })).toBe(false);
      expect(await ctx.store.renewClaim(docs[0]!.id, again.claim, LONG)).toBe(true);
      expect(await ctx.store.completeDocument(docs[0]!.id, again.claim, { characters: 11, chunks: [chunk(0, 'fresh words')] })).toBe(true);
      const search = (terms: string[]) => ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms, limit: 10 });
      expect(await search(['stale'])).toEqual([]);
      expect((await search(['fresh'])).map((h) => h.text)).toEqual(['fresh words']);
      // The slow first worker tries again after the other finished: refused, and the other's chunks are untouched.
      expect(await ctx.store.completeDocument(docs[0]!.id, lost.claim, { characters: 9, chunks: [chunk(0, 'stale words')] })).toBe(false);
      expect(await search(['stale'])).toEqual([]);
      expect((await search(['fresh'])).map((h) => h.text)).toEqual(['fresh words']);
    });

    it('fails a document with timeout once its attempts are used up, and takes it no more', async () => {
      const { docs, w } = await tenantWithDocs(ctx.store, 1);
      for (let attempt = 1; attempt <= 2; attempt++) {
        expect((await ctx.store.claimDocument({ leaseMs: 1, maxAttempts: 2 }))?.attempt).toBe(attempt);
        await sleep(20);
      }
      expect(await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 2 })).toBeNull();
      expect(await ctx.store.getDocument(docs[0]!.id, w.user.id)).toEqual({
        ...docs[0], status: 'failed', error: { code: 'timeout', message: expect.stringContaining('stopped 2 times') },
      });
    });

    it('completes a document under its claim: ready with its counts, its chunks searchable; a failure keeps the reason', async () => {
      const { docs, w } = await tenantWithDocs(ctx.store, 2);
      const a = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      const b = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect(await ctx.store.completeDocument(a.document.id, a.claim, { characters: 120, pages: 2, chunks: [chunk(0, 'page one', [1, 1]), chunk(1, 'page two', [1, 2])] })).toBe(true);
      expect(await ctx.store.failDocument(b.document.id, b.claim, { code: 'encrypted', message: 'The PDF is protected by a password.' })).toBe(true);
      expect(await ctx.store.listDocuments(docs[0]!.tenantId, w.user.id)).toEqual([
        { ...docs[1], status: 'failed', error: { code: 'encrypted', message: 'The PDF is protected by a password.' } },
        { ...docs[0], status: 'ready', chunks: 2, characters: 120, pages: 2 },
      ]);
      // A result under a claim that is done is refused: the claim went with the result.
      expect(await ctx.store.completeDocument(a.document.id, a.claim, { characters: 1, chunks: [] })).toBe(false);
    });

    it('completes a document of more chunks than one write takes, all searchable; completing it again replaces them all', async () => {
      const { docs, w, tenant } = await tenantWithDocs(ctx.store, 1);
      const first = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      const many = Array.from({ length: 450 }, (_, i) => chunk(i, `section ${i} of the big runbook`));
      expect(await ctx.store.completeDocument(docs[0]!.id, first.claim, { characters: 9000, chunks: many })).toBe(true);
      const search = (terms: string[]) => ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms, limit: 1000 });
      expect((await search(['runbook'])).map((h) => h.index).sort((a, b) => a - b)).toEqual(many.map((c) => c.index));
      expect((await ctx.store.getDocument(docs[0]!.id, w.user.id))?.chunks).toBe(450);
      await ctx.store.reprocessDocument(docs[0]!.id, w.user.id);
      const second = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect(await ctx.store.completeDocument(docs[0]!.id, second.claim, { characters: 10, chunks: [chunk(0, 'a short runbook')] })).toBe(true);
      expect((await search(['runbook'])).map((h) => h.text)).toEqual(['a short runbook']);
    });

    it('puts a document back in the queue on reprocess: chunks gone from search, attempts and error cleared, any claim lost', async () => {
      const { docs, w, tenant } = await tenantWithDocs(ctx.store, 1);
      const first = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      await ctx.store.completeDocument(docs[0]!.id, first.claim, { characters: 5, chunks: [chunk(0, 'alpha')] });
      const other = await makeWorld(ctx.store, 'outsider');
      expect(await ctx.store.reprocessDocument(docs[0]!.id, other.user.id)).toBeNull();
      expect(await ctx.store.reprocessDocument(docs[0]!.id, w.user.id)).toEqual({ ...docs[0], status: 'stored' });
      expect(await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['alpha'], limit: 5 })).toEqual([]);
      const second = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      expect({ id: second.document.id, attempt: second.attempt }).toEqual({ id: docs[0]!.id, attempt: 1 });
      await ctx.store.reprocessDocument(docs[0]!.id, w.user.id);
      expect(await ctx.store.completeDocument(docs[0]!.id, second.claim, { characters: 4, chunks: [chunk(0, 'beta')] })).toBe(false);
      expect(await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['beta'], limit: 5 })).toEqual([]);
    });

    it('withdraws a document with its chunks: search finds nothing from then on, and its worker keeps nothing', async () => {
      const { w, tenant } = await tenantWithDocs(ctx.store, 2);
      const a = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      const b = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      await ctx.store.completeDocument(a.document.id, a.claim, { characters: 5, chunks: [chunk(0, 'gamma ray')] });
      expect(await ctx.store.withdrawDocument(a.document.id, LONG)).toBe(true);
      expect(await ctx.store.withdrawDocument(b.document.id, LONG)).toBe(true);
      expect(await ctx.store.renewClaim(b.document.id, b.claim, LONG)).toBe(false);
      expect(await ctx.store.completeDocument(b.document.id, b.claim, { characters: 5, chunks: [chunk(0, 'gamma burst')] })).toBe(false);
      expect(await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['gamma'], limit: 5 })).toEqual([]);
      expect(await ctx.store.listDocuments(tenant.id, w.user.id)).toEqual([]);
      expect(await ctx.store.reprocessDocument(a.document.id, w.user.id)).toBeNull();
      expect(await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 })).toBeNull();
    });

    it('removes the record of exactly one of concurrent deletes, and the chunks of a large document with it', async () => {
      const { w, tenant } = await tenantWithDocs(ctx.store, 1);
      const taken = (await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))!;
      const many = Array.from({ length: 120 }, (_, i) => chunk(i, `delta ${i}`));
      await ctx.store.completeDocument(taken.document.id, taken.claim, { characters: 1000, chunks: many });
      const id = taken.document.id;
      const removed = await Promise.all([1, 2, 3].map(async () => (await ctx.store.withdrawDocument(id, LONG)) && ctx.store.removeDocument(id)));
      expect(removed.sort()).toEqual([false, false, true]);
      expect(await ctx.store.getDocumentToDelete(id, w.user.id)).toBeNull();
      expect(await ctx.store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: ['delta'], limit: 5 })).toEqual([]);
    });

    it('hands out the deletes that stopped after their mark once their grace has run out, never before', async () => {
      const { docs } = await tenantWithDocs(ctx.store, 3);
      const [within, over, untouched] = docs as [StoredDocument, StoredDocument, StoredDocument];
      expect(await ctx.store.abandonedDeletes(20)).toEqual([]);
      await ctx.store.withdrawDocument(within.id, LONG);
      await ctx.store.withdrawDocument(over.id, 0);
      await sleep(5);
      expect(await ctx.store.abandonedDeletes(20)).toEqual([{ id: over.id, objectKey: over.objectKey }]);
      // Marking again (a retried DELETE, or a worker's attempt whose object store failed) restarts the grace.
      await ctx.store.withdrawDocument(over.id, LONG);
      expect(await ctx.store.abandonedDeletes(20)).toEqual([]);
      await ctx.store.withdrawDocument(within.id, 0);
      await sleep(5);
      expect(await ctx.store.abandonedDeletes(20)).toEqual([{ id: within.id, objectKey: within.objectKey }]);
      expect(await ctx.store.removeDocument(within.id)).toBe(true);
      expect(await ctx.store.abandonedDeletes(20)).toEqual([]);
      // The one never withdrawn is still waiting to be processed.
      expect((await ctx.store.claimDocument({ leaseMs: LONG, maxAttempts: 3 }))?.document.id).toBe(untouched.id);
    });
  });
}
