import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '@lantern/config';

type Env = Record<string, string | undefined>;

/** The problems loadConfig reports for `env`, with the whole text a person (and a log) would see. */
function failure(env: Env): { problems: string[]; text: string } {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return { problems: err.problems, text: `${err.message}\n${String(err)}\n${JSON.stringify(err)}` };
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig: chunking', () => {
  it('is 800 tokens with 400 of overlap by default, and reads both variables', () => {
    expect(loadConfig({}).chunking).toEqual({ tokens: 800, overlap: 400 });
    expect(loadConfig({ LANTERN_CHUNK_TOKENS: '4096', LANTERN_CHUNK_OVERLAP: '0' }).chunking).toEqual({ tokens: 4096, overlap: 0 });
    expect(loadConfig({ LANTERN_CHUNK_TOKENS: '100', LANTERN_CHUNK_OVERLAP: '50' }).chunking).toEqual({ tokens: 100, overlap: 50 });
  });

  it('takes half the chunk as the overlap by default when the chunk is under 800 tokens', () => {
    expect(loadConfig({ LANTERN_CHUNK_TOKENS: '300' }).chunking).toEqual({ tokens: 300, overlap: 150 });
  });

  it('refuses a chunk outside 100-4096 tokens and an overlap over half of it, naming the variables', () => {
    expect(failure({ LANTERN_CHUNK_TOKENS: '99' }).problems).toEqual(['LANTERN_CHUNK_TOKENS must be a whole number from 100 to 4096 (got "99")']);
    expect(failure({ LANTERN_CHUNK_TOKENS: '5000' }).problems).toEqual(['LANTERN_CHUNK_TOKENS must be a whole number from 100 to 4096 (got "5000")']);
    expect(failure({ LANTERN_CHUNK_TOKENS: '800', LANTERN_CHUNK_OVERLAP: '401' }).problems)
      .toEqual(['LANTERN_CHUNK_OVERLAP (401) must be at most half of LANTERN_CHUNK_TOKENS (800): at most 400']);
    expect(failure({ LANTERN_CHUNK_OVERLAP: '-1' }).problems).toEqual(['LANTERN_CHUNK_OVERLAP must be a whole number from 0 to 4096 (got "-1")']);
  });
});

describe('loadConfig: embeddings', () => {
  it('are off without LANTERN_EMBEDDINGS_URL', () => {
    expect(loadConfig({}).embeddings).toBeUndefined();
    expect(loadConfig({ LANTERN_EMBEDDINGS_URL: '' }).embeddings).toBeUndefined();
  });

  it('read the URL, model and key, with the defaults of the batch size and timeout', () => {
    expect(loadConfig({ LANTERN_EMBEDDINGS_URL: 'http://localhost:11434/v1', LANTERN_EMBEDDINGS_MODEL: 'nomic-embed-text' }).embeddings)
      .toEqual({ url: 'http://localhost:11434/v1', model: 'nomic-embed-text', batchSize: 64, timeoutMs: 30_000 });
    expect(loadConfig({
      LANTERN_EMBEDDINGS_URL: 'https://api.openai.com/v1', LANTERN_EMBEDDINGS_MODEL: 'text-embedding-3-small', LANTERN_EMBEDDINGS_API_KEY: 'sk-test-key',
      LANTERN_EMBEDDINGS_DIMENSIONS: '256', LANTERN_EMBEDDINGS_BATCH_SIZE: '16', LANTERN_EMBEDDINGS_TIMEOUT_MS: '5000',
    }).embeddings).toEqual({ url: 'https://api.openai.com/v1', model: 'text-embedding-3-small', apiKey: 'sk-test-key', dimensions: 256, batchSize: 16, timeoutMs: 5000 });
  });

  it('need a model with the URL, and a URL for a model or key', () => {
    expect(failure({ LANTERN_EMBEDDINGS_URL: 'http://localhost:11434/v1' }).problems).toEqual([expect.stringContaining('LANTERN_EMBEDDINGS_MODEL is required')]);
    expect(failure({ LANTERN_EMBEDDINGS_MODEL: 'nomic-embed-text' }).problems).toEqual([expect.stringContaining('need LANTERN_EMBEDDINGS_URL')]);
  });

  it('refuse a URL that is not http(s) or carries credentials, and never show the key or the URL in the message', () => {
    const key = 'sk-very-secret-key';
    const withCredentials = failure({ LANTERN_EMBEDDINGS_URL: `https://user:${key}@api.example.com/v1`, LANTERN_EMBEDDINGS_MODEL: 'm', LANTERN_EMBEDDINGS_API_KEY: key });
    expect(withCredentials.problems).toEqual([expect.stringContaining('must not carry credentials')]);
    expect(withCredentials.text).not.toContain(key);
    const notUrl = failure({ LANTERN_EMBEDDINGS_URL: `not a url ${key}`, LANTERN_EMBEDDINGS_MODEL: 'm' });
    expect(notUrl.problems).toEqual([expect.stringContaining('must be an http(s) URL')]);
    expect(notUrl.text).not.toContain(key);
    expect(failure({ LANTERN_EMBEDDINGS_URL: 'ftp://files.example.com/v1', LANTERN_EMBEDDINGS_MODEL: 'm' }).problems).toEqual(['LANTERN_EMBEDDINGS_URL must be an http or https URL']);
  });
});
