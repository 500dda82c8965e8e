import type { Collection } from 'mongodb';
import type { CounterDoc } from './collections.js';
import { DUPLICATE_KEY, codeOf } from './errors.js';

/** Named sequences: integer ids of organizations, projects and applications, and creation orders. */
export type Sequence = 'organizations' | 'projects' | 'applications' | 'apiKeys' | 'tenants' | 'documents';

/**
 * The next value of a sequence: one atomic `$inc` on the counter's document, created by the first use (upsert).
 * Concurrent first uses race on the counter's `_id`: MongoDB retries such an upsert itself, and the one retry
 * here covers servers that report the duplicate key instead.
 */
export function createCounters(counters: Collection<CounterDoc>): (sequence: Sequence) => Promise<number> {
  // The value is read from the pre-image (`returnDocument: 'before'`) plus one, not from the post-image: the same
  // on MongoDB, where both come from the one atomic update, but the emulator of the tests (mongo-java-server
  // 1.47) returns as post-image a shared document that a concurrent increment may already have changed again.
  const increment = async (sequence: Sequence): Promise<number> => {
    const before = await counters.findOneAndUpdate({ _id: sequence }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'before' });
    return (before?.seq ?? 0) + 1;
  };
  return async (sequence) => {
    try {
      return await increment(sequence);
    } catch (e) {
      if (codeOf(e) !== DUPLICATE_KEY) throw e;
      return increment(sequence);
    }
  };
}
