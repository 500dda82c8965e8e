import { errors } from '@lantern/domain';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer, type TopicMessages } from 'kafkajs';
import { asUnavailable, withTimeout } from './clients.js';

export interface Publisher {
  /** Resolves once the partition leaders have the messages with acks from all in-sync replicas. */
  send(topic: string, messages: Message[]): Promise<void>;
  close(): Promise<void>;
}

interface Session {
  producer: Producer;
  connected: Promise<void>;
}

interface Pending {
  topic: string;
  messages: Message[];
  bytes: number;
  /** Sent in a request of its own (after the broker refused a request it shared with others). */
  alone: boolean;
  settle(err?: Error): void;
}

// Errors with which the broker refuses the data itself: definitive (nothing was written), and a retry of the
// same data would fail the same way, so they are not "unavailable".
const REFUSED_DATA = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD']);
/** Concurrent publishes share one produce request up to this much JSON (the first one always goes). */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/**
 * The idempotent producer behind `publish`.
 *
 * Bounded: its retries are few and every publish has a deadline, so a publish to a cluster that is down
 * rejects within seconds (ingest answers 503, the client retries) instead of retrying for ever as kafkajs's
 * idempotent default does. That costs a guarantee, which is why a failed send discards the producer: kafkajs
 * rewinds the partition's sequence number when a send fails, but a send that timed out may still have been
 * written, and the next batch (different data) would then reuse its sequence and be dropped by the broker as
 * a duplicate. A new producer has a new producer id and sequences of its own; the failed data comes back
 * through the client's retry, and the store's idempotent writes absorb the copy a late success may have left.
 *
 * Coalescing: an idempotent producer has one request in flight per broker, so concurrent publishes would
 * queue for a round trip each. Instead, what was published while a request was in flight goes out together in
 * the next request (in publish order, so one key's messages keep their order), and each caller is answered
 * when the request that carried its messages is acknowledged.
 */
export function createPublisher(kafka: Kafka, { timeoutMs }: { timeoutMs: number }): Publisher {
  let current: Session | undefined;
  const queue: Pending[] = [];
  let pumping = false;

  const session = (): Session => {
    if (!current) {
      const producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        // Java's murmur2 partitioner: a key lands on the same partition as it would from any Kafka client.
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { initialRetryTime: 100, maxRetryTime: 1_000, retries: 3 },
      });
      current = { producer, connected: producer.connect() };
    }
    return current;
  };

  const discard = (s: Session): void => {
    if (current === s) current = undefined;
    s.producer.disconnect().catch(() => undefined);
  };

  function take(): Pending[] {
    const first = queue.shift()!;
    const batch = [first];
    let bytes = first.bytes;
    while (!first.alone && queue.length > 0 && !queue[0]!.alone && bytes + queue[0]!.bytes <= MAX_REQUEST_BYTES) {
      const next = queue.shift()!;
      bytes += next.bytes;
      batch.push(next);
    }
    return batch;
  }

  async function sendBatch(batch: Pending[]): Promise<void> {
    let s: Session | undefined;
    const byTopic = new Map<string, Message[]>();
    for (const p of batch) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), ...p.messages]);
    const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
    try {
      const { producer, connected } = (s = session());
      const attempt = (async () => {
        await connected;
        await producer.sendBatch({ topicMessages, acks: -1, timeout: timeoutMs, compression: CompressionTypes.GZIP });
      })();
      await withTimeout(attempt, timeoutMs, 'message bus');
      for (const p of batch) p.settle();
    } catch (err) {
      const type = (err as { type?: unknown }).type;
      if (typeof type === 'string' && REFUSED_DATA.has(type)) {
        if (batch.length === 1) return batch[0]!.settle(errors.tooLarge(`The message bus refused the batch (${type}).`));
        // Whose data was refused is unknown: each goes again on its own, the others then succeed.
        for (const p of batch) p.alone = true;
        queue.unshift(...batch);
        return;
      }
      if (s) discard(s);
      const unavailable = asUnavailable(err);
      for (const p of batch) p.settle(unavailable);
    }
  }

  async function pump(): Promise<void> {
    if (pumping) return;
    pumping = true;
    try {
      while (queue.length > 0) await sendBatch(take());
    } finally {
      pumping = false;
    }
  }

  return {
    send(topic, messages) {
      return new Promise<void>((resolve, reject) => {
        let done = false;
        const bytes = messages.reduce((n, m) => n + (m.value?.length ?? 0) + (typeof m.key === 'string' ? m.key.length : 0), 0);
        const pending: Pending = {
          topic,
          messages,
          bytes,
          alone: false,
          settle(err) {
            if (done) return;
            done = true;
            clearTimeout(timer);
            if (err) reject(err);
            else resolve();
          },
        };
        // The deadline counts from the call, queueing included; a publish still queued then is withdrawn.
        const timer = setTimeout(() => {
          const at = queue.indexOf(pending);
          if (at !== -1) queue.splice(at, 1);
          pending.settle(errors.unavailable('message bus'));
        }, timeoutMs);
        queue.push(pending);
        void pump();
      });
    },
    async close() {
      const s = current;
      current = undefined;
      if (s) await s.producer.disconnect().catch(() => undefined);
    },
  };
}
