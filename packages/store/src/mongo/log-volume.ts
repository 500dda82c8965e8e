import type { LogLevel } from '@lantern/domain';
import { levelsOf } from '../port.js';
import type { LogVolumeCell, LogVolumeQuery } from '../port.js';
import type { Access } from './access.js';
import type { Deadline } from './budget.js';
import type { Collections } from './collections.js';

const LEVEL_ORDER: Record<string, number> = { trace: 0, debug: 1, info: 2, warn: 3, error: 4, fatal: 5 };

interface Group { _id: { b: number; a: number; l: LogLevel }; n: number }

/**
 * GET /logs/volume on MongoDB: the window's logs counted by the server, grouped by bucket, application and level, on
 * the project's (projectId, ts) range. Counted when read, not kept as rollups: an $inc beside the write would count
 * a log twice, or never, when a group is written again after a failure half-way (ingest.ts converges by ids, a
 * counter cannot). So its cost is the window's logs: the read's budget (maxTimeMS) bounds it, and past it the read
 * answers 503 read_timeout (docs/api.md). The SQLite store keeps them as rollups.
 */
export async function readLogVolume(c: Collections, access: Access, query: LogVolumeQuery, deadline: Deadline): Promise<LogVolumeCell[]> {
  if ((await access.visibleProject(query.projectId, query.userId)) === null) return [];
  const levels = levelsOf(query);
  const match = {
    projectId: query.projectId,
    ts: { $gte: new Date(query.from), $lt: new Date(query.to) },
    ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
    ...(levels === undefined ? {} : { level: levels.length === 1 ? levels[0]! : { $in: levels } }),
  };
  const groups = await c.logs.aggregate<Group>([
    { $match: match },
    { $group: { _id: { b: { $floor: { $divide: [{ $subtract: [{ $toLong: '$ts' }, query.from] }, query.bucketMs] } }, a: '$applicationId', l: '$level' }, n: { $sum: 1 } } },
  ], { hint: 'project_ts', ...deadline.maxTime() }).toArray();
  return groups
    .map((g) => ({ start: query.from + g._id.b * query.bucketMs, applicationId: g._id.a, level: g._id.l, count: g.n }))
    .sort((a, b) => a.start - b.start || a.applicationId - b.applicationId || (LEVEL_ORDER[a.level] ?? 9) - (LEVEL_ORDER[b.level] ?? 9));
}
