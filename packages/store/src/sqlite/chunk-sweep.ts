import type { Database } from 'better-sqlite3';
import type { ChunkInput, ProcessingSettings } from '../port.js';
import { vectorBytes } from '../vectors.js';
import { tenantToken } from './ai-search.js';
import { guard } from './errors.js';
import { turn } from './paging.js';

/** Which of a document's chunks to remove: all, all but one claim's, or one claim's. */
export type ChunkSelection = { all: true } | { but: string } | { only: string };

/** What a completion records on the document as it flips it to `ready`. */
export interface Completion {
  chunks: number;
  characters: number;
  pages?: number;
  settings?: ProcessingSettings;
}

/**
 * Writes and removals of chunks, a batch per transaction. Each costs SQLite's FTS5 the tokenizing of the chunks'
 * text (a removal as much as an insert: the triggers, schema.ts), about 2 ms a chunk on a loaded 2-core machine:
 * whichever thread runs them is busy the whole time. On the embedded server the writer thread runs them
 * (writer-worker.ts), in batches queued among the span and log commits that stop early whenever one of those waits;
 * else this connection, with a turn of the event loop between batches.
 */
export interface ChunkWriter {
  /** Chunks per call. */
  readonly batch: number;
  /** Writes a batch of a claim's chunks if the claim still holds the document; false (nothing written) if not. */
  insert(documentId: string, claim: string, chunks: ChunkInput[]): Promise<boolean>;
  /** Removes at most `limit` of the document's chunks; how many it removed (fewer than `limit` does not mean none are left). */
  remove(documentId: string, which: ChunkSelection, limit: number): Promise<number>;
  /**
   * Flips the document to `ready` with the claim's chunks, if the claim still holds it; false if not. On the writer
   * thread too: a write on the connection that serves requests waits for the writer's transaction under way with the
   * event loop blocked (SQLite's busy handler sleeps 1, 2, 5, 10... ms), which held ingest 55-70 ms at the end of a
   * 10 MB PDF (docs/benchmarks.md, "The completion on the writer thread").
   */
  finish(documentId: string, claim: string, completion: Completion): Promise<boolean>;
}

/** Asked between chunks: true when the caller should stop early (the writer thread: a span or log commit waits). */
export type StopEarly = () => boolean;

/** Chunks one removal statement takes before the next check of StopEarly. */
const REMOVE_STEP = 4;
/**
 * The index is merged a step at a time (schema.ts, migration 12): at the end of a call, FTS5 merges about
 * MERGE_PAGES pages (when some level holds 4 segments or more) for every MERGE_EVERY chunks written or removed
 * since, one step after the other, and stops before the next step when `stop` says so: the steps owed wait for a
 * later call (at most MAX_STEPS_OWED of them; past that they are forgiven, FTS5's next merges catch up). At the
 * end, not between chunks: a merge first writes out the transaction's pending inserts as a segment of their own,
 * where the commit would have written one for the whole transaction. Measured on a 10 MB PDF's 13,000 chunks, one
 * a transaction on a quiet core: FTS5's automatic merges made the slowest insert 24-29 ms; with steps of 64 pages
 * inserts are at most 1.5-6 ms and a step at most 6-10 ms, for as much work in all or up to a quarter more
 * (bench/ai/fts-merge.mjs, docs/benchmarks.md). The steps of a 64-chunk call once ran as one merge of 512 pages,
 * 15-19 ms that a span commit waited behind ("The PDF's steps", docs/benchmarks.md).
 */
const MERGE_EVERY = 8;
const MERGE_PAGES = 64;
const MAX_STEPS_OWED = 16;

/**
 * The statements of a ChunkWriter on one connection, synchronous, for the caller to run in a transaction. Both do
 * at least one chunk's work (or all there is) before they ask `stop`, so a caller that goes on until done gets there.
 */
