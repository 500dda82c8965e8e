import { isoTime } from './clock.js';
import type { ContextStore } from './context.js';
import { LOG_LEVELS, type LogLevel } from './options.js';
import { cleanFields, errorFields, truncate } from './sanitize.js';
import { safeString } from './spans.js';

export type LogFields = Record<string, unknown>;

export interface LogApi {
  trace(message: unknown, fields?: LogFields): void;
  debug(message: unknown, fields?: LogFields): void;
  info(message: unknown, fields?: LogFields): void;
  warn(message: unknown, fields?: LogFields): void;
  error(message: unknown, fields?: LogFields): void;
  /** Sent at once in its own request, not buffered; resolves when it is delivered or kept for a retry. Never rejects. */
  fatal(message: unknown, fields?: LogFields): Promise<void>;
  /** Any level; `timestamp` is when the event happened if it was not now (used by the winston transport). */
  write(level: LogLevel, message: unknown, fields?: LogFields, options?: { timestamp?: string | number | Date }): Promise<void>;
}

/** Keys the library sets; an application field of that name is kept as `_<name>`. */
export const RESERVED = new Set(['traceId', 'spanId', 'level', 'type', 'message', 'timestamp', 'clientTimestamp', 'id', 'projectId', 'applicationId']);

function isoOf(value: string | number | Date | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return undefined;
  const d = new Date(ms);
  return d.getUTCFullYear() >= 0 && d.getUTCFullYear() <= 9999 ? d.toISOString() : undefined;
}

function messageText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return safeString(message.message) || safeString(message.name);
  if (message !== null && typeof message === 'object') {
    try {
      return JSON.stringify(cleanFields(message, false));
    } catch {
      // below
    }
  }
  return safeString(message);
}

/** One log entry, serialised: the application's fields first, then the reserved keys, which always win. */
export function buildLogEntry(
  level: LogLevel,
  message: unknown,
  fields: LogFields | undefined,
  trace: { traceId: string; spanId: string } | undefined,
  captureErrorStack: boolean,
  timestamp?: string | number | Date,
): string {
  const now = isoTime(Date.now());
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(cleanFields(fields, captureErrorStack))) entry[RESERVED.has(key) ? `_${key}` : key] = value;
  if (message instanceof Error && !('error' in entry)) entry.error = errorFields(message, captureErrorStack);
  if (trace) {
    entry.traceId = trace.traceId;
    entry.spanId = trace.spanId;
  }
  entry.level = level;
  entry.type = 'app';
  entry.message = truncate(messageText(message));
  entry.timestamp = isoOf(timestamp) ?? now;
  entry.clientTimestamp = now;
  return JSON.stringify(entry);
}

export function createLogApi(deps: {
  context: ContextStore;
  minLevel: LogLevel;
  captureErrorStack: boolean;
  /** False once the client is disabled or closed: the entry is not built. */
  accepting: () => boolean;
  record: (json: string) => void;
  sendNow: (json: string) => Promise<void>;
  onSerializeError: (error: unknown) => void;
}): LogApi {
  const min = LOG_LEVELS.indexOf(deps.minLevel);
  const write: LogApi['write'] = (requested, message, fields, options) => {
    try {
      const level: LogLevel = LOG_LEVELS.includes(requested) ? requested : 'info';
      if (LOG_LEVELS.indexOf(level) < min || !deps.accepting()) return Promise.resolve();
      const ctx = deps.context.current();
      const json = buildLogEntry(level, message, fields, ctx, deps.captureErrorStack, options?.timestamp);
      if (level === 'fatal') return deps.sendNow(json);
      deps.record(json);
    } catch (error) {
      deps.onSerializeError(error);
    }
    return Promise.resolve();
  };
  return {
    trace: (message, fields) => void write('trace', message, fields),
    debug: (message, fields) => void write('debug', message, fields),
    info: (message, fields) => void write('info', message, fields),
    warn: (message, fields) => void write('warn', message, fields),
    error: (message, fields) => void write('error', message, fields),
    fatal: (message, fields) => write('fatal', message, fields),
    write,
  };
}
