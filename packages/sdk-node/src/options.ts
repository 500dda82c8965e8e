import type { DropInfo, LanternError } from './report.js';

/** Log levels, least to most severe (the ingest service accepts exactly these). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What `createLantern()` accepts. Every option may also come from a `LANTERN_*` environment variable. */
export interface LanternOptions {
  /** Application API key (`LANTERN_API_KEY`). Required unless `enabled` is false. */
  apiKey?: string;
  /** Base address of the ingest service, e.g. `https://ingest.example.com` (`LANTERN_INGEST_URL`). */
  ingestUrl?: string;
  /** false: context and helpers work, nothing is recorded or sent (`LANTERN_ENABLED`). Default true. */
  enabled?: boolean;
  /** Flush period of both buffers. Default 30000. */
  flushIntervalMs?: number;
  /** Most items in one request; a buffer holding this many is flushed at once. Default 500 (max 10000). */
  maxBatchSize?: number;
  /** Largest JSON body of one request before compression. Default 4 MiB (the service takes 5 MiB). */
  maxBatchBytes?: number;
  /** Most items kept in memory per kind (spans, logs), batches in flight included. Default 10000. */
  maxQueueSize?: number;
  /**
   * Most batches of one kind in flight at once when a backlog exists (a fatal log's own request aside). One after
   * a failed attempt, one more per answered batch up to this. Default 4 (max 64).
   */
  maxConcurrentBatches?: number;
  /** Bodies larger than this many bytes are sent gzip-compressed. Default 1024; 0 compresses every body. */
  gzipThresholdBytes?: number;
  /** One request's time limit. Default 10000. */
  requestTimeoutMs?: number;
  /** First retry delay bound (full jitter: the delay is random in [0, base x 2^(n-1)]). Default 500. */
  retryBaseMs?: number;
  /** Upper bound of the backoff delay. Default 30000. */
  retryMaxMs?: number;
  /** Upper bound of a server's `Retry-After`. Default 300000. */
  retryAfterMaxMs?: number;
  /** Directory where batches that cannot be sent are kept and sent later (also after a restart). */
  spoolDir?: string;
  /** Disk quota of `spoolDir`. Default 100 MiB. */
  spoolMaxBytes?: number;
  /** Default deadline of `close()` and of the drain when the process is about to exit. Default 10000. */
  closeTimeoutMs?: number;
  /** Drain the buffers on the process's `beforeExit`, spool or report what is left on `exit`. Default true. */
  flushOnExit?: boolean;
  /** Lowest level that `lantern.log` records. Default `info`. */
  logLevel?: LogLevel;
  /** Add the stack of a recorded error to spans and logs (`stack`). Default false. */
  captureErrorStack?: boolean;
  /** Problems of the library itself (delivery, spool, hooks). Default: one console.warn line at most every 30 s. */
  onError?: (error: LanternError) => void;
  /** Items that were not kept. Default: reported through `onError`. */
  onDrop?: (drop: DropInfo) => void;
}

export interface ResolvedOptions {
  apiKey: string;
  ingestUrl: URL;
  enabled: boolean;
  flushIntervalMs: number;
  maxBatchSize: number;
  maxBatchBytes: number;
  maxQueueSize: number;
  maxConcurrentBatches: number;
  gzipThresholdBytes: number;
  requestTimeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryAfterMaxMs: number;
  spoolDir: string | undefined;
  spoolMaxBytes: number;
  closeTimeoutMs: number;
  flushOnExit: boolean;
  logLevel: LogLevel;
  captureErrorStack: boolean;
  onError: ((error: LanternError) => void) | undefined;
  onDrop: ((drop: DropInfo) => void) | undefined;
}

