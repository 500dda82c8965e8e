import type { Database } from 'better-sqlite3';

/**
 * The span contexts of one group transaction (span-rows.ts, schema.ts migration 13): the id of each (project, text),
 * found or made, and the latest time a span was stored with each, written to `last_ms` (the purge's clock) when the
 * group ends. One instance per transaction: none of it may outlive a transaction that rolls back.
 */
export interface ContextUse {
  /** The ids of a batch's context texts, in their order. */
  idsOf(projectId: number, texts: readonly string[]): number[];
  /** A span stored at `ms` (its time, or its batch's if later) with the context. */
  used(id: number, ms: number): void;
  /** Writes the latest uses; the last step of the transaction. */
  finish(): void;
}

/** Makes a ContextUse for each group transaction on `db`. */
export function contextUses(db: Database): () => ContextUse {
  const q = {
    find: db.prepare<[number, string], number>('SELECT id FROM span_contexts WHERE project_id = ? AND data = ?').pluck(),
    put: db.prepare<[number, string], number>('INSERT INTO span_contexts (project_id, data) VALUES (?, ?) RETURNING id').pluck(),
    used: db.prepare<[number, number]>('UPDATE span_contexts SET last_ms = max(last_ms, ?) WHERE id = ?'),
  };
  return () => {
    const ids = new Map<string, number>();
    const latest = new Map<number, number>();
    return {
      idsOf: (projectId, texts) => texts.map((text) => {
        const key = `${projectId}\u0000${text}`;
        let id = ids.get(key);
        if (id === undefined) {
          id = q.find.get(projectId, text) ?? q.put.get(projectId, text)!;
          ids.set(key, id);
        }
        return id;
      }),
      used(id, ms) {
        if (!(ms <= (latest.get(id) ?? -Infinity))) latest.set(id, ms);
      },
      finish() {
        for (const [id, ms] of latest) q.used.run(ms, id);
      },
    };
  };
}
