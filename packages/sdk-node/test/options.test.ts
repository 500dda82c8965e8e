import { afterEach, describe, expect, it } from '@jest/globals';
import { createLantern, type LanternOptions } from '@lantern/sdk-node';
import { envName, resolveOptions } from '../src/options.js';

/** Options: defaults, LANTERN_* variables, and a clear TypeError naming the option at creation. */

const base = { apiKey: 'key', ingestUrl: 'http://127.0.0.1:9' };
const saved = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith('LANTERN_') && !(k in saved)) delete process.env[k];
});

describe('defaults', () => {
  it('are those of the issue and the seed', () => {
    const o = resolveOptions(base, {});
    expect(o).toMatchObject({
      flushIntervalMs: 30_000,
      maxBatchSize: 500,
      maxQueueSize: 10_000,
      gzipThresholdBytes: 1024,
      closeTimeoutMs: 10_000,
      enabled: true,
      flushOnExit: true,
      logLevel: 'info',
      captureErrorStack: false,
      spoolDir: undefined,
      spoolMaxBytes: 100 * 1024 * 1024,
    });
    expect(o.ingestUrl.href).toBe('http://127.0.0.1:9/');
  });

  it('names environment variables after the options', () => {
    expect(envName('flushIntervalMs')).toBe('LANTERN_FLUSH_INTERVAL_MS');
    expect(envName('apiKey')).toBe('LANTERN_API_KEY');
  });
});

describe('environment', () => {
  it('LANTERN_* variables fill what is not passed; passed options win', () => {
    const env = { LANTERN_API_KEY: 'from-env', LANTERN_INGEST_URL: 'https://ingest.example.com/base/', LANTERN_FLUSH_INTERVAL_MS: '5000', LANTERN_MAX_BATCH_SIZE: '100', LANTERN_ENABLED: 'yes', LANTERN_LOG_LEVEL: 'debug' };
    const o = resolveOptions({ maxBatchSize: 50 }, env);
    expect(o).toMatchObject({ apiKey: 'from-env', flushIntervalMs: 5000, maxBatchSize: 50, enabled: true, logLevel: 'debug' });
    expect(o.ingestUrl.href).toBe('https://ingest.example.com/base');
  });

  it('createLantern() reads process.env', async () => {
    process.env.LANTERN_API_KEY = 'env-key';
    process.env.LANTERN_INGEST_URL = 'http://127.0.0.1:9';
    const l = createLantern({ flushOnExit: false });
    expect(l.stats().logs.queued).toBe(0);
    await l.close({ timeoutMs: 10 });
  });

  it('a bad variable is a TypeError naming the option and the variable', () => {
    expect(() => resolveOptions(base, { LANTERN_FLUSH_INTERVAL_MS: 'soon' })).toThrow(TypeError);
    expect(() => resolveOptions(base, { LANTERN_FLUSH_INTERVAL_MS: 'soon' })).toThrow('option "flushIntervalMs" must be an integer from 1 to 2147483647 (got "soon" from LANTERN_FLUSH_INTERVAL_MS)');
    expect(() => resolveOptions(base, { LANTERN_ENABLED: 'maybe' })).toThrow(/option "enabled" must be a boolean/);
  });
});

