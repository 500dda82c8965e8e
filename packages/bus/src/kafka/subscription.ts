import { errors } from '@lantern/domain';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Handler, Subscription } from '../port.js';
import { sleep, withTimeout } from './clients.js';
import type { BusLogger, ResolvedOptions } from './options.js';

export interface KafkaSubscription extends Subscription {
  /** Set when the consumer stopped for good (an error kafkajs does not restart after). */
  readonly failure: Error | undefined;
}

type SubscriptionOptions = Pick<ResolvedOptions, 'sessionTimeoutMs' | 'joinTimeoutMs' | 'redeliveryBackoff'> & {
  topic: string;
  groupId: string;
  logger: BusLogger | undefined;
};

/**
 * One consumer of one topic in one group. Delivery is per fetched batch (eachBatch): the handler gets every
 * value kafkajs fetched for one partition in one call, so the writer stores them with one bulk write instead
 * of one round trip per message, and the offset after the batch is committed only once the handler resolved.
 * A handler that throws gets the same values again after a backoff, for as long as this consumer owns the
 * partition; if it stops or loses the partition first, nothing was committed and the next owner gets them.
 */
export async function startSubscription<T>(kafka: Kafka, options: SubscriptionOptions, handler: Handler<T>): Promise<KafkaSubscription> {
  const { topic, groupId, logger, sessionTimeoutMs } = options;
  const heartbeatMs = Math.max(100, Math.min(1_000, Math.floor(sessionTimeoutMs / 3)));
  const consumer: Consumer = kafka.consumer({
    groupId,
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: heartbeatMs,
    rebalanceTimeout: Math.max(sessionTimeoutMs, 20_000),
    // The fetch loop heartbeats between fetches: a short long-poll lets an idle member notice a rebalance soon.
    maxWaitTimeInMs: 1_000,
    allowAutoTopicCreation: false,
    retry: { initialRetryTime: 300, maxRetryTime: 5_000, retries: 5, restartOnFailure: async () => true },
  });
  let failure: Error | undefined;
  const inFlight = new Set<Promise<void>>();

  const joined = new Promise<void>((resolve, reject) => {
    consumer.on(consumer.events.GROUP_JOIN, () => resolve());
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart) return;
      failure = payload.error;
      logger?.error('kafka consumer stopped for good', { groupId, topic, error: payload.error.message });
      reject(errors.unavailable('message bus'));
    });
  });
  joined.catch(() => undefined);

  async function deliver(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale } = payload;
    const values = decode<T>(batch.messages, (offset, error) =>
      logger?.error('skipping a message that is not JSON', { topic, partition: batch.partition, offset, error }),
    );
    for (let attempt = 1; values.length > 0; attempt++) {
      // Stopping, or the partition moved to another member: leave the batch uncommitted for its next owner.
      if (!isRunning() || isStale()) return;
      try {
        await whileHeartbeating(handler(values), heartbeat, heartbeatMs);
        break;
      } catch (err) {
        const delayMs = Math.min(options.redeliveryBackoff.maxMs, options.redeliveryBackoff.initialMs * 2 ** (attempt - 1));
        const error = (err as Error).message;
        logger?.warn('bus handler failed; the batch comes again', { topic, partition: batch.partition, attempt, delayMs, error });
        for (const until = Date.now() + delayMs; Date.now() < until && isRunning(); ) {
          await sleep(Math.min(100, until - Date.now()));
          await heartbeat(); // throws if the group is rebalancing: kafkajs then rejoins (nothing committed)
        }
      }
    }
    resolveOffset(batch.lastOffset());
    const next = (BigInt(batch.lastOffset()) + 1n).toString();
    await commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }] });
  }

  try {
    await consumer.connect();
    // A new group starts at the beginning: what was published before the first consumer joined is not lost.
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => {
        const p = deliver(payload);
        inFlight.add(p);
        return p.finally(() => inFlight.delete(p));
      },
    });
    await withTimeout(joined, options.joinTimeoutMs, 'message bus');
  } catch (err) {
    await consumer.disconnect().catch(() => undefined);
    throw err instanceof Error && 'status' in err ? err : errors.unavailable('message bus');
  }

  let stopping: Promise<void> | undefined;
  return {
    get failure() {
      return failure;
    },
    stop() {
      // kafkajs's disconnect lets the batch in progress finish (handler and commit), then leaves the group.
      return (stopping ??= (async () => {
        await consumer
          .disconnect()
          .catch((err: unknown) => logger?.warn('kafka consumer disconnect failed', { groupId, error: (err as Error).message }));
        await Promise.allSettled([...inFlight]);
      })());
    },
  };
}

function decode<T>(messages: KafkaMessage[], onError: (offset: string, error: string) => void): T[] {
  const values: T[] = [];
  for (const m of messages) {
    if (m.value === null) continue;
    try {
      values.push(JSON.parse(m.value.toString('utf8')) as T);
    } catch (err) {
      // Redelivering cannot make it parse; holding the partition for it would stop everything behind it.
      onError(m.offset, (err as Error).message);
    }
  }
  return values;
}

/**
 * kafkajs heartbeats only between batches; a store write that runs longer than the session would get the
 * member evicted and its batch handed to another writer while it is still being written. Heartbeats keep
 * going during the call (their failures surface at the commit, which then fails and the batch comes again).
 */
async function whileHeartbeating(work: Promise<void>, heartbeat: () => Promise<void>, everyMs: number): Promise<void> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), everyMs);
  try {
    await work;
  } finally {
    clearInterval(timer);
  }
}
