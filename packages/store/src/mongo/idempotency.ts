import type { TelemetryMessage } from '@lantern/domain';
import type { AnyBulkWriteOperation } from 'mongodb';
import { IDEMPOTENCY_WINDOW_MS } from '../sqlite/ingest.js';
import type { Collections, IdempotencyKeyDoc } from './collections.js';
import { idempotencyKeyId } from './collections.js';

type Kind = IdempotencyKeyDoc['kind'];

/** A batch of a group that is to be stored, with its time (when ingest received it). */
export interface Accepted<B> {
  batch: B;
  at: number;
}

/** The keys a group claims: what `recordKeys` writes once the group is stored. */
export type Claims = Map<string, { applicationId: number; key: string; at: number }>;

/**
 * The batches of a group to store, in order, and the keys they claim: one lookup of all the group's keys.
 * A batch is skipped when its key was accepted for its application and kind within 24 h of its time, either
 * stored before or claimed by an earlier batch of the group (as writing the batches one by one would).
 */
export async function acceptBatches<B extends TelemetryMessage & { applicationId: number }>(
  c: Collections, kind: Kind, batches: readonly B[], timeOf: (batch: B) => number,
): Promise<{ accepted: Accepted<B>[]; claims: Claims }> {
  const ids = [...new Set(batches.flatMap((b) => (b.idempotencyKey ? [idempotencyKeyId(b.applicationId, kind, b.idempotencyKey)] : [])))];
  const seen = new Map<string, number>(ids.length === 0 ? [] : (await c.idempotencyKeys
    .find({ _id: { $in: ids } }, { projection: { createdAt: 1 } }).toArray()).map((k) => [k._id, k.createdAt.getTime()]));
  const accepted: Accepted<B>[] = [];
  const claims: Claims = new Map();
  for (const batch of batches) {
    const at = timeOf(batch);
    const key = batch.idempotencyKey;
    if (!key) {
      accepted.push({ batch, at });
      continue;
    }
    const id = idempotencyKeyId(batch.applicationId, kind, key);
    const last = seen.get(id);
    if (last !== undefined && Math.abs(at - last) < IDEMPOTENCY_WINDOW_MS) continue;
    accepted.push({ batch, at });
    // `$max` as the record does: a later time already recorded stays.
    seen.set(id, Math.max(last ?? at, at));
    const claim = claims.get(id);
    claims.set(id, { applicationId: batch.applicationId, key, at: Math.max(claim?.at ?? at, at) });
  }
  return { accepted, claims };
}

/** Records the claimed keys as accepted (or keeps a later time already recorded): one bulk, once the group is stored. */
export async function recordKeys(c: Collections, kind: Kind, claims: Claims): Promise<void> {
  if (claims.size === 0) return;
  const ops: AnyBulkWriteOperation<IdempotencyKeyDoc>[] = [...claims].map(([_id, { applicationId, key, at }]) => ({ updateOne: {
    filter: { _id },
    update: { $max: { createdAt: new Date(at) }, $setOnInsert: { applicationId, kind, key } },
    upsert: true,
  } }));
  await c.idempotencyKeys.bulkWrite(ops, { ordered: false });
}
