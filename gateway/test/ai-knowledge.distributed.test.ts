import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMinioBlobStore, minioOptionsFromUrl } from '@lantern/blobs/minio';
import { createKafkaBus } from '@lantern/bus/kafka';
import { pdfOf } from '../../packages/extract/test/helpers.js';
import { expectError } from './accounts-helpers.js';
import { FIXTURE_TYPES, createAiTenant, fixture, listDocs, sha256, upload } from './ai-helpers.js';
import { startCluster, type Cluster, type ServiceProc } from './distributed/cluster.js';
import { eventually } from './distributed/eventually.js';
import { bearer, createTenancy, type Tenancy } from './harness.js';

/**
 * Issue 15 in the distributed mode: the ai service stores uploads in MinIO and announces them on Kafka; two
 * `lantern ai-worker` processes (one consumer group) extract, chunk and index them (postings in mongod, packages/store/src/mongo/postings.ts). Everything
 * through nginx, as a client sees it: the failure codes, dedupe, isolation between organizations, hostile queries,
 * a delete while the document is processed, and a worker killed with SIGKILL mid-document.
 */

type Doc = Record<string, unknown> & { id: string; status: string };
type LogLine = Record<string, unknown> & { message?: string };

/** The JSON lines a service process wrote so far. */
function logOf(p: ServiceProc): LogLine[] {
  return readFileSync(p.logFile, 'utf8').split('\n').flatMap((line) => {
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/**
 * A PDF of `pages` pages of 60 lines of words, `word` on its first page: some megabytes that take the processing
 * thread seconds (pdf.js parses about 1 MB/s, docs/benchmarks.md), long enough to act on a document under way.
 */
function slowPdf(word: string, pages: number): Buffer {
  const line = (p: number, i: number) => `Line ${i} of page ${p}: the checkout ledger settles orders, refunds and invoices every night.`;
  return pdfOf(Array.from({ length: pages }, (_, p) => Array.from({ length: 60 }, (_, i) => (p === 0 && i === 0 ? `The ${word} procedure starts here.` : line(p + 1, i)))));
}

describe('distributed: AI documents through nginx, processed by two ai-worker processes', () => {
  let c: Cluster;
  let t: Tenancy;
  let outsider: Tenancy;
  let tenantId: string;
  beforeAll(async () => {
    // A short lease, so that a killed worker's document is taken over within seconds (DOCUMENT_LEASE_MS); info logs
    // to see which process took and processed what.
    c = await startCluster({ 'ai-worker': 2 }, { DOCUMENT_LEASE_MS: '12000', LOG_LEVEL: 'info' });
    t = await createTenancy(c, 'knowledge');
    outsider = await createTenancy(c, 'outsider');
    tenantId = await createAiTenant(c, t.token, t.organizationId, 'Runbooks');
  }, 180_000);
  afterAll(() => c?.stop());

  const getDoc = (id: string, token = t.token) => c.http.get(`/ai/docs/${id}`).set(bearer(token));
  const search = (body: object, tenant = tenantId, token = t.token) => c.http.post(`/ai/search?TenantId=${encodeURIComponent(tenant)}`).set(bearer(token)).send(body);
  const files = async (query: string) => ((await search({ query }).expect(200)).body.results as { filename: string }[]).map((r) => r.filename).sort();

  async function settled(id: string, { token = t.token, timeoutMs = 60_000 } = {}): Promise<Doc> {
    let doc: Doc | undefined;
    await eventually(async () => {
      doc = (await getDoc(id, token).expect(200)).body as Doc;
      expect(['ready', 'failed']).toContain(doc.status);
    }, timeoutMs, 200);
    return doc!;
  }

  /** The lines `message` about this document in the ai-workers' logs, each with the worker's index, in time order. */
  const workerLines = (message: string, documentId: string) =>
    c.procs['ai-worker'].flatMap((p, worker) => logOf(p).filter((l) => l.message === message && l['documentId'] === documentId).map((l): LogLine & { worker: number } => ({ ...l, worker })))
      .sort((a, b) => String(a['timestamp']).localeCompare(String(b['timestamp'])));

  const uploaded: Record<string, Doc> = {};

  it('answers uploads with stored; the ai-workers, not the ai service, make them ready or failed with the documented codes', async () => {
    const names = ['runbook.pdf', 'runbook-pandoc.docx', 'encrypted.pdf', 'scanned.pdf', 'truncated.pdf'] as const;
    for (const name of names) {
      const res = await upload(c, t.token, tenantId, fixture(name), name, name.endsWith('.docx') ? FIXTURE_TYPES.DOCX : undefined).expect(200);
      expect(res.body).toMatchObject({ status: 'stored', filename: name, tenantId, sha256: sha256(fixture(name)) });
      uploaded[name] = res.body as Doc;
    }
    const outcome = (name: string) => settled(uploaded[name]!.id);
    expect(await outcome('runbook.pdf')).toEqual({ ...uploaded['runbook.pdf'], status: 'ready', chunks: 1, characters: expect.any(Number), pages: 1 });
    expect(await outcome('runbook-pandoc.docx')).toEqual({ ...uploaded['runbook-pandoc.docx'], status: 'ready', chunks: 1, characters: expect.any(Number) });
    expect(await outcome('encrypted.pdf')).toMatchObject({ status: 'failed', error: { code: 'encrypted', message: expect.any(String) } });
    expect(await outcome('scanned.pdf')).toMatchObject({ status: 'failed', error: { code: 'no_text', message: 'no text layer; OCR is not supported' } });
    expect(await outcome('truncated.pdf')).toMatchObject({ status: 'failed', error: { code: 'unreadable' } });
    // Each was processed once, by an ai-worker; the ai process that took the uploads extracted nothing.
    // The status is stored before the log line reaches its file: the lines are awaited.
    await eventually(async () => {
      for (const name of names) expect(workerLines('document processed', uploaded[name]!.id)).toHaveLength(1);
    }, 10_000);
    expect(logOf(c.procs.ai[0]!).filter((l) => l.message === 'document processed' || l.message === 'document taken')).toEqual([]);
  });

  it('announces every upload on Kafka\'s documents topic: the document and its tenant, nothing more', async () => {
    const bus = createKafkaBus({ brokers: [c.env.LANTERN_KAFKA_BROKERS!], clientId: 'ai-distributed-test', topicPrefix: c.env.LANTERN_KAFKA_TOPIC_PREFIX! });
    const heard: unknown[] = [];
    try {
      // A group of its own reads the topic from its beginning.
      const sub = await bus.subscribe('documents', 'test-observer', async (values) => void heard.push(...values));
      await eventually(async () => expect(heard).toHaveLength(5), 30_000);
      await sub.stop();
    } finally {
      await bus.close();
    }
    expect(heard).toEqual(expect.arrayContaining(Object.values(uploaded).map((d) => ({ documentId: d.id, tenantId }))));
  });

  it('finds the PDF\'s passage with its page through the postings in mongod; the DOCX has no page', async () => {
    const res = await search({ query: 'circuit breaker', limit: 5 }).expect(200);
    const results = res.body.results as Array<{ filename: string; page?: number; pages?: number[]; text: string; highlights: [number, number][] }>;
    expect(results.map((r) => r.filename).sort()).toEqual(['runbook-pandoc.docx', 'runbook.pdf']);
    const pdf = results.find((r) => r.filename === 'runbook.pdf')!;
    expect({ page: pdf.page, pages: pdf.pages }).toEqual({ page: 1, pages: [1, 1] });
    expect(pdf.highlights.map(([s, e]) => pdf.text.slice(s, e).toLowerCase())).toEqual(expect.arrayContaining(['circuit', 'breaker']));
    expect(results.find((r) => r.filename === 'runbook-pandoc.docx')).not.toHaveProperty('page');
  });

  it('dedupes by sha256 within a tenant: the same bytes again answer the existing record, nothing stored twice', async () => {
    const again = await upload(c, t.token, tenantId, fixture('runbook.pdf'), 'copy-of-runbook.pdf').expect(200);
    expect(again.body).toEqual((await getDoc(uploaded['runbook.pdf']!.id).expect(200)).body);
    expect((await listDocs(c, t.token, tenantId)).filter((d) => d['sha256'] === sha256(fixture('runbook.pdf')))).toHaveLength(1);
    // Another tenant keeps its own copy.
    const other = await createAiTenant(c, t.token, t.organizationId, 'Elsewhere');
    const copy = await upload(c, t.token, other, fixture('runbook.pdf'), 'runbook.pdf').expect(200);
    expect(copy.body.id).not.toBe(uploaded['runbook.pdf']!.id);
    expect(await settled(copy.body.id)).toMatchObject({ status: 'ready', pages: 1 });
  });

  it('reads hostile queries as literal text against the postings; empty, blank or over-long queries are 400', async () => {
    const runbooks = ['runbook-pandoc.docx', 'runbook.pdf'];
    expect(await files('"circuit breaker" NEAR(fallback*) -provider')).toEqual(runbooks);
    expect(await files('{"$where": "sleep(1000)"} OR 1=1 [breaker]')).toEqual(runbooks);
    expect(await files('{"$regex": ".*"} $text $search breaker')).toEqual(runbooks);
    expect(await files('breaker)))((( \\"')).toEqual(runbooks);
    expect(await files('break\u0000er\u0007\u001b')).toEqual(runbooks);
    expect((await search({ query: '"*" - () {} $ [] \\' }).expect(200)).body).toEqual({ query: '"*" - () {} $ [] \\', results: [] });
    for (const body of [{}, { query: '' }, { query: ' \n\t ' }, { query: 'x'.repeat(1001) }, { query: { $ne: '' } }, { query: 'a', limit: 51 }]) {
      expectError(await search(body), 400, 'validation_failed');
    }
  });

  it('keeps organizations apart: another organization\'s user reads, searches, reprocesses and deletes nothing (404)', async () => {
    const doc = uploaded['runbook.pdf']!;
    expectError(await getDoc(doc.id, outsider.token), 404, 'not_found');
    expectError(await search({ query: 'breaker' }, tenantId, outsider.token), 404, 'not_found');
    expectError(await c.http.post(`/ai/docs/${doc.id}/reprocess`).set(bearer(outsider.token)), 404, 'not_found');
    expectError(await c.http.delete(`/ai/docs/${doc.id}`).set(bearer(outsider.token)), 404, 'not_found');
    expectError(await c.http.get(`/ai/docs?TenantId=${tenantId}`).set(bearer(outsider.token)), 404, 'not_found');
    // Their own tenant, searched for our words or with our document's id, answers nothing of ours.
    const theirs = await createAiTenant(c, outsider.token, outsider.organizationId, 'Theirs');
    const mine = await upload(c, outsider.token, theirs, 'The flamingo roster of the outsider team.\n', 'roster.md').expect(200);
    expect(await settled(mine.body.id, { token: outsider.token })).toMatchObject({ status: 'ready' });
    expect((await search({ query: 'breaker' }, theirs, outsider.token).expect(200)).body.results).toEqual([]);
    expect((await search({ query: 'breaker', documentIds: [doc.id] }, theirs, outsider.token).expect(200)).body.results).toEqual([]);
    expect(await files('flamingo')).toEqual([]);
    expect(await getDoc(doc.id).expect(200)).toMatchObject({ body: { status: 'ready' } });
  });

  it('reprocesses: back to stored at once, then ready again by a worker', async () => {
    const doc = uploaded['runbook-pandoc.docx']!;
    const requeued = await c.http.post(`/ai/docs/${doc.id}/reprocess`).set(bearer(t.token)).expect(202);
    expect(requeued.body).toMatchObject({ id: doc.id, status: 'stored' });
    expect(await settled(doc.id)).toMatchObject({ status: 'ready', chunks: 1 });
    await eventually(async () => expect(workerLines('document processed', doc.id)).toHaveLength(2), 10_000);
  });

  it('deletes a document while a worker processes it: 204, gone from search and object storage, never back', async () => {
    const res = await upload(c, t.token, tenantId, slowPdf('zeppelinfold', 600), 'long.pdf').expect(200);
    const id = res.body.id as string;
    await eventually(async () => expect((await getDoc(id).expect(200)).body.status).toBe('processing'), 30_000, 50);
    await c.http.delete(`/ai/docs/${id}`).set(bearer(t.token)).expect(204);
    expectError(await getDoc(id), 404, 'not_found');
    // The worker finishes its extraction and finds its claim gone: nothing of it is kept.
    await eventually(async () => expect(workerLines('document processed', id)).toMatchObject([{ kept: false }]), 90_000, 500);
    expect(await files('zeppelinfold')).toEqual([]);
    const blobs = await createMinioBlobStore(minioOptionsFromUrl(process.env.LANTERN_TEST_MINIO_URL!, c.env.LANTERN_MINIO_BUCKET!));
    try {
      expect(await blobs.exists(`tenants/${tenantId}/documents/${id}`)).toBe(false);
    } finally {
      await blobs.close();
    }
  }, 120_000);

  it('a worker killed with SIGKILL mid-document leaves it to the other, which makes it ready once its lease ran out', async () => {
    const res = await upload(c, t.token, tenantId, slowPdf('quokkaledger', 600), 'ledger.pdf').expect(200);
    const id = res.body.id as string;
    await eventually(async () => expect(workerLines('document taken', id)).toHaveLength(1), 30_000, 50);
    const [{ worker: first }] = workerLines('document taken', id) as [{ worker: number }];
    expect((await getDoc(id).expect(200)).body.status).toBe('processing');
    await c.kill('ai-worker', first, 'SIGKILL');
    // Still processing, under the dead worker's lease, until it runs out (DOCUMENT_LEASE_MS, 12 s here).
    expect((await getDoc(id).expect(200)).body.status).toBe('processing');
    const doc = await settled(id, { timeoutMs: 120_000 });
    expect(doc).toMatchObject({ status: 'ready', pages: 600 });
    const survivor = 1 - first;
    expect(workerLines('document taken', id)).toEqual([
      expect.objectContaining({ worker: first, attempt: 1 }),
      expect.objectContaining({ worker: survivor, attempt: 2 }),
    ]);
    await eventually(async () => expect(workerLines('document processed', id)).toEqual([expect.objectContaining({ worker: survivor, attempt: 2, outcome: 'ready', kept: true })]), 10_000);
    const hit = (await search({ query: 'quokkaledger' }).expect(200)).body.results as Array<{ filename: string; page: number }>;
    expect(hit.map((r) => [r.filename, r.page])).toEqual([['ledger.pdf', 1]]);
  }, 180_000);

  it('an ai-worker stopped with SIGTERM mid-document exits 0 and gives the document back; a worker started later makes it ready', async () => {
    // One worker is left (the other was killed above): it takes the document.
    const alive = c.procs['ai-worker'].findIndex((p) => p.child.exitCode === null && p.child.signalCode === null);
    const worker = c.procs['ai-worker'][alive]!;
    const res = await upload(c, t.token, tenantId, slowPdf('wombatvault', 600), 'vault.pdf').expect(200);
    const id = res.body.id as string;
    await eventually(async () => expect(workerLines('document taken', id)).toHaveLength(1), 30_000, 50);
    const [exit] = await Promise.all([worker.exited, c.kill('ai-worker', alive, 'SIGTERM')]);
    expect(exit).toEqual({ code: 0, signal: null });
    // Its last lines may reach the file after the exit: awaited.
    await eventually(async () => expect(logOf(worker).filter((l) => l['documentId'] === id).map((l) => l.message)).toEqual(['document taken', 'document given back: the worker stops']), 10_000);
    // No worker runs now: the document waits, given back, for the next one.
    expect((await getDoc(id).expect(200)).body.status).toBe('processing');
    await c.restart('ai-worker', 1 - alive);
    expect(await settled(id, { timeoutMs: 120_000 })).toMatchObject({ status: 'ready', pages: 600 });
    expect(workerLines('document taken', id).map((l) => [l.worker, l['attempt']])).toEqual([[alive, 1], [1 - alive, 2]]);
  }, 180_000);
});
