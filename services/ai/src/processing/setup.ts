import type { ChunkingConfig, EmbeddingsConfig } from '@lantern/config';
import type { ChunkSettings } from '@lantern/extract';
import { createSemantic, type Semantic } from '../search/semantic.js';

/** What documents are made with: the chunking (LANTERN_CHUNK_*), and semantic search's provider when it is on. */
export interface ProcessingSetup {
  chunking?: ChunkSettings;
  semantic?: Semantic;
}

/**
 * The setup of a process serving the AI routes, from its configuration: one Semantic for the document worker and
 * the search route both (startDocumentProcessing and createKnowledgeRouter's queryEmbedder).
 */
export function processingSetup(config: { chunking?: ChunkingConfig; embeddings?: EmbeddingsConfig | undefined }): ProcessingSetup {
  return {
    ...(config.chunking ? { chunking: { maxTokens: config.chunking.tokens, overlapTokens: config.chunking.overlap } } : {}),
    ...(config.embeddings ? { semantic: createSemantic(config.embeddings) } : {}),
  };
}
