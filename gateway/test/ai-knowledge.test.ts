import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createAiTenant, fixture, upload } from './ai-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Upload, processing by the embedded worker, the document's status, search, reprocess and delete, over HTTP (issue 15). */
describe('AI knowledge: documents become searchable', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern({ processDocuments: true });
    t = await createTenancy(l, 'knowledge');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'Runbooks');
  });
  afterAll(() => l.stop());

  const getDoc = (id: string) => l.http.get(`/ai/docs/${id}`).set(bearer(t.token));
  const search = (body: unknown, tenant = tenantId, token = t.token) => l.http.post(`/ai/search?TenantId=${encodeURIComponent(tenant)}`).set(bearer(token)).send(body as object);
  async function settled(id: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 400; i++) {
      const doc = (await getDoc(id).expect(200)).body as Record<string, unknown>;
      if (doc['status'] === 'ready' || doc['status'] === 'failed') return doc;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`document ${id} never settled`);
  }

  it('answers the upload at once with stored, then the worker makes each fixture ready with its counts, or failed with its reason', async () => {
    const uploaded: Record<string, Record<string, unknown>> = {};
    for (const [name, type] of [['runbook.pdf', undefined], ['runbook-pandoc.docx', DOCX], ['scanned.pdf', undefined], ['encrypted.pdf', undefined], ['truncated.pdf', undefined], ['notes-latin1.txt', undefined]] as const) {
      const res = await upload(l, t.token, tenantId, fixture(name), name, type).expect(200);
      expect(res.body.status).toBe('stored');
      uploaded[name] = res.body;
    }
    const outcome = async (name: string) => settled(uploaded[name]!['id'] as string);
    expect(await outcome('runbook.pdf')).toEqual({ ...uploaded['runbook.pdf'], status: 'ready', chunks: 1, characters: expect.any(Number), pages: 1 });
    expect(await outcome('runbook-pandoc.docx')).toEqual({ ...uploaded['runbook-pandoc.docx'], status: 'ready', chunks: 1, characters: expect.any(Number) });
    expect(await outcome('scanned.pdf')).toMatchObject({ status: 'failed', error: { code: 'no_text', message: 'no text layer; OCR is not supported' } });
    expect(await outcome('encrypted.pdf')).toMatchObject({ status: 'failed', error: { code: 'encrypted' } });
    expect(await outcome('truncated.pdf')).toMatchObject({ status: 'failed', error: { code: 'unreadable' } });
    expect(await outcome('notes-latin1.txt')).toMatchObject({ status: 'ready', characters: 'Café Zürich, naïve timestamps.\n'.length });
  });

  it('finds the passage with its file, page and highlighted words, best first, in descending score', async () => {
    const res = await search({ query: 'circuit breaker', limit: 5 }).expect(200);
    expect(res.body.query).toBe('circuit breaker');
    const results = res.body.results as Array<{ filename: string; page?: number; pages?: number[]; score: number; text: string; highlights: [number, number][] }>;
    expect(results.map((r) => r.filename).sort()).toEqual(['runbook-pandoc.docx', 'runbook.pdf']);
    for (const r of results) {
      expect(r.highlights.map(([s, e]) => r.text.slice(s, e).toLowerCase())).toEqual(expect.arrayContaining(['circuit', 'breaker']));
    }
    const pdf = results.find((r) => r.filename === 'runbook.pdf')!;
    expect({ page: pdf.page, pages: pdf.pages }).toEqual({ page: 1, pages: [1, 1] });
    expect(results.find((r) => r.filename === 'runbook-pandoc.docx')).not.toHaveProperty('page');
    expect(results.map((r) => r.score)).toEqual([...results.map((r) => r.score)].sort((a, b) => b - a));
    // Case and accents do not matter; the Latin-1 notes were decoded.
    expect((await search({ query: 'ZURICH cafe' }).expect(200)).body.results.map((r: { filename: string }) => r.filename)).toContain('notes-latin1.txt');
  });

  it('reads the query as the user\'s literal text: syntax characters stand for themselves, only punctuation finds nothing', async () => {
    const files = async (query: string) => ((await search({ query }).expect(200)).body.results as { filename: string }[]).map((r) => r.filename).sort();
    const runbooks = ['runbook-pandoc.docx', 'runbook.pdf'];
    // `-provider` excludes nothing and `fallback*` is the word fallback: the runbooks hold these words.
    expect(await files('"circuit breaker" NEAR(fallback*) -provider')).toEqual(runbooks);
    expect(await files('{"$where": "sleep(1000)"} OR 1=1 [breaker]')).toEqual(runbooks);
    expect(await files('breaker)))(((')).toEqual(runbooks);
    // Operators of other query languages are words like any other: the runbooks hold "and" and "not".
    expect(await files('AND OR NOT')).toEqual(runbooks);
    expect((await search({ query: '"*" - () {} $' }).expect(200)).body).toEqual({ query: '"*" - () {} $', results: [] });
    expect((await search({ query: 'break\u0000er' }).expect(200)).body.results.length).toBeGreaterThan(0);
  });

  it('refuses an empty, blank or over-long query, and a bad limit, with 400; a tenant the user cannot see is 404', async () => {
    for (const body of [{}, { query: '' }, { query: ' \n\t ' }, { query: 'x'.repeat(1001) }, { query: 'a', limit: 0 }, { query: 'a', limit: 51 }, { query: 'a', extra: 1 }]) {
      expectError(await search(body), 400, 'validation_failed');
    }
    const other = await createTenancy(l, 'outsider');
    expectError(await search({ query: 'breaker' }, tenantId, other.token), 404, 'not_found');
    expectError(await getDoc('00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  it('processes a reprocessed document again (stored, then ready), and takes a deleted one out of search at once', async () => {
    const doc = (await upload(l, t.token, tenantId, 'The quarterly flamingo audit is due on Friday.\n', 'flamingo.md').expect(200)).body as { id: string };
    await settled(doc.id);
    const found = async () => (await search({ query: 'flamingo' }).expect(200)).body.results.length as number;
    expect(await found()).toBe(1);
    const requeued = await l.http.post(`/ai/docs/${doc.id}/reprocess`).set(bearer(t.token)).expect(202);
    expect(requeued.body).toMatchObject({ id: doc.id, status: 'stored' });
    expect(requeued.body).not.toHaveProperty('chunks');
    expect(await settled(doc.id)).toMatchObject({ status: 'ready', chunks: 1 });
    expect(await found()).toBe(1);
    await l.http.delete(`/ai/docs/${doc.id}`).set(bearer(t.token)).expect(204);
    expect(await found()).toBe(0);
    expectError(await l.http.post(`/ai/docs/${doc.id}/reprocess`).set(bearer(t.token)), 404, 'not_found');
  });
});
