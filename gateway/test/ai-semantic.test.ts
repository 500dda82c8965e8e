import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { EmbeddingsConfig } from '@lantern/config';
import { startEmbeddingServer, type EmbeddingServer } from '../../services/ai/test/search/embedding-server.js';
import { createAiTenant, upload } from './ai-helpers.js';
import { bearer, createTenancy, startLantern, type HttpTarget, type Lantern, type Tenancy } from './harness.js';

/**
 * Semantic search over HTTP (issue 15): the embedded Lantern pointed at a small real server of the OpenAI-compatible
 * embeddings API whose deterministic vectors (hashed words, 64 dimensions) make synonyms point the same way, so a
 * query sharing no word with a document has the document's "meaning".
 */
const SYNONYMS = { automobile: 'car', motor: 'engine', vehicle: 'car' };
const CAR = 'The car engine overheats when idling in traffic. Check the coolant level first.';
const BILLING = 'Invoices are sent on the first day of each month by the billing service.';

interface Result { documentId: string; filename: string; score: number; text: string; highlights: [number, number][] }

const embeddingsOf = (server: EmbeddingServer): EmbeddingsConfig => ({ url: server.url, model: 'fake-64', batchSize: 2, timeoutMs: 2000 });

async function settled(l: HttpTarget, token: string, id: string, done: (doc: Record<string, unknown>) => boolean = (d) => d['status'] === 'ready' || d['status'] === 'failed') {
  for (let i = 0; i < 600; i++) {
    const doc = (await l.http.get(`/ai/docs/${id}`).set(bearer(token)).expect(200)).body as Record<string, unknown>;
    if (done(doc)) return doc;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`document ${id} never settled`);
}

async function search(l: HttpTarget, token: string, tenantId: string, query: string): Promise<Result[]> {
  const res = await l.http.post(`/ai/search?TenantId=${encodeURIComponent(tenantId)}`).set(bearer(token)).send({ query, limit: 5 }).expect(200);
  expect(res.body.query).toBe(query);
  return res.body.results as Result[];
}

/** A Lantern with one tenant holding the car and billing notes, both ready. */
async function withNotes(l: Lantern, label: string) {
  const t = await createTenancy(l, label);
  const tenantId = await createAiTenant(l, t.token, t.organizationId, 'Notes');
  const ids: Record<string, string> = {};
  for (const [name, text] of [['car.txt', CAR], ['billing.txt', BILLING]] as const) {
    ids[name] = (await upload(l, t.token, tenantId, text, name).expect(200)).body.id as string;
    expect(await settled(l, t.token, ids[name]!)).toMatchObject({ status: 'ready', chunks: 1 });
  }
  return { t, tenantId, ids };
}

