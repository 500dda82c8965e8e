import { logLevel, type LogEntry, type logCreator } from 'kafkajs';
import type { BusLogger } from './options.js';

/** Warnings kafkajs gives about settings this adapter chose on purpose (see publisher.ts). */
const EXPECTED = ['Limiting retries for the idempotent producer may invalidate EoS guarantees'];
// kafkajs's own fields kept in a log line; the rest (stacks, request payloads) is noise in a service log.
const KEPT = ['broker', 'clientId', 'groupId', 'memberId', 'topic', 'partition', 'error', 'retryCount', 'retryTime', 'type'];

export interface KafkaLogRouting {
  logLevel: logLevel;
  logCreator: logCreator;
}

/**
 * Routes kafkajs's warnings and errors to the bus logger, at most one line per distinct message per window:
 * while a broker is down every connection attempt of every client logs the same refusal, and a service log
 * should say so once, with how many repeats were held back, not thousands of times. Without a logger, silence.
 */
export function kafkaLogRouting(logger: BusLogger | undefined, { windowMs = 30_000, now = Date.now } = {}): KafkaLogRouting {
  if (!logger) return { logLevel: logLevel.NOTHING, logCreator: () => () => undefined };
  const recent = new Map<string, { until: number; suppressed: number }>();

  const write = ({ namespace, level, log }: LogEntry): void => {
    if (EXPECTED.includes(log.message)) return;
    const key = `${level}|${namespace}|${log.message}`;
    const t = now();
    const seen = recent.get(key);
    if (seen && t < seen.until) {
      seen.suppressed++;
      return;
    }
    if (recent.size > 200) for (const [k, v] of recent) if (v.until <= t) recent.delete(k);
    recent.set(key, { until: t + windowMs, suppressed: 0 });
    const meta: Record<string, unknown> = { component: `kafkajs.${namespace}` };
    for (const field of KEPT) if (log[field] !== undefined) meta[field] = log[field];
    if (seen && seen.suppressed > 0) meta.repeatedSinceLastLine = seen.suppressed;
    // A connection's own error line is reported again by whoever made the request (a retry, a crash, a
    // rejected publish), so it is a warning here; only the clients' verdicts are errors.
    if (level === logLevel.ERROR && namespace !== 'Connection') logger.error(`kafka: ${log.message}`, meta);
    else logger.warn(`kafka: ${log.message}`, meta);
  };
  return { logLevel: logLevel.WARN, logCreator: () => write };
}
