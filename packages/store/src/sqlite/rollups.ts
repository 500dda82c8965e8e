import type { Database } from 'better-sqlite3';
import type { QuantileSketch } from '@lantern/domain';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { CellMerger } from '../rollups.js';
import type { RollupDelta } from '../rollups.js';
import { StatementCache, Where, visibleProjects } from './paging.js';

interface CellRow {
  requests: number;
  errors: number;
  /** Varint bytes; JSON text in a row the migration's backfill wrote and no batch has updated since. */
  sketch: Uint8Array | string;
}

function mergeStored(into: QuantileSketch, stored: Uint8Array | string): void {
  if (typeof stored === 'string') into.mergeArray(JSON.parse(stored) as number[]);
  else into.mergeEncoded(stored);
}

interface RollupRow extends CellRow {
  applicationId: number;
  minute: number;
}

/**
 * Applies a batch's (or a purge's) rollup changes: one read and one write per cell, inside the caller's
 * transaction (the rows change with the spans they count, or not at all). A cell left without requests goes.
 */
export function createRollupWriter(db: Database): (delta: RollupDelta) => void {
  const q = {
    get: db.prepare<[number, number, number], CellRow>(
      'SELECT requests, errors, sketch FROM metric_rollups WHERE project_id = ? AND minute = ? AND application_id = ?'),
    put: db.prepare<[number, number, number, number, number, Uint8Array]>(`INSERT INTO metric_rollups
      (project_id, minute, application_id, requests, errors, sketch) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, minute, application_id) DO UPDATE SET
        requests = excluded.requests, errors = excluded.errors, sketch = excluded.sketch`),
    drop: db.prepare<[number, number, number]>('DELETE FROM metric_rollups WHERE project_id = ? AND minute = ? AND application_id = ?'),
  };
  return (delta) => {
    for (const c of delta.changes()) {
      const row = q.get.get(c.projectId, c.minute, c.applicationId);
      const requests = (row?.requests ?? 0) + c.requests;
      if (requests <= 0) {
        q.drop.run(c.projectId, c.minute, c.applicationId);
        continue;
      }
      if (row) mergeStored(c.sketch, row.sketch);
      q.put.run(c.projectId, c.minute, c.applicationId, requests, (row?.errors ?? 0) + c.errors, c.sketch.encode());
    }
  };
}

/** GET /metrics from the rollups: a range of the primary key per visible project. */
export function createRollupReader(db: Database): (query: MetricsQuery) => MetricsCell[] {
  const cache = new StatementCache(db);
  return (query) => {
    const merger = new CellMerger(query);
    for (const projectId of visibleProjects(cache, query.userId, query.projectId)) {
      const where = new Where().add('project_id = ?', projectId).add('minute >= ?', query.from).add('minute < ?', query.to)
        .maybe('application_id = ?', query.applicationId);
      const sql = `SELECT application_id AS applicationId, minute, requests, errors, sketch FROM metric_rollups ${where.sql}`;
      for (const row of cache.get<RollupRow>(sql).iterate(...where.params)) {
        merger.add({ ...row, projectId }, (sketch) => mergeStored(sketch, row.sketch));
      }
    }
    return merger.result();
  };
}
