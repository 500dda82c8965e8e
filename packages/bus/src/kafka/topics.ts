import type { Admin } from 'kafkajs';
import { TOPICS, topicName, type ResolvedOptions } from './options.js';

export interface TopicAdmin {
  /** The project's topics exist afterwards (created if missing; idempotent, also across processes). */
  ensureTopics(): Promise<void>;
  /** Throws unless the cluster answers a metadata request for the project's topics. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the bus's topics once per bus: the first call does the work, later calls reuse its success, and a
 * failure (cluster down) is forgotten so the next call tries again. Several processes starting together may
 * all try to create them: Kafka refuses all but one, and kafkajs reports that as "already exists".
 */
export function createTopicAdmin(admin: Admin, options: ResolvedOptions): TopicAdmin {
  const names = TOPICS.map((t) => topicName(options, t));
  let connected: Promise<void> | undefined;
  let ensured: Promise<void> | undefined;

  const connect = (): Promise<void> =>
    (connected ??= admin.connect().catch((err: unknown) => {
      connected = undefined;
      throw err;
    }));

  async function create(): Promise<void> {
    await connect();
    // Listing first keeps the usual case (topics exist) free of the broker's "already exists" error responses.
    const existing = new Set(await admin.listTopics());
    const missing = names.filter((n) => !existing.has(n));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({
        topic,
        numPartitions: options.partitions,
        replicationFactor: options.replicationFactor,
        configEntries: [{ name: 'max.message.bytes', value: String(options.maxMessageBytes) }],
      })),
    });
  }

  return {
    ensureTopics() {
      return (ensured ??= create().catch((err: unknown) => {
        ensured = undefined;
        throw err;
      }));
    },
    async check() {
      await connect();
      await admin.fetchTopicMetadata({ topics: names });
    },
    async close() {
      if (connected) await admin.disconnect();
      connected = undefined;
    },
  };
}
