/**
 * The bus port: ingest publishes span and log batches, the writer consumes them.
 * `publish` resolves only once the messages are durable: on a Kafka broker with acks from all replicas, or,
 * in the embedded bus, once the consumer's handler has stored them. A message is delivered at least once to
 * each consumer group; a handler that throws gets it again (or, in the embedded bus, the publish rejects),
 * so consumers must be idempotent.
 */
/** Span and log batches (ingest → writer), and document events (ai → whoever indexes documents). */
export type Topic = 'spans' | 'logs' | 'documents';

export interface BusMessage<T = unknown> {
  /** Partitioning key: messages with the same key are delivered in publish order. */
  key: string;
  value: T;
}

export type Handler<T = unknown> = (values: T[]) => Promise<void>;

export interface Subscription {
  /** Stops consuming after the in-flight handler call finishes. */
  stop(): Promise<void>;
}

export interface Bus {
  publish<T>(topic: Topic, messages: BusMessage<T>[]): Promise<void>;
  subscribe<T>(topic: Topic, group: string, handler: Handler<T>): Promise<Subscription>;
  /** Throws if the bus cannot take messages (for /readyz). */
  ping(): Promise<void>;
  /** Drains: waits for in-flight deliveries, then closes. */
  close(): Promise<void>;
}
