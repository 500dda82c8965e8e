import type { Database } from 'better-sqlite3';
import { MAX_RECORD_PAIRS, contextPairs, isKeyHash, ownPairs } from '../attribute-pairs.js';

/**
 * The attribute postings of trace records (schema.ts 17; ../attribute-pairs.ts): one row of `trace_attrs` per
 * (record, key-value hash) at the record's (ts, id), so a search walks one pair's records in the list's order. A record keeps
 * its hashes in `traces.attrs` (8-byte little-endian doubles): a later batch adds only the new ones, a record whose
 * `ts` moves earlier (an earlier span arrives) moves its rows, and the purge deletes them by primary key.
 */

/** A record's hashes as stored in `traces.attrs`. */
export function encodeHashes(hashes: readonly number[]): Buffer {
  const out = Buffer.alloc(hashes.length * 8);
  hashes.forEach((h, i) => out.writeDoubleLE(h, i * 8));
  return out;
}

export function decodeHashes(bytes: Buffer | null | undefined): number[] {
  if (!bytes) return [];
  const out = new Array<number>(bytes.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleLE(i * 8);
  return out;
}

/** A record as it is before a batch updates it. */
export interface RecordBefore {
  id: string;
  ts: number;
  attrs: Buffer | null;
}

export interface TraceAttrs {
  /** The record of (application, trace) before the batch's upsert, or undefined when it is new. */
  before(applicationId: number, traceId: string): RecordBefore | undefined;
  /**
   * What the batch's hashes make of a record: `held`, the hashes it holds once they are added (at most
   * MAX_RECORD_PAIRS), encoded, or null when the batch adds none (the column keeps its value); and `postings`, the
   * [hash, ts, id] rows it needs at its (id, ts) after. A record whose `ts` moved has its old rows deleted here.
   */
  merge(projectId: number, before: RecordBefore | undefined, after: { id: string; ts: number }, batch: ArrayLike<number> | undefined):
    { held: Buffer | null; postings: Posting[] };
  /** Writes postings (a batch's, gathered from `merge`), in one statement. */
  post(projectId: number, postings: Posting[]): void;
  /** Deletes a record's postings (the purge, before the record goes). */
  drop(projectId: number, record: RecordBefore): void;
}

/** A row of `trace_attrs` but its project: [hash, ts, id]. */
export type Posting = [number, number, string];

/** A hash as `traces.attrs` holds it: `instr(attrs, ?)` tests a record for it (a key alone, or a second term). */
export const hashBytes = (hash: number): Buffer => encodeHashes([hash]);

export function createTraceAttrs(db: Database): TraceAttrs {
  const q = {
    before: db.prepare<[number, string], RecordBefore>('SELECT id, ts, attrs FROM traces WHERE application_id = ? AND trace_id = ?'),
    // A batch's postings in one statement, a JSON array of [hash, ts, id] (json_each gives the hashes back as
    // integers). In key order: measured no faster than a statement a record, but no slower (docs/benchmarks.md).
    put: db.prepare<[number, string]>(`INSERT OR IGNORE INTO trace_attrs (project_id, hash, ts, id)
      SELECT ?, value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)`),
    drop: db.prepare<[number, string, number, string]>(
      'DELETE FROM trace_attrs WHERE project_id = ? AND hash IN (SELECT value FROM json_each(?)) AND ts = ? AND id = ?'),
  };
  const pairsOf = (hashes: readonly number[]): number[] => hashes.filter((h) => !isKeyHash(h));
  return {
    before: (applicationId, traceId) => q.before.get(applicationId, traceId),
    merge(projectId, before, after, batch) {
      const held = decodeHashes(before?.attrs);
      const known = new Set(held);
      const added: number[] = [];
      for (let i = 0; i < (batch?.length ?? 0); i++) {
        const h = batch![i]!;
        if (known.size >= MAX_RECORD_PAIRS) break;
        if (known.has(h)) continue;
        known.add(h);
        added.push(h);
      }
      const moved = before !== undefined && after.ts !== before.ts && held.length > 0;
      if (moved) q.drop.run(projectId, JSON.stringify(pairsOf(held)), before.ts, before.id);
      const postings = pairsOf(moved ? [...held, ...added] : added).map((h): Posting => [h, after.ts, after.id]);
      return { held: added.length === 0 ? null : encodeHashes([...held, ...added]), postings };
    },
    post(projectId, postings) {
      if (postings.length === 0) return;
      postings.sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
      q.put.run(projectId, JSON.stringify(postings));
    },
    drop(projectId, record) {
      const held = pairsOf(decodeHashes(record.attrs));
      if (held.length > 0) q.drop.run(projectId, JSON.stringify(held), record.ts, record.id);
    },
  };
}

/** Records backfilled per statement: each chunk is a bounded read, then its writes. */
const CHUNK = 2000;

/**
 * Migration 17's backfill: every record stored before the attribute index takes the hashes of its stored spans
 * (their own fields, and their context's), as the writer computes them. Walks the records in primary-key order,
 * CHUNK at a time (better-sqlite3 runs no statement while another is being iterated): reads every span once.
 */
export function backfillTraceAttrs(db: Database): void {
  const chunk = db.prepare<[number, string, number], { a: number; t: string; p: number; id: string; ts: number }>(
    `SELECT application_id AS a, trace_id AS t, project_id AS p, id, ts FROM traces
    WHERE (application_id, trace_id) > (?, ?) ORDER BY application_id, trace_id LIMIT ?`);
  const spans = db.prepare<[number, string], { data: string; context: string | null }>(`SELECT s.data, c.data AS context
    FROM spans s LEFT JOIN span_contexts c ON c.id = s.context_id WHERE s.application_id = ? AND s.trace_id = ? ORDER BY s.ts, s.span_id`);
  const set = db.prepare<[Buffer, number, string]>('UPDATE traces SET attrs = ? WHERE application_id = ? AND trace_id = ?');
  const put = db.prepare<[number, number, number, string]>('INSERT OR IGNORE INTO trace_attrs (project_id, hash, ts, id) VALUES (?, ?, ?, ?)');
  let after: [number, string] = [-1, ''];
  for (;;) {
    const rows = chunk.all(after[0], after[1], CHUNK);
    for (const r of rows) {
      const hashes = new Set<number>();
      const contexts = new Set<string>();
      for (const s of spans.all(r.a, r.t)) {
        if (s.context !== null && !contexts.has(s.context)) {
          contexts.add(s.context);
          contextPairs(JSON.parse(s.context) as Record<string, unknown>, hashes);
        }
        const own = JSON.parse(s.data) as Record<string, unknown>;
        contextPairs(own, hashes); // a context too large to be stored apart stayed in the span's data (span-rows.ts)
        ownPairs(own, hashes);
      }
      if (hashes.size === 0) continue;
      for (const h of hashes) if (!isKeyHash(h)) put.run(r.p, h, r.ts, r.id);
      set.run(encodeHashes([...hashes]), r.a, r.t);
    }
    if (rows.length < CHUNK) return;
    const last = rows[rows.length - 1]!;
    after = [last.a, last.t];
  }
}