describe('invalid options: a clear TypeError at creation', () => {
  const cases: Array<[string, LanternOptions, RegExp]> = [
    ['no apiKey', { ingestUrl: 'http://x' }, /option "apiKey" must be a non-empty string \(pass it or set LANTERN_API_KEY\)/],
    ['apiKey with a newline', { ...base, apiKey: 'abc\ndef' }, /option "apiKey" must be a non-empty string of visible ASCII characters \(got \(hidden\)\)/],
    ['no ingestUrl', { apiKey: 'k' }, /option "ingestUrl" must be an http\(s\) URL/],
    ['ingestUrl not a URL', { ...base, ingestUrl: 'not a url' }, /option "ingestUrl"/],
    ['ingestUrl ftp', { ...base, ingestUrl: 'ftp://x' }, /option "ingestUrl" must be an http: or https: URL/],
    ['ingestUrl with a query', { ...base, ingestUrl: 'http://x/?a=1' }, /option "ingestUrl" must be a base URL without query string/],
    ['flushIntervalMs 0', { ...base, flushIntervalMs: 0 }, /option "flushIntervalMs" must be an integer from 1/],
    ['flushIntervalMs as text', { ...base, flushIntervalMs: '100' as unknown as number }, /option "flushIntervalMs"/],
    ['maxBatchSize above the service limit', { ...base, maxBatchSize: 10_001 }, /option "maxBatchSize" must be an integer from 1 to 10000/],
    ['maxQueueSize below maxBatchSize', { ...base, maxQueueSize: 10 }, /option "maxQueueSize" \(10\) must be at least "maxBatchSize" \(500\)/],
    ['retryMaxMs below retryBaseMs', { ...base, retryBaseMs: 1000, retryMaxMs: 10 }, /option "retryMaxMs"/],
    ['logLevel unknown', { ...base, logLevel: 'loud' as never }, /option "logLevel" must be one of trace, debug, info, warn, error, fatal/],
    ['onError not a function', { ...base, onError: 'console' as never }, /option "onError" must be a function/],
    ['a misspelt option', { ...base, flushInterval: 10 } as LanternOptions, /unknown option "flushInterval"/],
  ];
  it.each(cases)('%s', (_name, options, message) => {
    expect(() => createLantern({ flushOnExit: false, ...options })).toThrow(TypeError);
    expect(() => createLantern({ flushOnExit: false, ...options })).toThrow(message);
  });

  it('never shows the API key in an error', () => {
    try {
      resolveOptions({ ...base, apiKey: 'secret key with spaces' }, {});
      throw new Error('expected a TypeError');
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });
});

describe('maxConcurrentBatches', () => {
  it('defaults to 4, comes from LANTERN_MAX_CONCURRENT_BATCHES, and is an integer from 1 to 64', () => {
    expect(resolveOptions(base, {}).maxConcurrentBatches).toBe(4);
    expect(envName('maxConcurrentBatches')).toBe('LANTERN_MAX_CONCURRENT_BATCHES');
    expect(resolveOptions(base, { LANTERN_MAX_CONCURRENT_BATCHES: '8' }).maxConcurrentBatches).toBe(8);
    expect(resolveOptions({ ...base, maxConcurrentBatches: 1 }, { LANTERN_MAX_CONCURRENT_BATCHES: '8' }).maxConcurrentBatches).toBe(1);
    expect(() => resolveOptions({ ...base, maxConcurrentBatches: 0 }, {})).toThrow('option "maxConcurrentBatches" must be an integer from 1 to 64 (got 0)');
    expect(() => resolveOptions({ ...base, maxConcurrentBatches: 2.5 }, {})).toThrow(/option "maxConcurrentBatches" must be an integer/);
    expect(() => resolveOptions(base, { LANTERN_MAX_CONCURRENT_BATCHES: '65' })).toThrow('option "maxConcurrentBatches" must be an integer from 1 to 64 (got "65" from LANTERN_MAX_CONCURRENT_BATCHES)');
    expect(() => createLantern({ ...base, flushOnExit: false, maxConcurrentBatches: '4' as unknown as number })).toThrow(TypeError);
  });
});

describe('enabled: false', () => {
  it('needs no key or URL; helpers and context work; nothing is recorded', async () => {
    const l = createLantern({ enabled: false });
    const out = l.service('s', (span) => {
      l.log.error('not sent');
      return l.call('x', (headers) => headers.traceparent.startsWith('00-') && l.currentTrace()?.spanId !== span.spanId);
    });
    expect(out).toBe(true);
    await l.log.fatal('not sent either');
    expect(l.stats().logs).toMatchObject({ queued: 0, sent: 0, dropped: 0 });
    expect(l.stats().traces.queued).toBe(0);
    await expect(l.close()).resolves.toBeDefined();
  });
});

describe('log level', () => {
  it('logLevel filters lower levels; unknown levels from JavaScript callers count as info', async () => {
    const l = createLantern({ ...base, logLevel: 'warn', flushOnExit: false, onError: () => undefined });
    l.log.debug('no');
    l.log.info('no');
    l.log.warn('yes');
    l.log.error('yes');
    void l.log.write('loud' as never, 'no: info');
    expect(l.stats().logs.queued).toBe(2);
    await l.close({ timeoutMs: 10 });
  });
});