const MiB = 1024 * 1024;
type IntRule = { default: number; min: number; max: number };
const INTEGERS = {
  flushIntervalMs: { default: 30_000, min: 1, max: 2_147_483_647 },
  maxBatchSize: { default: 500, min: 1, max: 10_000 },
  maxBatchBytes: { default: 4 * MiB, min: 1024, max: 5 * MiB },
  maxQueueSize: { default: 10_000, min: 1, max: 10_000_000 },
  maxConcurrentBatches: { default: 4, min: 1, max: 64 },
  gzipThresholdBytes: { default: 1024, min: 0, max: Number.MAX_SAFE_INTEGER },
  requestTimeoutMs: { default: 10_000, min: 1, max: 2_147_483_647 },
  retryBaseMs: { default: 500, min: 1, max: 2_147_483_647 },
  retryMaxMs: { default: 30_000, min: 1, max: 2_147_483_647 },
  retryAfterMaxMs: { default: 300_000, min: 0, max: 2_147_483_647 },
  spoolMaxBytes: { default: 100 * MiB, min: 1024, max: Number.MAX_SAFE_INTEGER },
  closeTimeoutMs: { default: 10_000, min: 0, max: 2_147_483_647 },
} satisfies Record<string, IntRule>;
const BOOLEANS = { enabled: true, flushOnExit: true, captureErrorStack: false };
const STRINGS = ['apiKey', 'ingestUrl', 'spoolDir', 'logLevel'] as const;
const FUNCTIONS = ['onError', 'onDrop'] as const;
const KNOWN = new Set<string>([...Object.keys(INTEGERS), ...Object.keys(BOOLEANS), ...STRINGS, ...FUNCTIONS]);

