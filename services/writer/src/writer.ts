import type { Bus, Subscription } from '@lantern/bus';
import type { LogBatchMessage, SpanBatchMessage } from '@lantern/domain';
import type { Logger } from '@lantern/logging';
import type { TelemetryStore } from '@lantern/store';

export interface WriterDeps {
  bus: Bus;
  store: Pick<TelemetryStore, 'writeSpanBatches' | 'writeLogBatches'>;
  logger: Logger;
  /** Consumer group name; all writer processes share one. */
  group?: string;
}

export interface Writer {
  start(): Promise<void>;
  /** Stops consuming after the in-flight batches are stored. */
  stop(): Promise<void>;
}

/**
 * Consumes span and log batches and stores them. Writes are idempotent (span ids, log ids, idempotency
 * keys), so a redelivered batch is absorbed; a failed write is thrown back to the bus, which redelivers
 * it (Kafka) or fails the publish (embedded), so nothing acknowledged is lost.
 */
export function createWriter({ bus, store, logger, group = 'lantern-writer' }: WriterDeps): Writer {
  const subscriptions: Subscription[] = [];
  return {
    async start() {
      subscriptions.push(
        await bus.subscribe<SpanBatchMessage>('spans', group, async (batches) => {
          await store.writeSpanBatches(batches);
          logger.debug('stored spans', { batches: batches.length, spans: batches.reduce((n, b) => n + b.spans.length, 0) });
        }),
        await bus.subscribe<LogBatchMessage>('logs', group, async (batches) => {
          await store.writeLogBatches(batches);
          logger.debug('stored logs', { batches: batches.length, logs: batches.reduce((n, b) => n + b.logs.length, 0) });
        }),
      );
    },
    async stop() {
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    },
  };
}
