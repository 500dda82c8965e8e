/**
 * The AI documents' processing settings (docs/api.md, "AI documents: processing and search"): how documents are
 * chunked, and the optional embedding provider of semantic search (any server of the OpenAI-compatible
 * `/v1/embeddings` API: OpenAI, Ollama, vLLM, Hugging Face TEI, ...). The API key is never part of a message.
 */
import { HIDDEN, type Reader } from './reader.js';

export interface ChunkingConfig {
  /** Tokens (o200k) per chunk, 100-4096 (LANTERN_CHUNK_TOKENS). */
  tokens: number;
  /** Tokens a chunk repeats of the one before, at most half of `tokens` (LANTERN_CHUNK_OVERLAP). */
  overlap: number;
}

export interface EmbeddingsConfig {
  /** The API's base URL, the path before `/embeddings` (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  url: string;
  model: string;
  apiKey?: string;
  /** Asked of models that can shorten their vectors (OpenAI's text-embedding-3). */
  dimensions?: number;
  /** Chunks per request. */
  batchSize: number;
  /** Time one request may take, in ms. */
  timeoutMs: number;
}

export const DEFAULT_CHUNKING_CONFIG: ChunkingConfig = { tokens: 800, overlap: 400 };
export const MIN_CHUNK_TOKENS = 100;
export const MAX_CHUNK_TOKENS = 4096;

export function chunkingConfig(r: Reader): ChunkingConfig {
  const tokens = r.int('LANTERN_CHUNK_TOKENS', DEFAULT_CHUNKING_CONFIG.tokens, MIN_CHUNK_TOKENS, MAX_CHUNK_TOKENS);
  const overlap = r.int('LANTERN_CHUNK_OVERLAP', Math.min(DEFAULT_CHUNKING_CONFIG.overlap, Math.floor(tokens / 2)), 0, MAX_CHUNK_TOKENS);
  if (overlap > Math.floor(tokens / 2)) {
    r.problems.push(`LANTERN_CHUNK_OVERLAP (${overlap}) must be at most half of LANTERN_CHUNK_TOKENS (${tokens}): at most ${Math.floor(tokens / 2)}`);
  }
  return { tokens, overlap };
}

/** Semantic search's provider, or undefined (off) when LANTERN_EMBEDDINGS_URL is unset. */
export function embeddingsConfig(r: Reader): EmbeddingsConfig | undefined {
  const url = r.str('LANTERN_EMBEDDINGS_URL', '');
  const model = r.str('LANTERN_EMBEDDINGS_MODEL', '');
  const apiKey = r.str('LANTERN_EMBEDDINGS_API_KEY', '');
  const dimensions = r.int('LANTERN_EMBEDDINGS_DIMENSIONS', 0, 0, 65_536);
  const batchSize = r.int('LANTERN_EMBEDDINGS_BATCH_SIZE', 64, 1, 2048);
  const timeoutMs = r.int('LANTERN_EMBEDDINGS_TIMEOUT_MS', 30_000, 100, 600_000);
  if (url === '') {
    if (model !== '' || apiKey !== '') r.problems.push('LANTERN_EMBEDDINGS_MODEL and LANTERN_EMBEDDINGS_API_KEY need LANTERN_EMBEDDINGS_URL: semantic search is off without it');
    return undefined;
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    r.problems.push(`LANTERN_EMBEDDINGS_URL must be an http(s) URL such as https://api.openai.com/v1 (got ${HIDDEN})`);
  }
  if (parsed && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') r.problems.push('LANTERN_EMBEDDINGS_URL must be an http or https URL');
  if (parsed && (parsed.username !== '' || parsed.password !== '')) r.problems.push('LANTERN_EMBEDDINGS_URL must not carry credentials: set the key in LANTERN_EMBEDDINGS_API_KEY');
  if (model === '') r.problems.push('LANTERN_EMBEDDINGS_MODEL is required with LANTERN_EMBEDDINGS_URL (e.g. text-embedding-3-small, nomic-embed-text)');
  return { url, model, ...(apiKey ? { apiKey } : {}), ...(dimensions > 0 ? { dimensions } : {}), batchSize, timeoutMs };
}