export function chunkStatements(db: Database) {
  const held = db.prepare<[{ id: string; claim: string }], { tenant_id: string }>(`SELECT tenant_id FROM documents
    WHERE id = @id AND claim = @claim AND status = 'processing'`);
  const mergeStep = db.prepare<[number]>(`INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('merge', ?)`);
  let sinceMerge = 0;
  /**
   * At the end of a call: counts its chunks written or removed, and runs a step for every MERGE_EVERY counted,
   * asking `stop` before each.
   */
  const merged = (chunks: number, stop?: StopEarly) => {
    sinceMerge = Math.min(sinceMerge + chunks, MAX_STEPS_OWED * MERGE_EVERY);
    while (sinceMerge >= MERGE_EVERY && !stop?.()) {
      sinceMerge -= MERGE_EVERY;
      mergeStep.run(MERGE_PAGES);
    }
  };
  const insertChunk = db.prepare(`INSERT INTO chunks (document_id, claim, tenant, chunk_index, text, start_offset, end_offset, page_first, page_last, page_breaks, vector)
    VALUES (@documentId, @claim, @tenant, @index, @text, @start, @end, @pageFirst, @pageLast, @pageBreaks, @vector)`);
  /** The chunks written, from the first (all of them unless `stop` said so), or false if the claim no longer holds. */
  const insert = (documentId: string, claim: string, chunks: ChunkInput[], stop?: StopEarly): number | false => {
    const doc = held.get({ id: documentId, claim });
    if (!doc) return false;
    const tenant = tenantToken(doc.tenant_id);
    let written = 0;
    for (const c of chunks) {
      if (written > 0 && stop?.()) break;
      insertChunk.run({ documentId, claim, tenant, index: c.index, text: c.text, start: c.start, end: c.end,
        pageFirst: c.pages?.[0] ?? null, pageLast: c.pages?.[1] ?? null, pageBreaks: c.pageBreaks ? JSON.stringify(c.pageBreaks) : null,
        vector: c.vector ? vectorBytes(c.vector) : null });
      written++;
    }
    merged(written, stop);
    return written;
  };
  const ready = db.prepare(`UPDATE documents SET status = 'ready', claim = NULL, lease_until_ms = NULL, chunks_claim = @claim, chunk_count = @chunks,
    characters = @characters, pages = @pages, chunk_tokens = @tokens, chunk_overlap = @overlap, embedding_model = @model WHERE id = @id`);
  /** The flip to ready, if the claim still holds the document (the caller's transaction). */
  const finish = (documentId: string, claim: string, c: Completion): boolean => {
    if (!held.get({ id: documentId, claim })) return false;
    const { settings } = c;
    ready.run({ id: documentId, claim, chunks: c.chunks, characters: c.characters, pages: c.pages ?? null,
      tokens: settings?.chunkTokens ?? null, overlap: settings?.chunkOverlap ?? null, model: settings ? settings.embeddingModel ?? '' : null });
    return true;
  };
  const pick = (where: string) => db.prepare(`DELETE FROM chunks WHERE id IN (SELECT id FROM chunks WHERE document_id = @id ${where} LIMIT @limit)`);
  const all = pick('');
  const but = pick('AND claim <> @claim');
  const only = pick('AND claim = @claim');
  const removeSome = (id: string, which: ChunkSelection, limit: number): number => ('all' in which ? all.run({ id, limit })
    : 'but' in which ? but.run({ id, claim: which.but, limit }) : only.run({ id, claim: which.only, limit })).changes;
  return {
    insert,
    finish,
    /** Removes at most `limit` of the selected chunks (with `stop`, REMOVE_STEP at a time while it lets it); how many it removed. */
    remove(id: string, which: ChunkSelection, limit: number, stop?: StopEarly): number {
      const step = stop ? REMOVE_STEP : limit;
      let removed = 0;
      while (removed < limit) {
        const n = removeSome(id, which, Math.min(step, limit - removed));
        removed += n;
        if (n < step || stop?.()) break;
      }
      merged(removed, stop);
      return removed;
    },
  };
}

/** Chunks per transaction on a connection that serves requests: about 30 ms of a quiet core. */
const LOCAL_BATCH = 50;

/** A ChunkWriter on this connection: IMMEDIATE transactions, a turn of the event loop after each. */
export function localChunkWriter(db: Database): ChunkWriter {
  const statements = chunkStatements(db);
  const insert = db.transaction(statements.insert);
  const remove = db.transaction(statements.remove);
  const finish = db.transaction(statements.finish);
  return {
    batch: LOCAL_BATCH,
    async finish(documentId, claim, completion) {
      return guard(() => finish.immediate(documentId, claim, completion));
    },
    async insert(documentId, claim, chunks) {
      const done = guard(() => insert.immediate(documentId, claim, chunks));
      await turn();
      return done !== false;
    },
    async remove(documentId, which, limit) {
      const n = guard(() => remove.immediate(documentId, which, limit));
      await turn();
      return n;
    },
  };
}

/**
 * Removes the selected chunks of a document, a batch per call (or less: the writer thread may stop early), until
 * none is left; `afterBatch` runs after each batch that removed some.
 */
export function chunkRemover(writer: ChunkWriter): (id: string, which: ChunkSelection, afterBatch?: () => void) => Promise<void> {
  return async (id, which, afterBatch) => {
    while ((await writer.remove(id, which, writer.batch)) > 0) afterBatch?.();
  };
}
