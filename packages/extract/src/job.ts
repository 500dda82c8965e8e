import { type Chunk, chunkText, type ChunkSettings, pageStartsOf } from './chunks.js';
import { extractDocument, limitsOf } from './extract.js';
import type { ExtractionFailure } from './outcome.js';
import type { TokenCounter } from './tokens.js';

/** A document to process: its bytes, the content type its upload decided, the chunking and the time it has. */
export interface ProcessJob {
  bytes: Uint8Array;
  contentType: string;
  chunking: ChunkSettings;
  /** Milliseconds the extraction may take (checked between PDF pages; the pool also stops a thread past it). */
  timeoutMs: number;
}

/** A processed document: what its record shows (characters, pages) and its chunks. */
export interface Processed {
  ok: true;
  characters: number;
  /** A PDF's page count. */
  pages?: number;
  chunks: Chunk[];
}

export type ProcessResult = Processed | ExtractionFailure;

/**
 * Chunks per message. A message is copied out of the thread's heap into the event loop's in one go (structured
 * clone, worker.ts): 13,000 chunks of a 10 MB PDF at once held the loop about 90 ms (40 ms per 6,000, bench/ai/knowledge);
 * 250 of them, about 2 ms, and the loop serves requests between parts.
 */
export const PART_CHUNKS = 250;

/** Extracts and chunks one document (on a worker thread: worker.ts). */
export async function processDocument(job: ProcessJob, count: TokenCounter): Promise<ProcessResult> {
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  const extracted = await extractDocument(bytes, job.contentType, limitsOf({ timeoutMs: job.timeoutMs }));
  if (!extracted.ok) return extracted;
  const chunks = chunkText(extracted.text, job.chunking, count, extracted.pages ? pageStartsOf(extracted.pages) : undefined);
  return { ok: true, characters: extracted.text.length, ...(extracted.pages ? { pages: extracted.pages.length } : {}), chunks };
}
