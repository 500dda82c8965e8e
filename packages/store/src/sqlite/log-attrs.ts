import type { Database } from 'better-sqlite3';
import { filterHash, isKeyHash, logPairs, type AttributeFilter } from '../attribute-pairs.js';

/**
 * Log search by attribute (`attr` on GET /ingest/logs; ../attribute-pairs.ts logPairs). `logs_attrs` (schema.ts 18)
 * is a contentless FTS5 table, one row per log under its rowid, whose text is the log's key-value hashes as words
 * (base 36): an inverted index that FTS5 keeps in merged segments, so indexing a log costs a few appends, not a
 * B-tree insert per pair. Like `logs_fts` it is filled after the write by the log indexer (log-indexer.ts), above
 * its own watermark `logs_attrs_state.indexed_upto`; readers take it for the rowids up to the watermark and test
 * the logs above it. It only narrows candidates: `log_attrs_match(data, terms)`, the log's own hashes, decides.
 */

/** A hash as a word of `logs_attrs`. */
export const wordOf = (hash: number): string => hash.toString(36);

/** The FTS5 query of the terms' key-value pairs (each a quoted word, all of them); undefined when only keys are asked for. */
export function attrsQuery(attributes: readonly AttributeFilter[] | undefined): string | undefined {
  const words = (attributes ?? []).map(filterHash).filter((h) => !isKeyHash(h)).map((h) => `"${wordOf(h)}"`);
  return words.length === 0 ? undefined : words.join(' AND ');
}

/** The terms as `log_attrs_match` takes them: their hashes, comma-separated. */
export const termsArgument = (attributes: readonly AttributeFilter[]): string => attributes.map(filterHash).join(',');

/**
 * Registers `log_attrs_match(data, terms)` on a connection: 1 when the log's JSON (a `logs.data`) holds every hash
 * of `terms` (termsArgument), else 0. Every connection that reads logs with `attr` needs it.
 */
export function registerLogAttrs(db: Database): void {
  db.function('log_attrs_match', { deterministic: true }, (data: unknown, terms: unknown): number => {
    if (typeof terms !== 'string') return 0;
    const held = pairsOfData(data);
    return held !== undefined && terms.split(',').every((t) => held.has(Number(t))) ? 1 : 0;
  });
}

/** The hashes of a stored log's JSON (`logs.data`); undefined when it is not a JSON object. */
function pairsOfData(data: unknown): Set<number> | undefined {
  if (typeof data !== 'string') return undefined;
  let log: unknown;
  try {
    log = JSON.parse(data);
  } catch {
    return undefined;
  }
  return log !== null && typeof log === 'object' ? logPairs(log as Record<string, unknown>) : undefined;
}

/** The text indexed for a log: its hashes' words, the key-value pairs' only (a key alone is tested, not looked up). */
export function attrsText(data: string): string {
  const words: string[] = [];
  for (const h of pairsOfData(data) ?? []) if (!isKeyHash(h)) words.push(wordOf(h));
  return words.join(' ');
}

/** One step of the attribute index: the logs above its watermark, up to `chunk` rowids; returns how many it covered. */
export function attrsIndexStep(db: Database, chunk: number): () => number {
  const watermark = db.prepare('SELECT indexed_upto FROM logs_attrs_state WHERE id = 1').pluck();
  const newest = db.prepare('SELECT max(rowid) FROM logs').pluck();
  const rows = db.prepare<[number, number], { r: number; data: string }>('SELECT rowid AS r, data FROM logs WHERE rowid > ? AND rowid <= ?');
  const put = db.prepare<[number, string]>('INSERT INTO logs_attrs (rowid, attrs) VALUES (?, ?)');
  const move = db.prepare<[number]>('UPDATE logs_attrs_state SET indexed_upto = ? WHERE id = 1');
  return () => {
    const from = watermark.get() as number;
    const top = (newest.get() as number | null) ?? 0;
    if (top <= from) return 0;
    const upto = Math.min(top, from + chunk);
    for (const row of rows.all(from, upto)) {
      const text = attrsText(row.data);
      if (text !== '') put.run(row.r, text);
    }
    move.run(upto);
    return upto - from;
  };
}
