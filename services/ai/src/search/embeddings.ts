/**
 * Optional semantic search: a client of the OpenAI-compatible `POST {url}/embeddings` API that OpenAI, Ollama, vLLM,
 * Hugging Face TEI, LiteLLM and others serve. Texts go in batches; vectors come back in input order, scaled to
 * unit length (so a dot product is their cosine). A 429, a 5xx or a network failure is retried with backoff (the
 * server's Retry-After when it gives one); another 4xx is not. Errors never carry the API key (replaced by *** where
 * a provider's answer echoes it) nor the URL's query; a URL carrying credentials is refused.
 */
export interface EmbeddingsOptions {
  /** The API's base URL, the path before `/embeddings`: `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  url: string;
  model: string;
  apiKey?: string;
  /** Asked of models that can shorten their vectors (OpenAI's text-embedding-3); others ignore it or refuse it. */
  dimensions?: number;
  /** Texts per request. */
  batchSize?: number;
  timeoutMs?: number;
  /** Retries after the first try of a request. */
  retries?: number;
  /** The first backoff (doubled each retry, with jitter), when the server gives no Retry-After. */
  backoffMs?: number;
}

export interface Embedder {
  readonly model: string;
  /** One unit vector per text, in order; throws an EmbeddingError when the provider cannot give them. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export class EmbeddingError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/** Longest wait a Retry-After may ask for before the request is given up. */
const MAX_RETRY_AFTER_MS = 60_000;

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The vectors of one response, in input order, each finite and of one length, scaled to unit length. */
function vectorsOf(body: unknown, count: number): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) throw new EmbeddingError(`The embeddings API answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts.`);
  const out: Float32Array[] = new Array<Float32Array>(count);
  let length: number | undefined;
  for (const [position, item] of data.entries()) {
    const { index = position, embedding } = item as { index?: number; embedding?: unknown };
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index] || !Array.isArray(embedding) || embedding.length === 0) {
      throw new EmbeddingError('The embeddings API answered a vector that is not a list of numbers for one of the texts.');
    }
    length ??= embedding.length;
    if (embedding.length !== length || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new EmbeddingError('The embeddings API answered vectors of different lengths, or numbers that are not finite.');
    }
    const vector = Float32Array.from(embedding as number[]);
    let sum = 0;
    for (const x of vector) sum += x * x;
    const norm = Math.sqrt(sum);
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
    out[index] = vector;
  }
  return out;
}

/** The endpoint of a base URL; a URL that is not http(s) or carries credentials is refused (the key goes in `apiKey`). */
function endpointOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EmbeddingError('The embeddings URL is not a valid URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new EmbeddingError('The embeddings URL must be http or https.');
  if (parsed.username !== '' || parsed.password !== '') throw new EmbeddingError('The embeddings URL must not carry credentials: give the key as the API key.');
  let base = `${parsed.origin}${parsed.pathname}`;
  while (base.endsWith('/')) base = base.slice(0, -1);
  return `${base}/embeddings${parsed.search}`;
}

export function createEmbedder(options: EmbeddingsOptions): Embedder {
  const { model, apiKey, dimensions, batchSize = 64, timeoutMs = 30_000, retries = 3, backoffMs = 500 } = options;
  const endpoint = endpointOf(options.url);
  /** What an error may say: never the key, even where a provider or a proxy echoed it, nor the provider's address. */
  const redact = (text: string): string => (apiKey ? text.split(apiKey).join('***') : text);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) };

  async function request(input: readonly string[]): Promise<Float32Array[]> {
    const body = JSON.stringify({ model, input, encoding_format: 'float', ...(dimensions ? { dimensions } : {}) });
    for (let attempt = 0; ; attempt++) {
      let wait: number;
      let failure: EmbeddingError;
      try {
        const res = await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) });
        if (res.ok) return vectorsOf(await res.json(), input.length);
        // The key out first, then the cut: a cut first could leave the start of a key the provider echoed.
        const text = redact(await res.text()).slice(0, 300);
        failure = new EmbeddingError(`The embeddings API answered ${res.status}: ${text}`, res.status);
        if (res.status !== 429 && res.status < 500) throw failure;
        wait = retryAfterMs(res.headers.get('retry-after')) ?? backoffMs * 2 ** attempt * (0.5 + Math.random());
      } catch (err) {
        if (err instanceof EmbeddingError && (err.status === undefined || (err.status !== 429 && err.status < 500))) throw err;
        // Not the provider's address: this message may become a document's error, which every member reads.
        failure = err instanceof EmbeddingError ? err : new EmbeddingError(redact(`The embeddings API could not be reached: ${(err as Error).message}`));
        wait = backoffMs * 2 ** attempt * (0.5 + Math.random());
      }
      if (attempt >= retries || wait > MAX_RETRY_AFTER_MS) throw failure;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  return {
    model,
    async embed(texts) {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) vectors.push(...(await request(texts.slice(i, i + batchSize))));
      return vectors;
    },
  };
}
