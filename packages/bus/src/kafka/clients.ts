import { errors } from '@lantern/domain';
import { Kafka } from 'kafkajs';
import { kafkaLogRouting } from './logging.js';
import type { ResolvedOptions } from './options.js';

export interface KafkaClients {
  /** Producer and admin: fail fast, so a publish or a ping answers within seconds when the cluster is down. */
  fast: Kafka;
  /** Consumers: patient, since they run unattended and must ride out a broker restart. */
  patient: Kafka;
}

export function createClients(options: ResolvedOptions): KafkaClients {
  const logging = kafkaLogRouting(options.logger);
  const base = { clientId: options.clientId, brokers: options.brokers, ...logging };
  return {
    // Nested retries multiply (a send retries, and so does the metadata refresh inside it): small budgets here,
    // and the caller bounds the whole call with a timeout anyway.
    fast: new Kafka({ ...base, connectionTimeout: 1_000, requestTimeout: 10_000, retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 2 } }),
    // After the retries a consumer "crashes" and kafkajs restarts it (restartOnFailure), so a consumer waits
    // out an outage of any length; maxRetryTime bounds how long after the broker's return it notices.
    patient: new Kafka({
      ...base,
      connectionTimeout: 3_000,
      requestTimeout: 30_000,
      retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 5 },
    }),
  };
}

/**
 * `work`, or a 503 when it takes longer than `ms`. kafkajs calls cannot be cancelled: a late settlement of
 * `work` is swallowed here, and the caller makes sure it does no harm (see publisher.ts).
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errors.unavailable(what)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Any failure to reach the cluster becomes the 503 the port promises; what the bus itself threw passes. */
export function asUnavailable(err: unknown, what = 'message bus'): Error {
  if (err instanceof Error && 'status' in err && (err as { status: unknown }).status === 503) return err;
  return errors.unavailable(what);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
