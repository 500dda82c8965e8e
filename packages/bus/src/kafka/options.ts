import type { Topic } from '../port.js';

/** Where the adapter reports what kafkajs warns about; a service passes its own logger (winston fits). */
export interface BusLogger {
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export interface KafkaBusOptions {
  /** `host:port` of one or more brokers (bootstrap servers). */
  brokers: string[];
  /** Names this process to the brokers (request logs, quotas). */
  clientId: string;
  /** Prefix of the topic names and consumer group ids; tests give each bus its own. Default `lantern.`. */
  topicPrefix?: string;
  /** Partitions of each topic the bus creates (existing topics are left as they are). Default 6. */
  partitions?: number;
  /** Replicas of each topic the bus creates; -1 (default) takes the cluster's `default.replication.factor`. */
  replicationFactor?: number;
  /** kafkajs warnings and errors go here (repeats collapsed); without a logger they are dropped. */
  logger?: BusLogger;
  /** A publish that has no acknowledgement by then rejects as unavailable. Default 5000 ms. */
  publishTimeoutMs?: number;
  /** `ping` gives up after this long. Default 2500 ms. */
  pingTimeoutMs?: number;
  /** A consumer silent this long is considered dead and its partitions are reassigned. Default 10000 ms. */
  sessionTimeoutMs?: number;
  /** `subscribe` rejects as unavailable when the consumer cannot join its group by then. Default 30000 ms. */
  joinTimeoutMs?: number;
  /** Delay before a failed handler call is repeated: doubles from `initialMs` up to `maxMs`. Default 200..5000. */
  redeliveryBackoff?: { initialMs: number; maxMs: number };
  /** `max.message.bytes` of the topics the bus creates. Default 32 MiB. */
  maxMessageBytes?: number;
}

export type ResolvedOptions = Required<Omit<KafkaBusOptions, 'logger'>> & Pick<KafkaBusOptions, 'logger'>;

// Ingest accepts up to 5 MiB of JSON per request (limits.maxIngestBytes) and the message it publishes adds ids to
// every item; the topic limit leaves room for that even when gzip cannot shrink the batch (random strings).
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export function resolveOptions(options: KafkaBusOptions): ResolvedOptions {
  if (!Array.isArray(options.brokers) || options.brokers.length === 0 || options.brokers.some((b) => !/^[^\s:]+:\d+$/.test(b))) {
    throw new Error(`Kafka brokers must be a non-empty list of host:port (got ${JSON.stringify(options.brokers)})`);
  }
  const resolved: ResolvedOptions = {
    brokers: options.brokers,
    clientId: options.clientId,
    topicPrefix: options.topicPrefix ?? 'lantern.',
    partitions: options.partitions ?? 6,
    replicationFactor: options.replicationFactor ?? -1,
    logger: options.logger,
    publishTimeoutMs: options.publishTimeoutMs ?? 5_000,
    pingTimeoutMs: options.pingTimeoutMs ?? 2_500,
    sessionTimeoutMs: options.sessionTimeoutMs ?? 10_000,
    joinTimeoutMs: options.joinTimeoutMs ?? 30_000,
    redeliveryBackoff: options.redeliveryBackoff ?? { initialMs: 200, maxMs: 5_000 },
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  };
  if (!Number.isInteger(resolved.partitions) || resolved.partitions < 1) throw new Error('Kafka partitions must be a positive integer');
  return resolved;
}

export const TOPICS: readonly Topic[] = ['spans', 'logs', 'documents'];

export function topicName(options: Pick<ResolvedOptions, 'topicPrefix'>, topic: Topic): string {
  if (!TOPICS.includes(topic)) throw new Error(`Unknown bus topic "${String(topic)}"`);
  return `${options.topicPrefix}${topic}`;
}

/**
 * One Kafka consumer group per (group, topic). kafkajs's group leader assigns partitions of the topics *it*
 * subscribed to, so members of one group subscribed to different topics (the writer's spans and logs
 * consumers) would be handed each other's partitions and drop them: a group id per topic keeps them apart.
 */
export function groupId(options: Pick<ResolvedOptions, 'topicPrefix'>, group: string, topic: Topic): string {
  return `${options.topicPrefix}${group}.${topic}`;
}
