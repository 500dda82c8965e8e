import type { Collection } from 'mongodb';
import type { CounterDoc } from './collections.js';
import { DUPLICATE_KEY, codeOf } from './errors.js';

/** Named sequences: integer ids of organizations, projects and applications, and creation orders. */
export type Sequence = 'organizations' | 'projects' | 'applications' | 'apiKeys' | 'tenants' | 'documents';

/**
 * Adds `n` to the counter `id` and returns its new value: one atomic `$inc` on the counter's document, created by
 * the first use (upsert). Concurrent first uses race on the counter's `_id`: MongoDB retries such an upsert itself,
 * and the one retry here covers servers that report the duplicate key instead.
 */
export async function increment(counters: Collection<CounterDoc>, id: string, n = 1): Promise<number> {
  const add = async (): Promise<number> => {
    const after = await counters.findOneAndUpdate({ _id: id }, { $inc: { seq: n } }, { upsert: true, returnDocument: 'after' });
    if (after === null) throw new Error(`the counter ${id} was not returned by its upsert`);
    return after.seq;
  };
  try {
    return await add();
  } catch (e) {
    if (codeOf(e) !== DUPLICATE_KEY) throw e;
    return add();
  }
}

/** The next value of a sequence (increment). */
export function createCounters(counters: Collection<CounterDoc>): (sequence: Sequence) => Promise<number> {
  return (sequence) => increment(counters, sequence);
}
