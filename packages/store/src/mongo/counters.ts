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
  const increment = async (sequence: Sequence): Promise<number> => {
    const after = await counters.findOneAndUpdate({ _id: sequence }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    if (after === null) throw new Error(`the counter ${sequence} was not returned by its upsert`);
    return after.seq;
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
