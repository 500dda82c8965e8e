import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createFsBlobStore, type BlobStore } from '@lantern/blobs';
import { createMemoryBus, type Bus } from '@lantern/bus';
import { newId, toIso } from '@lantern/domain';
import { createLogger, type Logger } from '@lantern/logging';
import { openSqliteStore, type Store, type StoredDocument } from '@lantern/store';
import { documentAnnouncer, DOCUMENT_WORKERS_GROUP } from '../../src/processing/events.js';
import { startDocumentProcessing, type DocumentProcessing } from '../../src/processing/start.js';

const FIXTURES = new URL('../fixtures/documents/', import.meta.url).pathname;
const MARKDOWN = 'text/markdown; charset=utf-8';

/**
 * How work reaches the document workers (events.ts, start.ts): announcements on the bus wake them, and the store's
 * queue, not the message, decides what they take. Real pieces: the in-process bus, the SQLite store, the filesystem
 * object store and the thread pool.
 */
describe('ai: document announcements on the bus', () => {
  let store: Store;
  let blobs: BlobStore;
  let buses: Bus[] = [];
  let processing: DocumentProcessing | undefined;
  let dir: string;
  let userId: string;
  let tenantId: string;
  afterEach(async () => {
    await processing?.stop();
    processing = undefined;
    for (const bus of buses) await bus.close();
    buses = [];
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function setUp() {
    dir = mkdtempSync(join(tmpdir(), 'lantern-events-'));
    store = await openSqliteStore({ file: ':memory:' });
    blobs = await createFsBlobStore({ root: dir });
    const user = await store.createUser({ email: `${newId()}@example.test`, name: 'U', passwordHash: 'h' });
    const org = await store.createOrganization({ name: 'O', ownerId: user.id });
    userId = user.id;
    tenantId = (await store.createTenant({ name: 'Support', organizationId: org.id })).id;
  }

  const bus = () => {
    const b = createMemoryBus();
    buses.push(b);
    return b;
  };

  /** A logger whose lines the test reads. */
  function capturingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
    const stream = new PassThrough();
    const out: string[] = [];
    stream.on('data', (chunk: Buffer) => out.push(chunk.toString('utf8')));
    return {
      logger: createLogger({ service: 'test', level: 'info', stream }),
      lines: () => out.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>),
    };
  }

  async function stored(filename: string, bytes: Buffer, contentType = MARKDOWN): Promise<StoredDocument> {
    const id = newId();
    const objectKey = `tenants/${tenantId}/documents/${id}`;
    await blobs.put(objectKey, Readable.from([bytes]), { contentType, size: bytes.length });
    return store.createDocument({ id, tenantId, filename, contentType, size: bytes.length, sha256: 'c'.repeat(64), status: 'stored', createdAt: toIso(Date.now()), objectKey });
  }

  async function statusOf(id: string): Promise<string | undefined> {
    return (await store.getDocument(id, userId))?.status;
  }

  async function settled(id: string, timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const doc = await store.getDocument(id, userId);
      if (doc && doc.status !== 'stored' && doc.status !== 'processing') return doc;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`document ${id} is still waiting`);
  }

  const silent = createLogger({ service: 'test', silent: true });

  it('an announcement wakes a worker that would not look at the queue for a minute: the document becomes ready', async () => {
    await setUp();
    const b = bus();
    processing = await startDocumentProcessing({ store, blobs, bus: b, logger: silent }, { pollMs: 60_000 });
    const doc = await stored('runbook.md', readFileSync(FIXTURES + 'runbook.md'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await statusOf(doc.id)).toBe('stored');
    documentAnnouncer(b, silent)(doc);
    expect(await settled(doc.id)).toMatchObject({ status: 'ready', chunks: 1 });
  }, 60_000);

  it('the message names the document and its tenant, nothing more, and is heard by one member of the workers\' group', async () => {
    await setUp();
    const b = bus();
    const heard: unknown[][] = [];
    const other: unknown[][] = [];
    await b.subscribe('documents', DOCUMENT_WORKERS_GROUP, async (values) => void heard.push(values));
    await b.subscribe('documents', DOCUMENT_WORKERS_GROUP, async (values) => void other.push(values));
    const doc = await stored('runbook.md', readFileSync(FIXTURES + 'runbook.md'));
    documentAnnouncer(b, silent)(doc);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...heard, ...other]).toEqual([[{ documentId: doc.id, tenantId }]]);
  });

  it('a message heard twice, malformed, or for a deleted or ready document does nothing but look at the queue', async () => {
    await setUp();
    const b = bus();
    const { logger, lines } = capturingLogger();
    processing = await startDocumentProcessing({ store, blobs, bus: b, logger }, { pollMs: 60_000 });
    const doc = await stored('runbook.md', readFileSync(FIXTURES + 'runbook.md'));
    const gone = await stored('gone.md', Buffer.from('# Gone\n'));
    expect(await store.withdrawDocument(gone.id, 60_000)).toBe(true);
    expect(await store.removeDocument(gone.id)).toBe(true);
    const announce = documentAnnouncer(b, logger);
    announce(doc);
    announce(doc);
    const ready = await settled(doc.id);
    expect(ready).toMatchObject({ status: 'ready', chunks: 1 });
    // The handler never throws (that would have the message delivered again and again): each publish resolves.
    await b.publish<unknown>('documents', [{ key: 'x', value: { documentId: 42 } }, { key: 'y', value: 'not an event' }]);
    await b.publish('documents', [{ key: gone.id, value: { documentId: gone.id, tenantId } }, { key: doc.id, value: { documentId: doc.id, tenantId } }]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await store.getDocument(doc.id, userId)).toEqual(ready);
    expect(await store.getDocument(gone.id, userId)).toBeNull();
    expect(lines().filter((l) => l['message'] === 'document processed')).toHaveLength(1);
    expect(lines().find((l) => l['message'] === 'skipped malformed document announcements')).toMatchObject({ skipped: 2 });
  }, 60_000);

  it('a publish that fails loses no document: the upload side logs it, and a worker finds the document at its next look', async () => {
    await setUp();
    // Nobody subscribed to this bus: its publish rejects (the embedded bus never drops a message silently).
    const broken = bus();
    const { logger, lines } = capturingLogger();
    const doc = await stored('runbook.md', readFileSync(FIXTURES + 'runbook.md'));
    expect(() => documentAnnouncer(broken, logger)(doc)).not.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines().find((l) => l['level'] === 'warn')).toMatchObject({ documentId: doc.id, message: expect.stringContaining('next look at the queue') });
    processing = await startDocumentProcessing({ store, blobs, bus: bus(), logger: silent }, { pollMs: 200 });
    expect(await settled(doc.id)).toMatchObject({ status: 'ready' });
  }, 60_000);

  it('a worker that stops gives the document under way back at once: the next claim takes it, one more attempt counted', async () => {
    await setUp();
    // About 8 MB of words: long enough to be stopped half-way.
    const words = Array.from({ length: 1_000_000 }, (_, i) => `word${i % 9973}`).join(' ');
    const big = await stored('big.md', Buffer.from(words));
    processing = await startDocumentProcessing({ store, blobs, bus: bus(), logger: silent }, { pollMs: 60_000, leaseMs: 60_000 });
    const deadline = Date.now() + 10_000;
    while ((await statusOf(big.id)) !== 'processing' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await statusOf(big.id)).toBe('processing');
    await processing.stop();
    processing = undefined;
    // Its 60 s lease ended when the worker stopped: taken at once, as the second attempt.
    const again = await store.claimDocument({ leaseMs: 60_000, maxAttempts: 3 });
    expect(again).toMatchObject({ document: { id: big.id }, attempt: 2 });
  }, 60_000);
});
