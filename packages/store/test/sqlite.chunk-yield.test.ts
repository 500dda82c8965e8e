import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import { openSqliteStore, type Store } from '@lantern/store';
import { makeWorld, rootSpan, spanBatch, T0, type World } from '../src/contract/fixtures.js';
import { THREAD_CHUNK_BATCH } from '../src/sqlite/writer-thread.js';

/**
 * On the writer thread a document's chunk jobs stop after the chunk under way whenever a span or log commit is
 * posted, commit what they wrote, and go on after it (writer-worker.ts): with span batches committed all the while,
 * the chunks are seen committed part of a job at a time, every chunk is still written exactly once, and every span
 * is kept. And the processing store's other writes never block the event loop behind another connection's write
 * lock: the flip to ready is a writer-thread job, claims, renewals and failures wait for the lock on timers
 * (write-lock.ts).
 */
describe('sqlite writer thread: chunk jobs that give way to ingest', () => {
  let dir: string;
  let file: string;
  let store: Store;
  let w: World;
  const CHUNKS = 600;
  // About 800 tokens of text a chunk, as the default chunking makes them: a millisecond or more of FTS5 work each.
  const textOf = (i: number) => `chunk${i} ${Array.from({ length: 400 }, (_, k) => `word${(i * 7 + k) % 5000}`).join(' ')}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-chunk-yield-'));
    file = join(dir, 'lantern.db');
    store = await openSqliteStore({ file, writerThread: true });
    w = await makeWorld(store, 'yield');
  });
  afterAll(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Span batches of one new span each, committed one after the other until `done` settles, `after` each; how many. */
  async function spansUntil(done: Promise<unknown>, after: () => void = () => {}): Promise<number> {
    let settled = false;
    void done.finally(() => { settled = true; });
    let written = 0;
    for (let i = 0; !settled; i++) {
      await store.writeSpans(spanBatch(w.app, [rootSpan(newId(), T0 + i)]));
      written++;
      after();
    }
    return written;
  }

  const count = (sql: string, ...params: unknown[]) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare(sql).get(...params) as Record<string, number>;
    } finally {
      db.close();
    }
  };

  /** A new tenant's document, stored and waiting to be claimed. */
  async function storedDocument(tenantName: string, filename: string) {
    const tenant = await store.createTenant({ name: tenantName, organizationId: w.org.id });
    const id = newId();
    await store.createDocument({ id, tenantId: tenant.id, filename, contentType: 'text/plain; charset=utf-8', size: 1, sha256: newId().replace(/-/g, '').repeat(2),
      status: 'stored', createdAt: toIso(Date.now()), objectKey: `tenants/${tenant.id}/documents/${id}` });
    return { tenant, id };
  }

  it('writes and then removes every chunk exactly once while span batches commit between them', async () => {
    const { tenant, id } = await storedDocument('Support', 'big.txt');
    const taken = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    const chunks = Array.from({ length: CHUNKS }, (_, i) => ({ index: i, text: textOf(i), start: i * 10_000, end: i * 10_000 + textOf(i).length }));
    const completing = store.completeDocument(id, taken.claim, { characters: CHUNKS * 10_000, chunks });
    const seen: number[] = [];
    const spansDuringWrite = await spansUntil(completing, () => seen.push(count('SELECT count(*) AS n FROM chunks WHERE document_id = ?', id).n!));
    expect(await completing).toBe(true);
    // Whole jobs would only ever leave a multiple of THREAD_CHUNK_BATCH committed while the document is written.
    expect(seen.filter((n) => n > 0 && n < CHUNKS && n % THREAD_CHUNK_BATCH !== 0).length).toBeGreaterThan(0);
    expect(count('SELECT count(*) AS n, count(DISTINCT chunk_index) AS distinct_, min(chunk_index) AS lo, max(chunk_index) AS hi FROM chunks WHERE document_id = ?', id))
      .toEqual({ n: CHUNKS, distinct_: CHUNKS, lo: 0, hi: CHUNKS - 1 });
    const db = new Database(file, { readonly: true });
    const stored = db.prepare('SELECT chunk_index AS i, text FROM chunks WHERE document_id = ?').all(id) as Array<{ i: number; text: string }>;
    db.close();
    expect(stored.filter((c) => c.text !== textOf(c.i))).toEqual([]);
    const hits = await store.searchChunks({ userId: w.user.id, tenantId: tenant.id, terms: [`chunk${CHUNKS - 1}`], limit: 5 });
    expect(hits.map((h) => h.index)).toEqual([CHUNKS - 1]);

    const removing = store.withdrawDocument(id, 60_000);
    const spansDuringRemoval = await spansUntil(removing);
    expect(await removing).toBe(true);
    expect(count('SELECT count(*) AS n FROM chunks WHERE document_id = ?', id).n).toBe(0);
    expect(count('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?', `text : "chunk${CHUNKS - 1}"`).n).toBe(0);
    expect(count('SELECT count(*) AS n FROM spans').n).toBe(spansDuringWrite + spansDuringRemoval);
  }, 60_000);

  it('completes a document (the flip to ready, a writer-thread job) while another connection holds the write lock, the event loop running', async () => {
    const { id } = await storedDocument('Locked', 'small.txt');
    const taken = (await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 }))!;
    // No chunks: the completion is the flip alone.
    expect(await whileLocked(() => store.completeDocument(id, taken.claim, { characters: 0, chunks: [] }))).toBe(true);
    expect(await store.getDocument(id, w.user.id)).toMatchObject({ status: 'ready' });
  }, 30_000);

  it('claims, renews, fails and reprocesses a document on this connection without blocking the event loop while another holds the write lock', async () => {
    const { id } = await storedDocument('Claims', 'claimed.txt');
    const taken = (await whileLocked(() => store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 })))!;
    expect(taken.document.id).toBe(id);
    expect(await whileLocked(() => store.renewClaim(id, taken.claim, 60_000))).toBe(true);
    expect(await whileLocked(() => store.failDocument(id, taken.claim, { code: 'unreadable', message: 'cut off' }))).toBe(true);
    expect(await store.getDocument(id, w.user.id)).toMatchObject({ status: 'failed' });
    expect(await whileLocked(() => store.reprocessDocument(id, w.user.id))).toMatchObject({ id, status: 'stored' });
  }, 30_000);

  // Last: the document it stores stays waiting for a claim.
  it('stores an upload\'s record without blocking the event loop while another connection holds the write lock, and still says which tenant is missing', async () => {
    const tenant = await store.createTenant({ name: 'Uploads', organizationId: w.org.id });
    const doc = (tenantId: string) => ({ id: newId(), tenantId, filename: 'up.txt', contentType: 'text/plain; charset=utf-8', size: 1,
      sha256: newId().replace(/-/g, '').repeat(2), status: 'stored' as const, createdAt: toIso(Date.now()), objectKey: `tenants/${tenantId}/documents/x` });
    const stored = await whileLocked(() => store.createDocument(doc(tenant.id)));
    expect(await store.getDocument(stored.id, w.user.id)).toMatchObject({ id: stored.id, status: 'stored' });
    await expect(store.createDocument(doc(newId()))).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/tenant/i) });
  }, 30_000);

  /**
   * `call`, while another connection holds the write lock for 300 ms, released by a timer of this event loop: a
   * write that waited in SQLite's busy handler would block the loop, and the release would never come before the
   * busy timeout (5 s: a 503). Its result, once the loop was seen ticking meanwhile.
   */
  async function whileLocked<T>(call: () => Promise<T>): Promise<T> {
    const other = new Database(file);
    other.exec('BEGIN IMMEDIATE');
    const began = performance.now();
    setTimeout(() => other.exec('COMMIT'), 300);
    const ticks: number[] = [];
    const ticking = setInterval(() => ticks.push(performance.now() - began), 20);
    try {
      const result = await call();
      expect(performance.now() - began).toBeGreaterThanOrEqual(290);
      expect(ticks.filter((t) => t < 280).length).toBeGreaterThan(3);
      return result;
    } finally {
      clearInterval(ticking);
      other.close();
    }
  }
});
