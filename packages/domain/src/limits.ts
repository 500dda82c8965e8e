/** Bounds of the interface (contract.md "Size bounds" and the upload limit). */
export const limits = {
  /** Longest string field, in characters. */
  maxStringLength: 65_536,
  /** Most items in one ingest batch. */
  maxBatchItems: 10_000,
  /** Largest ingest body after decompression, in bytes. */
  maxIngestBytes: 5 * 1024 * 1024,
  /** Largest uploaded document: 10 MB = 10 x 1024 x 1024 bytes. */
  maxUploadBytes: 10 * 1024 * 1024,
  /** Deepest nesting of extra fields inside a span or log. */
  maxDepth: 16,
  /**
   * Deepest nesting of arrays and objects in any JSON body, counted on the raw bytes before parsing (the body
   * is refused whole, before JSON.parse runs). Items of a batch have their own, lower bound (`maxDepth`).
   */
  maxJsonDepth: 64,
  /** Largest accounts / AI JSON body. */
  maxJsonBodyBytes: 64 * 1024,
  /** Longest name (organization, project, application, tenant, key). */
  maxNameLength: 200,
  /** Longest text of a substring filter of the reads (`url` of traces, `q` of logs), in characters. */
  maxSearchLength: 200,
  /** Most `attr` terms of one trace search (all must hold). */
  maxAttributeFilters: 8,
  /** Longest `attr` term (`key=value`), in characters. */
  maxAttributeFilterLength: 400,
  /** Largest duration of a span, in milliseconds (about 24.8 days). */
  maxDurationMs: 2_147_483_647,
} as const;
