import { randomBytes } from 'node:crypto';
import type { AnyBulkWriteOperation } from 'mongodb';
import type { MetricsCell, MetricsQuery } from '../port.js';
import { CellMerger } from '../rollups.js';
import type { RollupDelta } from '../rollups.js';
import type { Access } from './access.js';
import { onlyDuplicates } from './bulk.js';
import type { Collections, RollupDoc } from './collections.js';
import { rollupKey } from './collections.js';
import { readRawRollup } from './rollup-bson.js';

/**
 * How many operation ids a rollup document remembers. Completing an operation again (a retry after a failure
 * half-way) changes nothing as long as its id is among them: fewer than this many other operations reached the
 * same minute of the same application in between (at 1M requests an hour, about three minutes of batches).
 */
export const OPS_KEPT = 1000;

/** A new operation id: 12 characters, random. */
export const newOpId = (): string => randomBytes(9).toString('base64url');

/**
 * Adds a delta to the rollup documents, once per operation id: each document's update is one atomic `$inc` of
 * its counters and sketch buckets (concurrent writers merge), conditional on the operation not being among
 * the document's `ops` yet, which it joins in the same update.
 */
export async function applyDelta(c: Collections, delta: RollupDelta, op: string): Promise<void> {
  const changes = delta.changes();
  if (changes.length === 0) return;
  const ops: AnyBulkWriteOperation<RollupDoc>[] = changes.map((ch) => {
    const inc: Record<string, number> = { requests: ch.requests, errors: ch.errors };
    const [zeros, ...buckets] = ch.sketch.toArray();
    inc['zeros'] = zeros ?? 0;
    for (let i = 0; i + 1 < buckets.length; i += 2) inc[`b.${buckets[i]}`] = buckets[i + 1]!;
    return { updateOne: {
      filter: { _id: rollupKey(ch.applicationId, ch.minute), ops: { $ne: op } },
      update: {
        $inc: inc,
        $setOnInsert: { projectId: ch.projectId, applicationId: ch.applicationId, minute: new Date(ch.minute) },
        $push: { ops: { $each: [op], $slice: -OPS_KEPT } },
      },
      upsert: true,
    } } as AnyBulkWriteOperation<RollupDoc>;
  });
  try {
    await c.rollups.bulkWrite(ops, { ordered: false });
  } catch (e) {
    // A duplicate key: the document exists and either holds the operation already (done), or another writer
    // inserted it between our match and our insert (then the second try matches it and applies).
    if (!onlyDuplicates(e)) throw e;
    try {
      await c.rollups.bulkWrite(ops, { ordered: false });
    } catch (again) {
      if (!onlyDuplicates(again)) throw again;
    }
  }
}

/** GET /metrics from the rollups of the visible projects: one index range on (projectId, minute). */
export async function readRollups(c: Collections, access: Access, query: MetricsQuery): Promise<MetricsCell[]> {
  const projects = await access.visibleProjects(query.userId, query.projectId);
  if (projects.length === 0) return [];
  const merger = new CellMerger(query);
  // Raw BSON, read by readRawRollup: the driver's objects of ~300 bucket properties cost ten times as much.
  const docs = c.rollups.find({
    projectId: { $in: projects },
    minute: { $gte: new Date(query.from), $lt: new Date(query.to) },
    ...(query.applicationId === undefined ? {} : { applicationId: query.applicationId }),
  }, { projection: { ops: 0 }, batchSize: 2000, raw: true });
  for await (const raw of docs) {
    const d = readRawRollup(raw as unknown as Buffer);
    merger.add(d, (sketch) => sketch.mergeArray(d.sketch));
  }
  return merger.result();
}
