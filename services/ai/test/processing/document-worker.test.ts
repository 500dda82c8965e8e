import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createFsBlobStore } from '@lantern/blobs';
import { newId, toIso } from '@lantern/domain';
import { createProcessingPool, DEFAULT_CHUNKING, PDF, type ProcessingPool } from '@lantern/extract';
import { createLogger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';
import { createDocumentWorker, settingsOf, type DocumentWorker } from '../../src/processing/document-worker.js';
import { createEmbedder } from '../../src/search/embeddings.js';
import { startEmbeddingServer, type EmbeddingServer } from '../search/embedding-server.js';

const FIXTURES = new URL('../fixtures/documents/', import.meta.url).pathname;

/** The worker loop with the real pieces: the SQLite store, the filesystem object store, the thread pool. */
/** The document once it is neither stored nor processing (30 s at most). */
async function settledIn(store: Store, id: string, userId: string) {
  for (let i = 0; i < 600; i++) {
    const doc = await store.getDocument(id, userId);
    if (doc && doc.status !== 'stored' && doc.status !== 'processing') return doc;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`document ${id} is still waiting`);
}

describe('ai: the document worker', () => {
  let store: Store;
  let pool: ProcessingPool;
  let worker: DocumentWorker | undefined;
  let dir: string;
  afterEach(async () => {
    await worker?.stop();
    await pool?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp(poolOptions: Parameters<typeof createProcessingPool>[0]) {
    dir = mkdtempSync(join(tmpdir(), 'lantern-worker-'));
    store = await openSqliteStore({ file: ':memory:' });
    const blobs = await createFsBlobStore({ root: dir });
    pool = createProcessingPool(poolOptions);
    const user = await store.createUser({ email: `${newId()}@example.test`, name: 'U', passwordHash: 'h' });
    const org = await store.createOrganization({ name: 'O', ownerId: user.id });
    const tenant = await store.createTenant({ name: 'Support', organizationId: org.id });
    const upload = async (name: string, contentType: string) => {
      const id = newId();
      const bytes = readFileSync(FIXTURES + name);
      const objectKey = `tenants/${tenant.id}/documents/${id}`;
      await blobs.put(objectKey, Readable.from([bytes]), { contentType, size: bytes.length });
      return store.createDocument({ id, tenantId: tenant.id, filename: name, contentType, size: bytes.length, sha256: 'c'.repeat(64), status: 'stored', createdAt: toIso(Date.now()), objectKey });
    };
    const logger = createLogger({ service: 'test', silent: true });
    return { user, tenant, blobs, upload, logger };
  }

  const settled = (id: string, userId: string) => settledIn(store, id, userId);

  it('processes what was uploaded when woken: ready with counts and searchable, or failed with the reason', async () => {
    const { user, tenant, blobs, upload, logger } = await setUp({ size: 1, timeoutMs: 30_000, maxHeapMb: 512 });
    // Started before the uploads with a poll of a minute: only wake() can make it look again within the test.
    worker = createDocumentWorker({ store, blobs, pool, logger, chunking: DEFAULT_CHUNKING, concurrency: 1, pollMs: 60_000 });
    const pdf = await upload('runbook.pdf', PDF);
    const scan = await upload('scanned.pdf', PDF);
    const md = await upload('runbook.md', 'text/markdown; charset=utf-8');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await store.getDocument(pdf.id, user.id))?.status).toBe('stored');
    worker.wake();
    expect(await settled(pdf.id, user.id)).toEqual({ ...pdf, status: 'ready', chunks: 1, characters: expect.any(Number), pages: 1 });
    expect(await settled(scan.id, user.id)).toEqual({ ...scan, status: 'failed', error: { code: 'no_text', message: 'no text layer; OCR is not supported' } });
    expect(await settled(md.id, user.id)).toEqual({ ...md, status: 'ready', chunks: 1, characters: readFileSync(FIXTURES + 'runbook.md', 'utf8').length });
    const hits = await store.searchChunks({ userId: user.id, tenantId: tenant.id, terms: ['breaker'], limit: 10 });
    expect(hits.map((h) => h.filename).sort()).toEqual(['runbook.md', 'runbook.pdf']);
    expect(hits.find((h) => h.filename === 'runbook.pdf')?.pages).toEqual([1, 1]);
  }, 60_000);

  it('finishes a delete that stopped after its mark: object and record gone', async () => {
    const { user, blobs, upload, logger } = await setUp({ size: 1, timeoutMs: 30_000, maxHeapMb: 512 });
    const doc = await upload('runbook.md', 'text/markdown; charset=utf-8');
    await store.withdrawDocument(doc.id, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    worker = createDocumentWorker({ store, blobs, pool, logger, chunking: DEFAULT_CHUNKING, concurrency: 1, pollMs: 60_000 });
    // Its first look, as it starts (beside its claims, not before them).
    for (let i = 0; i < 100 && (await store.getDocumentToDelete(doc.id, user.id)) !== null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await store.getDocumentToDelete(doc.id, user.id)).toBeNull();
    expect(await blobs.exists(doc.objectKey)).toBe(false);
  });

  it('takes a document again when its processing gave no verdict, until its attempts are used up: then failed, never stuck', async () => {
    // No thread can start within 1 ms: every try is rejected, the lease dropped, the document taken again.
    const { user, blobs, upload, logger } = await setUp({ size: 1, timeoutMs: 30_000, maxHeapMb: 512, startTimeoutMs: 1 });
    const doc = await upload('runbook.md', 'text/markdown; charset=utf-8');
    worker = createDocumentWorker({ store, blobs, pool, logger, chunking: DEFAULT_CHUNKING, concurrency: 1, pollMs: 100, retryAfterMs: 50 });
    expect(await settled(doc.id, user.id)).toEqual({ ...doc, status: 'failed', error: { code: 'timeout', message: expect.stringContaining('stopped 3 times') } });
  }, 60_000);

  it('gives up a stalled download after its time limit, so the document is tried again and never held forever', async () => {
    const { user, blobs, upload, logger } = await setUp({ size: 1, timeoutMs: 30_000, maxHeapMb: 512 });
    const doc = await upload('runbook.md', 'text/markdown; charset=utf-8');
    let reads = 0;
    // An object store that starts the answer and then sends nothing more, twice; the third read works.
    const stalling = { ...blobs, get: async (key: string) => (++reads <= 2 ? new Readable({ read() {} }) : blobs.get(key)) };
    worker = createDocumentWorker({ store, blobs: stalling, pool, logger, chunking: DEFAULT_CHUNKING, concurrency: 1, pollMs: 100, retryAfterMs: 50, downloadTimeoutMs: 200 });
    expect(await settled(doc.id, user.id)).toMatchObject({ status: 'ready' });
    expect(reads).toBe(3);
  }, 60_000);
});

/** The worker with semantic search on: a real HTTP server of the embeddings API (embedding-server.ts), no mock. */
describe('ai: the document worker with embeddings', () => {
  let store: Store;
  let pool: ProcessingPool;
  let worker: DocumentWorker | undefined;
  let server: EmbeddingServer;
  let dir: string;
  afterEach(async () => {
    await worker?.stop();
    await pool?.close();
    await store?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp() {
    dir = mkdtempSync(join(tmpdir(), 'lantern-worker-'));
    store = await openSqliteStore({ file: ':memory:' });
    server = await startEmbeddingServer();
    const blobs = await createFsBlobStore({ root: dir });
    pool = createProcessingPool({ size: 1, timeoutMs: 30_000, maxHeapMb: 512 });
    const user = await store.createUser({ email: `${newId()}@example.test`, name: 'U', passwordHash: 'h' });
    const org = await store.createOrganization({ name: 'O', ownerId: user.id });
    const tenant = await store.createTenant({ name: 'Support', organizationId: org.id });
    const id = newId();
    const bytes = readFileSync(FIXTURES + 'runbook.md');
    const objectKey = `tenants/${tenant.id}/documents/${id}`;
    await blobs.put(objectKey, Readable.from([bytes]), { contentType: 'text/markdown', size: bytes.length });
    const doc = await store.createDocument({ id, tenantId: tenant.id, filename: 'runbook.md', contentType: 'text/markdown; charset=utf-8', size: bytes.length, sha256: 'd'.repeat(64), status: 'stored', createdAt: toIso(Date.now()), objectKey });
    return { user, tenant, blobs, doc, logger: createLogger({ service: 'test', silent: true }) };
  }

  const settled = (id: string, userId: string) => settledIn(store, id, userId);

  it('stores each chunk with its vector, recorded as made with the model: the nearest chunks find it', async () => {
    const { user, tenant, blobs, doc, logger } = await setUp();
    const embedder = createEmbedder({ url: server.url, model: 'fake-64', batchSize: 2 });
    worker = createDocumentWorker({ store, blobs, pool, logger, chunking: { maxTokens: 100, overlapTokens: 0 }, embedder, concurrency: 1, pollMs: 100 });
    const ready = await settled(doc.id, user.id);
    expect(ready).toMatchObject({ status: 'ready' });
    const chunks = (ready as { chunks: number }).chunks;
    // Every chunk went to the provider, two at a time, with the model.
    expect(server.requests.flatMap((r) => r.body.input)).toHaveLength(chunks);
    expect(server.requests.every((r) => r.body.model === 'fake-64' && r.body.input.length <= 2)).toBe(true);
    const [query] = await embedder.embed(['circuit breaker']);
    const near = await store.nearestChunks({ userId: user.id, tenantId: tenant.id, vector: query!, limit: 3 });
    expect(near.length).toBeGreaterThan(0);
    expect(near[0]!.text.toLowerCase()).toContain('breaker');
    // Recorded as made with 100/0 and the model: the same settings queue nothing; others queue it again.
    expect(await store.requeueOutdated({ chunkTokens: 100, chunkOverlap: 0, embeddingModel: 'fake-64' })).toBe(0);
    expect(await store.requeueOutdated({ chunkTokens: 100, chunkOverlap: 0 })).toBe(1);
  }, 60_000);

  it('counts a provider that cannot embed as an attempt, and on the last makes the document ready without vectors, to be queued again', async () => {
    const { user, tenant, blobs, doc, logger } = await setUp();
    server.failNext(100, 503);
    const embedder = createEmbedder({ url: server.url, model: 'fake-64', retries: 0 });
    worker = createDocumentWorker({ store, blobs, pool, logger, chunking: DEFAULT_CHUNKING, embedder, concurrency: 1, pollMs: 100, retryAfterMs: 50 });
    const ready = await settled(doc.id, user.id);
    expect(ready).toMatchObject({ status: 'ready' });
    expect(ready).not.toHaveProperty('error');
    expect(server.requests).toHaveLength(3);
    // Found by its words, not by meaning (no vectors), and recorded as made without the model.
    expect((await store.searchChunks({ userId: user.id, tenantId: tenant.id, terms: ['breaker'], limit: 3 })).length).toBeGreaterThan(0);
    expect(await store.nearestChunks({ userId: user.id, tenantId: tenant.id, vector: new Float32Array(64).fill(0.125), limit: 3 })).toEqual([]);
    expect(await store.requeueOutdated({ ...settingsOf(DEFAULT_CHUNKING), embeddingModel: 'fake-64' })).toBe(1);
  }, 60_000);
});
