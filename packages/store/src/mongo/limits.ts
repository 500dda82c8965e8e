import type { LimitsStore } from '../port.js';
import { DELETING, toDocument } from './ai.js';
import type { RecordStoreDeps } from './collections.js';
import { codeOf } from './errors.js';

const DUPLICATE_KEY = 11000;

/**
 * What the fair limits count. A rate-limit window is one document (`$inc` with upsert, removed by its TTL index
 * once it has ended), shared by every process on the database: N ingest processes still allow the limit once.
 */
export function createLimitsStore({ c, guard }: Pick<RecordStoreDeps, 'c' | 'guard'>): LimitsStore {
  const hit = async (id: string, expiresAt: Date): Promise<number> => {
    const doc = await c.rateWindows.findOneAndUpdate(
      { _id: id },
      { $inc: { count: 1 }, $setOnInsert: { expiresAt } },
      { upsert: true, returnDocument: 'after', projection: { count: 1 } },
    );
    return doc?.count ?? 1;
  };

  return {
    countActiveApiKeys: (applicationId) => guard.run(() => c.apiKeys.countDocuments({ applicationId, revokedAt: null })),

    findProjectOrganization: (projectId) => guard.run(async () => {
      const project = await c.projects.findOne({ _id: projectId }, { projection: { organizationId: 1 } });
      return project?.organizationId ?? null;
    }),

    findDocumentBySha256: (tenantId, sha256) => guard.run(async () => {
      const doc = await c.documents.findOne({ tenantId, sha256, status: { $ne: DELETING } }, { sort: { createdAt: 1, seq: 1 } });
      return doc === null ? null : toDocument(doc);
    }),

    organizationStoredBytes: (organizationId) => guard.run(async () => {
      const tenants = await c.tenants.find({ organizationId }, { projection: { _id: 1 } }).toArray();
      if (tenants.length === 0) return 0;
      const [sum] = await c.documents
        .aggregate<{ bytes: number }>([{ $match: { tenantId: { $in: tenants.map((t) => t._id) }, status: { $ne: DELETING } } }, { $group: { _id: null, bytes: { $sum: '$size' } } }])
        .toArray();
      return sum?.bytes ?? 0;
    }),

    countHit: (key, windowStart, windowMs) => guard.run(async () => {
      const id = `${windowStart}:${key}`;
      const expiresAt = new Date(windowStart + windowMs);
      try {
        return await hit(id, expiresAt);
      } catch (e) {
        // Two first hits of a window at once: one upsert inserts, the other meets the duplicate key; again, it updates.
        if (codeOf(e) === DUPLICATE_KEY) return hit(id, expiresAt);
        throw e;
      }
    }),
  };
}
