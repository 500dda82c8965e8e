import type { Database } from 'better-sqlite3';
import { MAX_OPERATIONS_PER_HOUR, keptNamesOf } from '../operation-rollups.js';
import type { KeptNames, OperationHour } from '../operation-rollups.js';

/**
 * The operation names each (application, hour) keeps (schema.ts 19, `operation_names`): the first
 * MAX_OPERATIONS_PER_HOUR it saw. Runs in the writer's transaction, which holds the write lock, so a name is
 * looked up, counted and added without a race. A name once kept stays until its hour is purged; a name refused
 * is refused for good (the hour is full, and only the purge takes names out), so every delta of an hour maps a
 * name to the same cell.
 */
export function createNameKeeper(db: Database, max = MAX_OPERATIONS_PER_HOUR): (hours: OperationHour[]) => KeptNames {
  const q = {
    has: db.prepare<[number, number, number, string], number>(
      'SELECT 1 FROM operation_names WHERE project_id = ? AND hour = ? AND application_id = ? AND operation = ?').pluck(),
    count: db.prepare<[number, number, number], number>(
      'SELECT count(*) FROM operation_names WHERE project_id = ? AND hour = ? AND application_id = ?').pluck(),
    add: db.prepare<[number, number, number, string]>(
      'INSERT INTO operation_names (project_id, hour, application_id, operation) VALUES (?, ?, ?, ?)'),
  };
  return (hours) => keptNamesOf(hours.map((h) => {
    const kept = new Set<string>();
    let count: number | undefined;
    for (const name of h.names) {
      if (q.has.get(h.projectId, h.hour, h.applicationId, name) !== undefined) {
        kept.add(name);
        continue;
      }
      count ??= q.count.get(h.projectId, h.hour, h.applicationId) ?? 0;
      if (count >= max) continue;
      q.add.run(h.projectId, h.hour, h.applicationId, name);
      count++;
      kept.add(name);
    }
    return { applicationId: h.applicationId, hour: h.hour, kept };
  }));
}
