/**
 * `writeSpanBatches`/`writeLogBatches` for an adapter without transactions: each batch written after the one
 * before has been, in order, stopping at the first failure (the caller redelivers them all; writes converge).
 */
export function oneByOne<T>(write: (batch: T) => Promise<void>): (batches: readonly T[]) => Promise<void> {
  return async (batches) => {
    for (const batch of batches) await write(batch);
  };
}
