import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import { openSqliteStore, type Store } from '@lantern/store';
import { makeWorld, T0 } from '../src/contract/fixtures.js';
import { chunkSearcher } from '../src/sqlite/ai-search.js';

/**
 * The bound on the chunks one SQLite search scores (ai-search.ts, searchPlan), with a budget of 5 chunks instead of
 * 5,000: exact under it; over it, the rarest words' chunks first, then the newest chunks holding any word.
 */
describe('sqlite document search: the scoring budget', () => {
  const BUDGET = 5;
  let dir: string;
  let store: Store;
  let db: Database.Database;
  let search: ReturnType<typeof chunkSearcher>;
  let userId: string;
  let tenantId: string;
  /** The chunk texts in the order they were indexed (one document each). */
  const texts = ['zebra alpha', 'quokka', ...Array.from({ length: 12 }, (_, i) => `alpha filler ${i}`), 'quokka alpha'];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-search-budget-'));
    store = await openSqliteStore({ file: join(dir, 'lantern.db') });
    const w = await makeWorld(store, 'budget');
    userId = w.user.id;
    tenantId = (await store.createTenant({ name: 'Budget', organizationId: w.org.id })).id;
    for (const [i, text] of texts.entries()) {
      const id = newId();
      await store.createDocument({
        id, tenantId, filename: `doc-${i}.txt`, contentType: 'text/plain', size: text.length, sha256: String(i).padStart(64, '0'),
        status: 'stored', createdAt: toIso(T0 + i), objectKey: `tenants/${tenantId}/documents/${id}`,
      });
      const claim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
      await store.completeDocument(id, claim.claim, { characters: text.length, chunks: [{ index: 0, text, start: 0, end: text.length }] });
    }
    // Another organization's tenant holds the rare words too: a step that leaves the tenant's token out of its MATCH
    // (words rare in every tenant) must still answer only this tenant's chunks.
    const other = await makeWorld(store, 'budget-other');
    const otherTenant = (await store.createTenant({ name: 'Other', organizationId: other.org.id })).id;
    const otherId = newId();
    await store.createDocument({
      id: otherId, tenantId: otherTenant, filename: 'other.txt', contentType: 'text/plain', size: 20, sha256: 'f'.repeat(64),
      status: 'stored', createdAt: toIso(T0 + 100), objectKey: `tenants/${otherTenant}/documents/${otherId}`,
    });
    const otherClaim = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    await store.completeDocument(otherId, otherClaim.claim, { characters: 20, chunks: [{ index: 0, text: 'zebra quokka elsewhere', start: 0, end: 22 }] });
    db = new Database(join(dir, 'lantern.db'), { readonly: true });
    search = chunkSearcher(db, BUDGET);
  });

  afterAll(async () => {
    db?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const find = (terms: string[], limit: number) => search({ userId, tenantId, terms, limit }).map((h) => h.text);

  it('answers only the tenant\'s chunks, whichever step ranks them', () => {
    expect(find(['zebra'], 10)).toEqual(['zebra alpha']);
    expect(find(['elsewhere'], 10)).toEqual([]);
    expect(find(['alpha', 'elsewhere'], 20).every((text) => !text.includes('elsewhere'))).toBe(true);
  });

  it('ranks exactly when the words are in at most the budget of chunks together', () => {
    expect(find(['zebra', 'quokka'], 10).sort()).toEqual(['quokka', 'quokka alpha', 'zebra alpha']);
    // The shorter chunk holding the word ranks first (BM25's length normalisation).
    expect(find(['quokka'], 10)).toEqual(['quokka', 'quokka alpha']);
  });

  it('over the budget, the rarest words\' chunks come first, wherever they are, then the newest chunks of the others', () => {
    // 'alpha' is in 14 chunks (over 5); 'zebra' in one, the oldest of all.
    const hits = find(['alpha', 'zebra'], 4);
    expect(hits[0]).toBe('zebra alpha');
    expect(hits).toHaveLength(4);
    const newestAlpha = texts.filter((t) => t.includes('alpha')).slice(-BUDGET);
    for (const text of hits.slice(1)) expect(newestAlpha).toContain(text);
  });

  it('a query of only common words answers with the newest chunks holding them, the most held for their length first', () => {
    const hits = search({ userId, tenantId, terms: ['alpha'], limit: 10 });
    expect(hits.map((h) => h.text).sort()).toEqual(texts.filter((t) => t.includes('alpha')).slice(-10).sort());
    // 'quokka alpha' holds the word once in 12 characters, the 'alpha filler n' chunks once in 14-15: it comes first.
    expect(hits[0]!.text).toBe('quokka alpha');
    for (const [i, hit] of hits.entries()) if (i > 0) expect(hit.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  it('takes rare words while their matches fit the budget together, the rest fill from the newest', () => {
    // 'quokka' (2 chunks) and 'zebra' (1) fit the budget of 5 together; 'alpha' (14) does not.
    const hits = find(['alpha', 'quokka', 'zebra'], 3);
    expect(hits.sort()).toEqual(['quokka', 'quokka alpha', 'zebra alpha']);
  });
});
