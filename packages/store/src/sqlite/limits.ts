import type { Database } from 'better-sqlite3';
import type { LimitsStore } from '../port.js';
import { DOC_COLUMNS, toDocument, type DocumentRow } from './ai.js';
import { guard } from './errors.js';

/** Most rate-limit windows kept at once; past it the oldest go first (a bound on memory, not on correctness for live keys). */
const MAX_WINDOWS = 100_000;

/**
 * What the fair limits count. The rate-limit windows are in this process's memory: the SQLite store belongs to
 * one process (the embedded `lantern start`), so that count is exact, and it costs no write per request.
 */
export function createLimitsStore(db: Database): LimitsStore {
  const q = {
    activeKeys: db.prepare<[number], number>('SELECT count(*) FROM api_keys WHERE application_id = ? AND revoked_ms IS NULL').pluck(),
    projectOrganization: db.prepare<[number], number>('SELECT organization_id FROM projects WHERE id = ?').pluck(),
    bySha256: db.prepare<[string, string], DocumentRow>(`SELECT ${DOC_COLUMNS} FROM documents d
      WHERE d.tenant_id = ? AND d.sha256 = ? AND d.status <> 'deleting' ORDER BY d.created_ms, d.id LIMIT 1`),
    storedBytes: db.prepare<[number], number>(`SELECT coalesce(sum(d.size), 0) FROM documents d
      JOIN tenants t ON t.id = d.tenant_id WHERE t.organization_id = ? AND d.status <> 'deleting'`).pluck(),
  };
  const windows = new Map<string, { end: number; count: number }>();

  return {
    async countActiveApiKeys(applicationId) {
      return guard(() => q.activeKeys.get(applicationId)) ?? 0;
    },
    async findProjectOrganization(projectId) {
      return guard(() => q.projectOrganization.get(projectId)) ?? null;
    },
    async findDocumentBySha256(tenantId, sha256) {
      const row = guard(() => q.bySha256.get(tenantId, sha256));
      return row ? toDocument(row) : null;
    },
    async organizationStoredBytes(organizationId) {
      return guard(() => q.storedBytes.get(organizationId)) ?? 0;
    },
    async countHit(key, windowStart, windowMs) {
      const id = `${windowStart}:${key}`;
      let w = windows.get(id);
      if (!w) {
        if (windows.size >= MAX_WINDOWS) {
          const now = Date.now();
          for (const [k, v] of windows) if (v.end <= now) windows.delete(k);
          if (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value!);
        }
        w = { end: windowStart + windowMs, count: 0 };
        windows.set(id, w);
      }
      return ++w.count;
    },
  };
}