/** `flushIntervalMs` -> `LANTERN_FLUSH_INTERVAL_MS`. */
export const envName = (option: string) => `LANTERN_${option.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

function fail(option: string, expected: string, got: unknown, fromEnv: boolean): never {
  const shown = option === 'apiKey' ? '(hidden)' : JSON.stringify(got) ?? String(got);
  const source = fromEnv ? ` from ${envName(option)}` : '';
  throw new TypeError(`@lantern/sdk-node: option "${option}" must be ${expected} (got ${shown}${source})`);
}

/** The option's value: given explicitly, else from the environment (a string), else undefined. */
function pick(options: LanternOptions, env: NodeJS.ProcessEnv, name: string): { value: unknown; fromEnv: boolean } {
  const given = (options as Record<string, unknown>)[name];
  if (given !== undefined) return { value: given, fromEnv: false };
  const raw = env[envName(name)];
  return raw === undefined || raw.trim() === '' ? { value: undefined, fromEnv: false } : { value: raw.trim(), fromEnv: true };
}

function integer(options: LanternOptions, env: NodeJS.ProcessEnv, name: keyof typeof INTEGERS): number {
  const rule: IntRule = INTEGERS[name];
  const { value, fromEnv } = pick(options, env, name);
  if (value === undefined) return rule.default;
  const n = fromEnv && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < rule.min || n > rule.max) {
    fail(name, `an integer from ${rule.min} to ${rule.max}`, value, fromEnv);
  }
  return n;
}

function boolean(options: LanternOptions, env: NodeJS.ProcessEnv, name: keyof typeof BOOLEANS): boolean {
  const { value, fromEnv } = pick(options, env, name);
  if (value === undefined) return BOOLEANS[name];
  if (typeof value === 'boolean') return value;
  if (fromEnv && typeof value === 'string' && /^(true|1|yes|on)$/i.test(value)) return true;
  if (fromEnv && typeof value === 'string' && /^(false|0|no|off)$/i.test(value)) return false;
  return fail(name, 'a boolean (true/false)', value, fromEnv);
}

function ingestUrl(value: unknown, fromEnv: boolean): URL {
  if (typeof value !== 'string') return fail('ingestUrl', 'an http(s) URL such as "https://ingest.example.com"', value, fromEnv);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('ingestUrl', 'an http(s) URL such as "https://ingest.example.com"', value, fromEnv);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('ingestUrl', 'an http: or https: URL', value, fromEnv);
  if (url.search || url.hash) fail('ingestUrl', 'a base URL without query string or fragment', value, fromEnv);
  url.pathname = withoutTrailingSlashes(url.pathname);
  return url;
}

/** A loop, not /\/+$/: that pattern moves over a run of slashes in quadratic time. */
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return path.slice(0, end);
}

/** Defaults, environment and validation: every problem is a TypeError naming the option, thrown at creation. */
export function resolveOptions(options: LanternOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('@lantern/sdk-node: createLantern() takes an options object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new TypeError(`@lantern/sdk-node: unknown option "${key}"`);
  }
  for (const name of FUNCTIONS) {
    const fn = (options as Record<string, unknown>)[name];
    if (fn !== undefined && typeof fn !== 'function') fail(name, 'a function', typeof fn, false);
  }
  const enabled = boolean(options, env, 'enabled');
  const key = pick(options, env, 'apiKey');
  const url = pick(options, env, 'ingestUrl');
  if (enabled && key.value === undefined) fail('apiKey', `a non-empty string (pass it or set ${envName('apiKey')})`, undefined, false);
  if (key.value !== undefined && (typeof key.value !== 'string' || !/^[\x21-\x7e]{1,1024}$/.test(key.value))) {
    fail('apiKey', 'a non-empty string of visible ASCII characters', key.value, key.fromEnv);
  }
  if (enabled && url.value === undefined) fail('ingestUrl', `an http(s) URL (pass it or set ${envName('ingestUrl')})`, undefined, false);
  const spool = pick(options, env, 'spoolDir');
  if (spool.value !== undefined && (typeof spool.value !== 'string' || spool.value === '')) fail('spoolDir', 'a directory path', spool.value, spool.fromEnv);
  const level = pick(options, env, 'logLevel');
  if (level.value !== undefined && !LOG_LEVELS.includes(level.value as LogLevel)) fail('logLevel', `one of ${LOG_LEVELS.join(', ')}`, level.value, level.fromEnv);

  const resolved: ResolvedOptions = {
    apiKey: (key.value as string | undefined) ?? '',
    ingestUrl: url.value === undefined ? new URL('http://127.0.0.1') : ingestUrl(url.value, url.fromEnv),
    enabled,
    flushIntervalMs: integer(options, env, 'flushIntervalMs'),
    maxBatchSize: integer(options, env, 'maxBatchSize'),
    maxBatchBytes: integer(options, env, 'maxBatchBytes'),
    maxQueueSize: integer(options, env, 'maxQueueSize'),
    maxConcurrentBatches: integer(options, env, 'maxConcurrentBatches'),
    gzipThresholdBytes: integer(options, env, 'gzipThresholdBytes'),
    requestTimeoutMs: integer(options, env, 'requestTimeoutMs'),
    retryBaseMs: integer(options, env, 'retryBaseMs'),
    retryMaxMs: integer(options, env, 'retryMaxMs'),
    retryAfterMaxMs: integer(options, env, 'retryAfterMaxMs'),
    spoolDir: spool.value as string | undefined,
    spoolMaxBytes: integer(options, env, 'spoolMaxBytes'),
    closeTimeoutMs: integer(options, env, 'closeTimeoutMs'),
    flushOnExit: boolean(options, env, 'flushOnExit'),
    logLevel: (level.value as LogLevel | undefined) ?? 'info',
    captureErrorStack: boolean(options, env, 'captureErrorStack'),
    onError: options.onError,
    onDrop: options.onDrop,
  };
  if (resolved.maxQueueSize < resolved.maxBatchSize) {
    throw new TypeError(`@lantern/sdk-node: option "maxQueueSize" (${resolved.maxQueueSize}) must be at least "maxBatchSize" (${resolved.maxBatchSize})`);
  }
  if (resolved.retryMaxMs < resolved.retryBaseMs) {
    throw new TypeError(`@lantern/sdk-node: option "retryMaxMs" (${resolved.retryMaxMs}) must be at least "retryBaseMs" (${resolved.retryBaseMs})`);
  }
  return resolved;
}
