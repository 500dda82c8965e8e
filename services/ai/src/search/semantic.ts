import type { EmbeddingsConfig } from '@lantern/config';
import { createEmbedder, type Embedder } from './embeddings.js';

/**
 * Semantic search's two clients of one provider (LANTERN_EMBEDDINGS_*): the document worker's, which retries (a
 * failure after its retries costs the document an attempt), and the search route's, which waits less and does not
 * retry (a search answers lexically rather than wait on a provider that is down).
 */
export interface Semantic {
  documents: Embedder;
  queries: Embedder;
  /** What a document's vectors are recorded as made with: the model, and the dimensions when asked for. */
  model: string;
}

/** How long a search waits for its query's vector at most. */
export const QUERY_EMBEDDING_TIMEOUT_MS = 5_000;

export function createSemantic(config: EmbeddingsConfig): Semantic {
  const common = { url: config.url, model: config.model, ...(config.apiKey ? { apiKey: config.apiKey } : {}), ...(config.dimensions ? { dimensions: config.dimensions } : {}) };
  return {
    documents: createEmbedder({ ...common, batchSize: config.batchSize, timeoutMs: config.timeoutMs }),
    queries: createEmbedder({ ...common, batchSize: 1, timeoutMs: Math.min(config.timeoutMs, QUERY_EMBEDDING_TIMEOUT_MS), retries: 0 }),
    model: config.dimensions ? `${config.model} (${config.dimensions} dimensions)` : config.model,
  };
}
