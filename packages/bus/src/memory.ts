import { errors } from '@lantern/domain';
import type { Bus, BusMessage, Handler, Subscription, Topic } from './port.js';

/**
 * The embedded bus: `publish` hands the values straight to one subscriber of every consumer group and
 * resolves only when each handler has finished (stored them), so a 200 after publish means durable. A handler
 * that throws makes the publish reject: nothing is acknowledged that was not stored. Without a subscriber
 * there is nobody to store the values, so the publish rejects as unavailable rather than losing them.
 */
export function createMemoryBus(): Bus {
  const topics = new Map<Topic, Map<string, { handlers: Handler[]; next: number }>>();
  const inFlight = new Set<Promise<void>>();
  let closed = false;

  async function deliver<T>(topic: Topic, values: T[]): Promise<void> {
    const groups = topics.get(topic);
    if (!groups || groups.size === 0) throw errors.unavailable('message bus (no consumer is running)');
    await Promise.all(
      [...groups.values()].map((group) => {
        const handler = group.handlers[group.next++ % group.handlers.length] as Handler<T>;
        return handler(values);
      }),
    );
  }

  return {
    async publish<T>(topic: Topic, messages: BusMessage<T>[]) {
      if (closed) throw errors.unavailable('message bus (shutting down)');
      if (messages.length === 0) return;
      const p = deliver(topic, messages.map((m) => m.value));
      inFlight.add(p);
      try {
        await p;
      } finally {
        inFlight.delete(p);
      }
    },
    async subscribe<T>(topic: Topic, group: string, handler: Handler<T>): Promise<Subscription> {
      if (closed) throw new Error('The bus is closed');
      let groups = topics.get(topic);
      if (!groups) topics.set(topic, (groups = new Map()));
      let g = groups.get(group);
      if (!g) groups.set(group, (g = { handlers: [], next: 0 }));
      g.handlers.push(handler as Handler);
      const entry = g;
      return {
        async stop() {
          await Promise.allSettled([...inFlight]);
          entry.handlers = entry.handlers.filter((h) => h !== handler);
          if (entry.handlers.length === 0) groups!.delete(group);
        },
      };
    },
    async ping() {
      if (closed) throw errors.unavailable('message bus');
    },
    async close() {
      closed = true;
      await Promise.allSettled([...inFlight]);
      topics.clear();
    },
  };
}
