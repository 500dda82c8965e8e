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
import { createDocumentWorker, type DocumentWorker } from '../../src/processing/document-worker.js';

const FIXTURES = new URL('../fixtures/documents/', import.meta.url).pathname;

/** The worker loop with the real pieces: the SQLite store, the filesystem object store, the thread pool. */
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

  async function settled(id: string, userId: string) {
    for (let i = 0; i < 600; i++) {
      const doc = await store.getDocument(id, userId);
      if (doc && doc.status !== 'stored' && doc.status !== 'processing') return doc;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`document ${id} is still waiting`);
  }

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
    const stalling = { get: async (key: string) => (++reads <= 2 ? new Readable({ read() {} }) : blobs.get(key)) };
    worker = createDocumentWorker({ store, blobs: stalling, pool, logger, chunking: DEFAULT_CHUNKING, concurrency: 1, pollMs: 100, retryAfterMs: 50, downloadTimeoutMs: 200 });
    expect(await settled(doc.id, user.id)).toMatchObject({ status: 'ready' });
    expect(reads).toBe(3);
  }, 60_000);
});