describe('AI knowledge: semantic search', () => {
  let server: EmbeddingServer;
  let hybrid: Lantern;
  let lexical: Lantern;
  let h: Awaited<ReturnType<typeof withNotes>>;
  let x: Awaited<ReturnType<typeof withNotes>>;
  beforeAll(async () => {
    server = await startEmbeddingServer({ synonyms: SYNONYMS });
    hybrid = await startLantern({ processDocuments: true, embeddings: embeddingsOf(server) });
    lexical = await startLantern({ processDocuments: true });
    h = await withNotes(hybrid, 'hybrid');
    x = await withNotes(lexical, 'lexical');
  }, 60_000);
  afterAll(async () => {
    await hybrid?.stop();
    await lexical?.stop();
    await server?.close();
  });

  it('finds a document by meaning with embeddings on, and not without: the query shares no word with it', async () => {
    const found = await search(hybrid, h.t.token, h.tenantId, 'automobile motor');
    expect(found[0]).toMatchObject({ documentId: h.ids['car.txt'], filename: 'car.txt', text: CAR, score: 1, highlights: [] });
    expect(await search(lexical, x.t.token, x.tenantId, 'automobile motor')).toEqual([]);
    // The provider was asked for the query's vector, with the model.
    expect(server.requests.some((r) => r.body.model === 'fake-64' && r.body.input.length === 1 && r.body.input[0] === 'automobile motor')).toBe(true);
  });

  it('ranks a chunk found both ways first, scores fused by reciprocal rank relative to the best (1), in descending order', async () => {
    const results = await search(hybrid, h.t.token, h.tenantId, 'billing invoices');
    expect(results[0]).toMatchObject({ filename: 'billing.txt', score: 1 });
    expect(results[0]!.highlights.map(([s, e]) => results[0]!.text.slice(s, e).toLowerCase()).sort()).toEqual(['billing', 'invoices']);
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const score of scores.slice(1)) expect(score).toBeLessThan(1);
  });

  it('answers lexically while the provider is down, keeps an upload waiting for it (an attempt used), and processes it once it is back', async () => {
    server.failNext(1000, 503);
    try {
      // The query cannot be embedded: the answer is the lexical one, still 200.
      expect((await search(hybrid, h.t.token, h.tenantId, 'coolant')).map((r) => r.filename)).toEqual(['car.txt']);
      expect(await search(hybrid, h.t.token, h.tenantId, 'automobile motor')).toEqual([]);
      const text = 'Backups run nightly and are kept for thirty days.';
      const id = (await upload(hybrid, h.t.token, h.tenantId, text, 'backups.txt').expect(200)).body.id as string;
      // The worker's client tries 4 times (3 retries), then the attempt ends without a verdict: taken again later.
      for (let i = 0; i < 400 && server.requests.filter((r) => r.body.input.includes(text)).length < 4; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.requests.filter((r) => r.body.input.includes(text))).toHaveLength(4);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await hybrid.http.get(`/ai/docs/${id}`).set(bearer(h.t.token)).expect(200)).body).toMatchObject({ status: 'processing' });
      server.recover();
      await hybrid.http.post(`/ai/docs/${id}/reprocess`).set(bearer(h.t.token)).expect(202);
      expect(await settled(hybrid, h.t.token, id)).toMatchObject({ status: 'ready', chunks: 1 });
      expect((await search(hybrid, h.t.token, h.tenantId, 'backups nightly'))[0]).toMatchObject({ documentId: id, score: 1 });
    } finally {
      server.recover();
    }
  }, 60_000);
});

describe('AI knowledge: processing settings changed', () => {
  let server: EmbeddingServer;
  let second: Lantern | undefined;
  beforeAll(async () => {
    server = await startEmbeddingServer({ synonyms: SYNONYMS });
  });
  afterAll(async () => {
    await second?.stop();
    await server?.close();
  });

  it('processes the ready documents again when the process starts with other chunking or an embedding model', async () => {
    const first = await startLantern({ processDocuments: true, fileStore: true });
    const t = await createTenancy(first, 'settings');
    const tenantId = await createAiTenant(first, t.token, t.organizationId, 'Manuals');
    const text = Array.from({ length: 150 }, (_, i) => `Note ${i}: the car engine needs a coolant check before each long trip.`).join(' ');
    const id = (await upload(first, t.token, tenantId, text, 'manual.txt').expect(200)).body.id as string;
    const before = await settled(first, t.token, id);
    expect(before).toMatchObject({ status: 'ready' });
    expect(await search(first, t.token, tenantId, 'automobile')).toEqual([]);
    await first.close();

    // The same data, 200-token chunks without overlap, and semantic search on: the document is chunked again.
    second = await startLantern({ processDocuments: true, fileStore: true, dataDir: first.dataDir, chunking: { tokens: 200, overlap: 0 }, embeddings: embeddingsOf(server) });
    const after = await settled(second, t.token, id, (d) => d['status'] === 'ready' && d['chunks'] !== before['chunks']);
    expect(after['chunks']).toBeGreaterThan(before['chunks'] as number);
    const found = await search(second, t.token, tenantId, 'automobile');
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((r) => r.documentId === id)).toBe(true);
    // Every chunk was embedded.
    expect(server.requests.flatMap((r) => r.body.input).filter((input) => text.includes(input)).length).toBeGreaterThanOrEqual(after['chunks'] as number);
  }, 120_000);
});
