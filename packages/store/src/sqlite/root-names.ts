import type { Database } from 'better-sqlite3';
import { operationOf, serviceOf } from '@lantern/domain';
import type { Span } from '@lantern/domain';
import { spanJson } from './span-rows.js';

/** Trace records backfilled per statement: each chunk is a bounded read, then its updates. */
const CHUNK = 2000;

interface Rooted {
  a: number;
  t: string;
  rank: number;
  rootTs: number | null;
  d: number | null;
  st: number | null;
}

/**
 * Migration 14's backfill: a record stored before `root_service` and `root_operation` existed takes them from the
 * span its root columns came from (migration 3's rule: for a span without parent (rank 2), the first stored whose
 * duration and status are the record's; for an entry span (rank 1), the controller span with a parent at root_ts
 * with that duration and status), computed by the same functions as the writer (@lantern/domain span-names.ts).
 * Walks the rooted records in primary-key order, CHUNK at a time: better-sqlite3 runs no statement while another
 * is being iterated, so each chunk is read whole, then updated.
 */
export function backfillRootNames(db: Database): void {
  const chunk = db.prepare<[number, string, number], Rooted>(`SELECT application_id AS a, trace_id AS t, has_root AS rank,
      root_ts AS rootTs, root_duration_ms AS d, root_status AS st
    FROM traces WHERE (application_id, trace_id) > (?, ?) AND has_root > 0 ORDER BY application_id, trace_id LIMIT ?`);
  const rootOf = db.prepare<[number, string, number | null, number | null, number, number | null], { data: string; context: string | null }>(
    `SELECT s.data, c.data AS context FROM spans s LEFT JOIN span_contexts c ON c.id = s.context_id
    WHERE s.application_id = ? AND s.trace_id = ? AND s.duration_ms IS ? AND s.status IS ?
      AND CASE WHEN ? = 2 THEN s.parent_span_id IS NULL ELSE s.controller = 1 AND s.parent_span_id IS NOT NULL AND s.ts = ? END
    ORDER BY s.rowid LIMIT 1`);
  const update = db.prepare<[string | null, string | null, number, string]>(
    'UPDATE traces SET root_service = ?, root_operation = ? WHERE application_id = ? AND trace_id = ?');
  let after: [number, string] = [-1, ''];
  for (;;) {
    const rows = chunk.all(after[0], after[1], CHUNK);
    for (const r of rows) {
      const found = rootOf.get(r.a, r.t, r.d, r.st, r.rank, r.rootTs);
      if (found === undefined) continue;
      const span = JSON.parse(spanJson(found.data, found.context)) as Span;
      const service = serviceOf(span) ?? null;
      const operation = operationOf(span) ?? null;
      if (service !== null || operation !== null) update.run(service, operation, r.a, r.t);
    }
    if (rows.length < CHUNK) return;
    const last = rows[rows.length - 1]!;
    after = [last.a, last.t];
  }
}
