/**
 * What both stores say about document processing (port.ts, ProcessingStore): the failure of a document whose
 * attempts ran out (contract: at most 3, then `failed` with the reason).
 */
export const attemptsUsedUp = (attempts: number): string =>
  `Processing stopped ${attempts} times without finishing (its worker stopped, ran out of time, or could not read it); it is not tried again. Reprocess it to try once more.`;

/**
 * What a ready document completed without settings (one processed before they were recorded: SQLite migration 11)
 * was made with: the chunking defaults of that time (packages/extract DEFAULT_CHUNKING), no vectors.
 */
export const UNRECORDED_SETTINGS = { chunkTokens: 800, chunkOverlap: 400, embeddingModel: '' } as const;
