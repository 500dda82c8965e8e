import { describe, expect, it } from '@jest/globals';
import { FaultServer } from './helpers/fault-server.js';
import { useFaultServer } from './helpers/clients.js';
import { waitFor } from './helpers/wait.js';

/** Delivery against a scripted ingest server: batching, retries, keys, fatal, close(), gzip. */

const fx = useFaultServer();
const client = fx.client;

const messages = (s: FaultServer) => s.items('logs').map((l) => l.message as string);
const countBy = (values: string[]) => values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>());

describe('batches', () => {
  it('flushes every flushIntervalMs with the ingest envelope, headers and a key per batch', async () => {
    const { lantern } = client({ flushIntervalMs: 50 });
    lantern.service('loadCart', () => 1);
    lantern.log.error('payment failed', { orderId: 7 });
    await waitFor(() => fx.server.items('traces').length === 1 && fx.server.items('logs').length === 1, 'the interval flush');
    for (const r of fx.server.received) {
      expect(r.headers['x-api-key']).toBe('test-api-key');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.key).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const [span] = fx.server.items('traces');
    expect(span).toMatchObject({ requestMethod: 'service:loadCart', responseStatus: 200, parentSpanId: null, requestURL: '' });
    const [log] = fx.server.items('logs');
    expect(log).toMatchObject({ level: 'error', type: 'app', message: 'payment failed', orderId: 7 });
    expect(log).not.toHaveProperty('traceId');
    expect(new Set(fx.server.received.map((r) => r.key)).size).toBe(2);
  });

  it('sends a full batch at once, maxBatchSize items per request, and the rest at the next flush', async () => {
    const { lantern } = client({ maxBatchSize: 5 });
    for (let i = 0; i < 12; i++) lantern.log.info(`m${i}`);
    await waitFor(() => fx.server.items('logs').length === 10, 'two full batches');
    expect(fx.server.requests('logs').map((r) => r.body.logs!.length)).toEqual([5, 5]);
    expect(lantern.stats().logs).toMatchObject({ queued: 2, sent: 10 });
    await lantern.flush();
    expect(fx.server.requests('logs').map((r) => r.body.logs!.length)).toEqual([5, 5, 2]);
    expect(messages(fx.server)).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`));
  });
});

describe('retries', () => {
  it('server down for a while, then back: every span and log arrives exactly once', async () => {
    const { lantern, errors } = client({ maxBatchSize: 20 });
    await fx.server.down();
    for (let i = 0; i < 50; i++) {
      lantern.service(`s${i}`, () => undefined);
      lantern.log.error(`e${i}`);
    }
    await lantern.flush();
    await waitFor(() => lantern.stats().traces.retried >= 3 && lantern.stats().logs.retried >= 3, 'failed attempts');
    expect(errors.some((e) => e.code === 'network' && e.retrying)).toBe(true);
    expect(lantern.stats().logs.queued + lantern.stats().logs.inFlight).toBe(50);
    await fx.server.up();
    await waitFor(() => lantern.stats().traces.sent === 50 && lantern.stats().logs.sent === 50, 'delivery after the outage');
    const spans = countBy(fx.server.items('traces').map((s) => s.spanId as string));
    expect(spans.size).toBe(50);
    expect([...spans.values()].every((n) => n === 1)).toBe(true);
    const logs = countBy(messages(fx.server));
    expect(logs.size).toBe(50);
    expect([...logs.values()].every((n) => n === 1)).toBe(true);
  });

  it('500, 503 and 429 with Retry-After, then 200: the same request again, after the Retry-After delay', async () => {
    fx.server.script.push({ do: 'status', status: 500 }, { do: 'status', status: 503 }, { do: 'status', status: 429, headers: { 'retry-after': '1' } });
    const { lantern, errors } = client();
    for (let i = 0; i < 3; i++) lantern.log.warn(`w${i}`);
    await lantern.flush();
    await waitFor(() => lantern.stats().logs.sent === 3, 'delivery after the errors');
    const attempts = fx.server.requests('logs');
    expect(attempts.map((r) => r.behaviour)).toEqual(['status', 'status', 'status', 'ok']);
    expect(new Set(attempts.map((r) => r.key)).size).toBe(1);
    expect(new Set(attempts.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(attempts[3]!.at - attempts[2]!.at).toBeGreaterThanOrEqual(950);
    expect(errors.filter((e) => e.code === 'http_status').map((e) => [e.status, e.retrying])).toEqual([[500, true], [503, true], [429, true]]);
    expect(lantern.stats().logs).toMatchObject({ retried: 3, sent: 3, failed: 0, queued: 0 });
    expect(messages(fx.server)).toEqual(['w0', 'w1', 'w2']);
  });

  it('a 400 is not retried: counted as failed and reported; the next batch goes through', async () => {
    fx.server.script.push({ do: 'status', status: 400, body: JSON.stringify({ error: { code: 'validation_failed', message: 'The batch is invalid' } }) });
    const { lantern, errors } = client();
    lantern.log.error('refused');
    await lantern.flush();
    lantern.log.error('accepted');
    await lantern.flush();
    expect(fx.server.requests('logs').map((r) => r.behaviour)).toEqual(['status', 'ok']);
    expect(lantern.stats().logs).toMatchObject({ failed: 1, sent: 1, retried: 0, queued: 0 });
    const reported = errors.find((e) => e.code === 'http_status')!;
    expect(reported).toMatchObject({ status: 400, retrying: false, count: 1, kind: 'logs' });
    expect(reported.message).toContain('validation_failed');
    expect(messages(fx.server)).toEqual(['accepted']);
  });

  it('408 is retried, 401/404/413 are not', async () => {
    fx.server.script.push({ do: 'status', status: 408 }, { do: 'status', status: 401 }, { do: 'status', status: 404 }, { do: 'status', status: 413 });
    const { lantern, errors } = client();
    for (const m of ['a', 'b', 'c']) {
      lantern.log.info(m);
      await lantern.flush();
    }
    await waitFor(() => lantern.stats().logs.failed === 3, 'three refusals');
    expect(fx.server.requests('logs').map((r) => r.behaviour)).toEqual(['status', 'status', 'status', 'status']);
    expect(errors.filter((e) => e.code === 'http_status').map((e) => [e.status, e.retrying])).toEqual([[408, true], [401, false], [404, false], [413, false]]);
    expect(errors.find((e) => e.status === 401)!.message).toContain('check apiKey');
    expect(errors.some((e) => e.message.includes('test-api-key'))).toBe(false);
  });

  it('a response lost after the server stored the batch: retried with the same Idempotency-Key, stored once', async () => {
    let lostOne = false;
    fx.server.decide = (r) => (r.path === '/ingest/logs' && !lostOne ? ((lostOne = true), { do: 'lose' }) : undefined);
    const { lantern } = client();
    for (let i = 0; i < 4; i++) lantern.log.error(`once${i}`);
    lantern.service('once', () => undefined);
    await lantern.flush();
    await waitFor(() => lantern.stats().logs.sent === 4 && lantern.stats().traces.sent === 1, 'delivery');
    const [lost, retry] = fx.server.received.filter((r) => r.body.logs?.[0]?.message === 'once0');
    expect(lost!.behaviour).toBe('lose');
    expect(retry!.behaviour).toBe('ok');
    expect(retry!.key).toBe(lost!.key);
    expect(messages(fx.server)).toEqual(['once0', 'once1', 'once2', 'once3']);
    expect(lantern.stats().logs.retried).toBe(1);
  });

  it('items the service refuses one by one are counted as rejected and reported, not retried', async () => {
    fx.server.script.push({ do: 'reject', indexes: [1] });
    const { lantern, errors } = client();
    for (let i = 0; i < 3; i++) lantern.log.error(`r${i}`);
    await lantern.flush();
    expect(lantern.stats().logs).toMatchObject({ sent: 2, rejected: 1, retried: 0 });
    expect(errors.find((e) => e.code === 'rejected_items')).toMatchObject({ count: 1, kind: 'logs' });
    expect(fx.server.requests('logs')).toHaveLength(1);
  });
});

describe('fatal', () => {
  it('a fatal log is sent at once in its own request, without waiting for the interval', async () => {
    const { lantern } = client();
    lantern.log.error('buffered');
    await lantern.log.fatal('disk full', { volume: '/data' });
    const [request] = fx.server.requests('logs');
    expect(request!.body.logs).toHaveLength(1);
    expect(request!.body.logs![0]).toMatchObject({ level: 'fatal', message: 'disk full', volume: '/data' });
    expect(lantern.stats().logs).toMatchObject({ queued: 1, sent: 1 });
  });

  it('a fatal log that cannot be sent is kept and arrives once when the server is back', async () => {
    const { lantern } = client();
    await fx.server.down();
    await lantern.log.fatal('while down');
    const kept = lantern.stats().logs;
    expect(kept.queued + kept.inFlight).toBe(1);
    expect(kept.retried).toBe(1);
    await fx.server.up();
    await waitFor(() => lantern.stats().logs.sent === 1, 'the fatal log');
    expect(messages(fx.server)).toEqual(['while down']);
  });
});

describe('close()', () => {
  it('drains everything left and resolves with the stats; a second call gives the same promise', async () => {
    const { lantern } = client({ maxBatchSize: 7 });
    for (let i = 0; i < 30; i++) {
      lantern.log.info(`c${i}`);
      lantern.service(`c${i}`, () => undefined);
    }
    const closing = lantern.close();
    expect(lantern.close()).toBe(closing);
    const stats = await closing;
    expect(stats.logs).toMatchObject({ sent: 30, queued: 0, inFlight: 0, dropped: 0 });
    expect(stats.traces).toMatchObject({ sent: 30, queued: 0 });
    expect(messages(fx.server)).toHaveLength(30);
  });

  it('retries within its deadline', async () => {
    fx.server.script.push({ do: 'status', status: 503 }, { do: 'status', status: 502 });
    const { lantern } = client();
    lantern.log.info('late');
    const stats = await lantern.close({ timeoutMs: 5_000 });
    expect(stats.logs).toMatchObject({ sent: 1, retried: 2 });
  });

  it('what cannot be sent by the deadline (no spool) is dropped and reported; later items are dropped as closed', async () => {
    await fx.server.down();
    const c = client();
    for (let i = 0; i < 5; i++) c.lantern.log.info(`x${i}`);
    const started = Date.now();
    const stats = await c.lantern.close({ timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(stats.logs).toMatchObject({ dropped: 5, queued: 0, inFlight: 0 });
    expect(c.dropped('logs', 'close_timeout')).toBe(5);
    c.lantern.log.info('after close');
    await new Promise((r) => setImmediate(r));
    expect(c.dropped('logs', 'closed')).toBe(1);
  });
});

describe('gzip', () => {
  it('compresses bodies above the threshold and only those', async () => {
    const { lantern } = client({ gzipThresholdBytes: 2_000 });
    lantern.log.info('small');
    await lantern.flush();
    for (let i = 0; i < 40; i++) lantern.log.info(`larger ${'x'.repeat(100)} ${i}`);
    await lantern.flush();
    const [small, large] = fx.server.requests('logs');
    expect(small!.headers['content-encoding']).toBeUndefined();
    expect(large!.headers['content-encoding']).toBe('gzip');
    expect(large!.bytes).toBeLessThan(2_000);
    expect(large!.body.logs).toHaveLength(40);
  });
});
