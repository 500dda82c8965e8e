import { afterEach, describe, expect, it } from '@jest/globals';
import { createEmbedder, EmbeddingError } from '../../src/search/embeddings.js';
import { startEmbeddingServer, type EmbeddingServer } from './embedding-server.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((n, x, i) => n + x * b[i]!, 0);

/** The client of OpenAI-compatible embedding APIs, against a real HTTP server speaking that API. */
describe('ai search: embeddings client', () => {
  let server: EmbeddingServer;
  afterEach(() => server?.close());

  it('sends the texts in batches with the model, dimensions and key, and gives unit vectors in input order', async () => {
    server = await startEmbeddingServer({ apiKey: 'sk-test-123' });
    const embedder = createEmbedder({ url: `${server.url}/`, model: 'text-embedding-3-small', apiKey: 'sk-test-123', dimensions: 32, batchSize: 2 });
    const texts = ['payment provider slow', 'the payment provider is slow today', 'heap snapshots of the importer', 'slow payment provider'];
    const vectors = await embedder.embed(texts);
    expect(server.requests.map((r) => r.body.input)).toEqual([texts.slice(0, 2), texts.slice(2)]);
    expect(server.requests.every((r) => r.authorization === 'Bearer sk-test-123' && r.body.model === 'text-embedding-3-small' && r.body.dimensions === 32)).toBe(true);
    expect(vectors.map((v) => v.length)).toEqual([32, 32, 32, 32]);
    for (const v of vectors) expect(dot(v, v)).toBeCloseTo(1, 5);
    // In order: the first and last texts hold the same words, so the same vector.
    expect(dot(vectors[0]!, vectors[3]!)).toBeCloseTo(1, 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));
  });

  it('retries a 429 after its Retry-After and a 503 with backoff, then answers', async () => {
    server = await startEmbeddingServer();
    server.failNext(1, 429, { 'retry-after': '0' });
    server.failNext(1, 503);
    const vectors = await createEmbedder({ url: server.url, model: 'm', backoffMs: 10 }).embed(['hello']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400 or a 401, and its error names the status but never the key', async () => {
    server = await startEmbeddingServer({ apiKey: 'sk-right' });
    const embedder = createEmbedder({ url: server.url, model: 'm', apiKey: 'sk-wrong-secret', backoffMs: 10 });
    const err = await embedder.embed(['hello']).catch((e: unknown) => e as EmbeddingError);
    expect(err).toBeInstanceOf(EmbeddingError);
    expect(err).toMatchObject({ status: 401, message: expect.stringContaining('answered 401') });
    // The server's answer quoted the key: the error says *** in its place.
    expect((err as Error).message).toContain('Incorrect API key provided: ***.');
    expect((err as Error).message).not.toContain('sk-wrong-secret');
    server.failNext(1, 400, {}, '{"error":{"message":"dimensions not supported"}}');
    await expect(createEmbedder({ url: server.url, model: 'm', apiKey: 'sk-right' }).embed(['x'])).rejects.toMatchObject({ status: 400, message: expect.stringContaining('dimensions not supported') });
    expect(server.requests).toHaveLength(2);
  });

  it('keeps no part of the key where a long answer echoes it across the 300 characters an error quotes', async () => {
    server = await startEmbeddingServer();
    const key = 'sk-proj-SECRETSECRETSECRET';
    // The key starts 10 characters before the cut: cutting first would keep 'sk-proj-SE'.
    server.failNext(1, 400, {}, `${'x'.repeat(290)}${key} and more`);
    const err = (await createEmbedder({ url: server.url, model: 'm', apiKey: key }).embed(['x']).then(() => new Error('embedded'), (e: unknown) => e)) as Error;
    expect(err.message).toContain('answered 400');
    expect(err.message).not.toContain('sk-proj');
    expect(err.message).toContain(`${'x'.repeat(290)}***`);
  });

  it('gives up after its retries with the last failure, and when the answer waits longer than a minute', async () => {
    server = await startEmbeddingServer();
    server.failNext(4, 502);
    await expect(createEmbedder({ url: server.url, model: 'm', retries: 3, backoffMs: 5 }).embed(['x'])).rejects.toMatchObject({ status: 502 });
    expect(server.requests).toHaveLength(4);
    server.failNext(1, 429, { 'retry-after': '3600' });
    await expect(createEmbedder({ url: server.url, model: 'm', backoffMs: 5 }).embed(['x'])).rejects.toMatchObject({ status: 429 });
    expect(server.requests).toHaveLength(5);
  });

  it('refuses malformed answers without retrying them: too few vectors, lengths apart, numbers that are not finite', async () => {
    server = await startEmbeddingServer();
    const embedder = createEmbedder({ url: server.url, model: 'm', backoffMs: 5 });
    server.answerNext(1, { data: [{ index: 0, embedding: [1, 0] }] });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow('answered 1 vectors for 2 texts');
    server.answerNext(1, { data: [{ index: 0, embedding: [1, 0] }, { index: 1, embedding: [1, 0, 0] }] });
    await expect(embedder.embed(['a', 'b'])).rejects.toThrow('different lengths');
    server.answerNext(1, { data: [{ index: 0, embedding: [1, 'NaN'] }] });
    await expect(embedder.embed(['a'])).rejects.toThrow('not finite');
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a URL carrying credentials or of another scheme, without repeating it', () => {
    expect(() => createEmbedder({ url: 'http://user:sk-in-url@127.0.0.1:1/v1', model: 'm' })).toThrow('must not carry credentials');
    expect(() => createEmbedder({ url: 'http://user:sk-in-url@127.0.0.1:1/v1', model: 'm' })).not.toThrow('sk-in-url');
    expect(() => createEmbedder({ url: 'file:///etc/passwd', model: 'm' })).toThrow('must be http or https');
  });

  it('says where it could not reach the API, after its retries', async () => {
    server = await startEmbeddingServer();
    const url = server.url;
    await server.close();
    await expect(createEmbedder({ url, model: 'm', retries: 1, backoffMs: 5 }).embed(['x'])).rejects.toThrow(/^The embeddings API could not be reached: /);
    server = await startEmbeddingServer();
  });
});
