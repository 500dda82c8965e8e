import { errors } from '@lantern/domain';
import type { Bus, BusMessage, Handler, Subscription, Topic } from '../port.js';
import { asUnavailable, createClients, withTimeout } from './clients.js';
import { groupId, resolveOptions, topicName, type KafkaBusOptions } from './options.js';
import { createPublisher } from './publisher.js';
import { startSubscription, type KafkaSubscription } from './subscription.js';
import { createTopicAdmin } from './topics.js';
import { useFastGzip } from './gzip-codec.js';

export interface KafkaBus extends Bus {
  /**
   * Creates the topics if they are missing (idempotent; publish, subscribe and ping do it too). A service
   * calls it at start-up so that the topics exist, with the configured partitions, before any traffic.
   */
  ensureTopics(): Promise<void>;
}

/**
 * The bus on Kafka (kafkajs): span, log and document topics named `<prefix><topic>`, values as JSON in
 * gzip-compressed batches, keyed so that one key (a trace) stays in one partition and in order. Publishing is
 * idempotent with acks from all in-sync replicas; consumers commit after their handler resolved, so a crash
 * redelivers (at least once) and the idempotent store absorbs the repeat. Nothing connects until first used.
 */
export function createKafkaBus(options: KafkaBusOptions): KafkaBus {
  useFastGzip();
  const opts = resolveOptions(options);
  const clients = createClients(opts);
  const topics = createTopicAdmin(clients.fast.admin(), opts);
  const publisher = createPublisher(clients.fast, { timeoutMs: opts.publishTimeoutMs });
  const subscriptions = new Set<KafkaSubscription>();
  const publishing = new Set<Promise<void>>();
  let closing: Promise<void> | undefined;

  const ensureTopics = (): Promise<void> => withTimeout(topics.ensureTopics(), opts.publishTimeoutMs, 'message bus').catch((err: unknown) => {
    throw asUnavailable(err);
  });

  async function publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void> {
    const name = topicName(opts, topic);
    if (closing) throw errors.unavailable('message bus (shutting down)');
    if (messages.length === 0) return;
    const encoded = messages.map((m) => ({ key: m.key, value: Buffer.from(JSON.stringify(m.value)) }));
    await ensureTopics();
    await publisher.send(name, encoded);
  }

  return {
    ensureTopics,

    async publish<T>(topic: Topic, messages: BusMessage<T>[]) {
      const p = publish(topic, messages);
      publishing.add(p);
      try {
        await p;
      } finally {
        publishing.delete(p);
      }
    },

    async subscribe<T>(topic: Topic, group: string, handler: Handler<T>): Promise<Subscription> {
      if (closing) throw errors.unavailable('message bus (shutting down)');
      await ensureTopics();
      const sub = await startSubscription<T>(
        clients.patient,
        { ...opts, topic: topicName(opts, topic), groupId: groupId(opts, group, topic), logger: opts.logger },
        handler,
      );
      if (closing) {
        // close() began while this consumer was joining: it would not have been stopped with the others.
        await sub.stop();
        throw errors.unavailable('message bus (shutting down)');
      }
      subscriptions.add(sub);
      return {
        async stop() {
          await sub.stop();
          subscriptions.delete(sub);
        },
      };
    },

    async ping() {
      if (closing) throw errors.unavailable('message bus (shutting down)');
      await withTimeout(
        (async () => {
          await topics.ensureTopics();
          await topics.check();
        })(),
        opts.pingTimeoutMs,
        'message bus',
      ).catch((err: unknown) => {
        throw asUnavailable(err);
      });
      const failed = [...subscriptions].find((s) => s.failure);
      if (failed) throw errors.unavailable(`message bus (a consumer stopped: ${failed.failure?.message})`);
    },

    close() {
      return (closing ??= (async () => {
        await Promise.allSettled([...publishing]);
        await Promise.allSettled([...subscriptions].map((s) => s.stop()));
        subscriptions.clear();
        await Promise.allSettled([publisher.close(), topics.close()]);
      })());
    },
  };
}
