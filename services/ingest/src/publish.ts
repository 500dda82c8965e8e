import type { Bus } from '@lantern/bus';
import { AppError, errors, type LogBatchMessage, type Origin, type SpanBatchMessage } from '@lantern/domain';
import type { Logger } from '@lantern/logging';

/** The bus's own 503 (with its Retry-After) or 413 (a batch over the topic's message limit: retrying cannot help) pass through; anything else is a 503. */
function busFailure(err: unknown): AppError {
  return err instanceof AppError && (err.status === 503 || err.status === 413) ? err : errors.unavailable('message bus');
}

export interface Publisher {
  /** One bus message per trace (keyed by its trace id), or one with the Idempotency-Key: batches.ts, spanMessages. */
  spans(origin: Origin, messages: SpanBatchMessage[]): Promise<void>;
  /** The batch's one message, keyed by the application. */
  logs(origin: Origin, message: LogBatchMessage): Promise<void>;
}

/**
 * Publishing, shared by /ingest/* and /v1/*: a failure is the client's to retry (503 + Retry-After); nothing was
 * acknowledged. Nothing is published for an empty batch.
 */
export function createPublisher(bus: Bus, logger: Logger): Publisher {
  const fail = (topic: string, origin: Origin, err: unknown): never => {
    logger.warn('publish failed', { topic, applicationId: origin.applicationId, error: (err as Error).message });
    throw busFailure(err);
  };
  return {
    async spans(origin, messages) {
      if (messages.length === 0) return;
      await bus.publish('spans', messages.map((m) => ({ key: m.spans[0]!.traceId, value: m }))).catch((err: unknown) => fail('spans', origin, err));
    },
    async logs(origin, message) {
      if (message.logs.length === 0) return;
      await bus.publish('logs', [{ key: String(origin.applicationId), value: message }]).catch((err: unknown) => fail('logs', origin, err));
    },
  };
}
