import type { SpanBatchMessage } from '@lantern/domain';

/**
 * `writeSpanBatches`/`writeLogBatches` for an adapter without transactions: each batch written after the one
 * before has been, in order, stopping at the first failure (the caller redelivers them all; writes converge).
 */
export function oneByOne<T>(write: (batch: T) => Promise<void>): (batches: readonly T[]) => Promise<void> {
  return async (batches) => {
    for (const batch of batches) await write(batch);
  };
}

/**
 * Ingest splits a request's spans into one message per trace (a trace stays on one partition); an adapter that
 * pays a round trip per step per batch writes them back as one batch. Neighbouring messages without an
 * Idempotency-Key of the same application and arrival are joined: spans are keyed by their own ids and trace
 * records by their trace, so one batch of all the spans stores exactly what the messages one by one would.
 * A message with a key stays on its own (its key claims exactly its spans).
 */
export function joinTraceMessages(batches: readonly SpanBatchMessage[]): SpanBatchMessage[] {
  const joined: SpanBatchMessage[] = [];
  let open: SpanBatchMessage | undefined;
  for (const batch of batches) {
    const joins = open !== undefined && batch.idempotencyKey === undefined && open.applicationId === batch.applicationId
      && open.projectId === batch.projectId && open.receivedAt === batch.receivedAt;
    if (joins) {
      open!.spans.push(...batch.spans);
      continue;
    }
    open = batch.idempotencyKey === undefined ? { ...batch, spans: [...batch.spans] } : undefined;
    joined.push(open ?? batch);
  }
  return joined;
}
