import type { LogBatchMessage } from '@lantern/domain';
import type { TelemetryStore } from '../port.js';
import { firstOfEach, insertIfAbsent } from './bulk.js';
import type { Collections } from './collections.js';
import type { Guard } from './errors.js';
import { acceptBatches, recordKeys } from './idempotency.js';
import { batchTime, toLogDoc } from './span-docs.js';
import { writeSpanGroup } from './span-group.js';

export type IngestWriter = Pick<TelemetryStore, 'writeSpans' | 'writeLogs' | 'writeSpanBatches' | 'writeLogBatches'>;

/** The log batches of a group: one lookup of their keys, one unordered insert of all their logs, one bulk of keys. */
async function writeLogGroup(c: Collections, batches: readonly LogBatchMessage[], now: () => number): Promise<void> {
  if (batches.every((b) => b.logs.length === 0 && !b.idempotencyKey)) return;
  const { accepted, claims } = await acceptBatches(c, 'logs', batches, (b) => batchTime(b, now));
  await insertIfAbsent(c.logs, firstOfEach(accepted.flatMap(({ batch, at }) => batch.logs.map((log) => toLogDoc(batch, log, at))), (d) => d._id));
  await recordKeys(c, 'logs', claims);
}

/**
 * The port asks for "all or nothing" batches. MongoDB transactions need a replica set (the tests run a standalone
 * mongod), so a batch is made convergent instead: every step is idempotent and keyed by natural ids (spans by
 * application + trace + span id, logs by id, trace records by application + trace), and the idempotency keys are
 * recorded last. A batch that fails half-way throws, the message is redelivered (the writer commits its offset
 * only after the store write), and the retry completes exactly what was missing; until then a reader may see
 * part of the batch, never a duplicate. The metrics rollups follow the same rule through per-span flags and
 * operation ids (rollup-ops.ts): a retried batch neither counts a span twice nor loses one.
 *
 * The batches the bus delivers together are written as one group (span-group.ts): each step once for all of
 * them, so the round trips are paid per delivery, not per message. A single batch is a group of one.
 */
export function createIngestWriter(c: Collections, guard: Guard, now: () => number): IngestWriter {
  return {
    writeSpans: (batch) => guard.run(() => writeSpanGroup(c, [batch], now)),
    writeLogs: (batch) => guard.run(() => writeLogGroup(c, [batch], now)),
    writeSpanBatches: (batches) => guard.run(() => writeSpanGroup(c, batches, now)),
    writeLogBatches: (batches) => guard.run(() => writeLogGroup(c, batches, now)),
  };
}
