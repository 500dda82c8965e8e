import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ApiKeyResolver, ResolvedKey } from '@lantern/auth';
import type { Bus, BusMessage, Topic } from '@lantern/bus';
import { errors, type LogBatchMessage, type SpanBatchMessage } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { createIngestApp } from '../src/index.js';

const ORIGIN: ResolvedKey = { keyId: 'key-1', applicationId: 7, projectId: 3, organizationId: 2 };
const KEY = 'lk_test-key';

/** Resolves KEY to ORIGIN and anything else to null, like an unknown key. */
const keys: ApiKeyResolver = { resolve: async (key) => (key === KEY ? ORIGIN : null) };

/** A bus that records what is published, or rejects every publish with `failure`. */
function testBus(failure?: Error) {
  const published: Array<{ topic: Topic; messages: BusMessage[] }> = [];
  let publishCalls = 0;
  const bus: Bus = {
    async publish<T>(topic: Topic, messages: BusMessage<T>[]) {
      publishCalls++;
      if (failure) throw failure;
      published.push({ topic, messages: messages as BusMessage[] });
    },
    async subscribe() {
      throw new Error('not used by ingest');
    },
    async ping() {
      if (failure) throw failure;
    },
    async close() {},
  };
  return { bus, published, calls: () => publishCalls };
}

function ingestApp(bus: Bus, rateLimit?: { enabled: boolean; perMinute: number }) {
  const logger = createLogger({ service: 'ingest-test', silent: true });
  return request(createIngestApp({ bus, keys, logger, ...(rateLimit ? { rateLimit } : {}) }));
}

const span = (overrides: Record<string, unknown> = {}) => ({
  traceId: randomUUID(), spanId: randomUUID(), parentSpanId: null, timestamp: new Date().toISOString(),
  requestMethod: 'controller:GET', requestURL: '/', responseStatus: 200, durationMs: 3, ...overrides,
});
const log = (overrides: Record<string, unknown> = {}) => ({ level: 'info', message: 'hello', timestamp: new Date().toISOString(), ...overrides });
const traceBatch = (traces: unknown[]) => ({ timestamp: new Date().toISOString(), traces });
const logBatch = (logs: unknown[]) => ({ timestamp: new Date().toISOString(), logs });

describe('ingest service: the bus is down', () => {
  it.each([
    ['a plain error', new Error('connect ECONNREFUSED 10.0.0.1:9092')],
    ['a 503 AppError', errors.unavailable('message bus', 5)],
  ])('POST /ingest/traces and /ingest/logs answer 503 unavailable with Retry-After (%s)', async (_label, failure) => {
    const { bus, calls } = testBus(failure);
    const http = ingestApp(bus);
    for (const [path, body] of [['/ingest/traces', traceBatch([span()])], ['/ingest/logs', logBatch([log()])]] as const) {
      const res = await http.post(path).set('x-api-key', KEY).send(body);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.text).not.toContain('ECONNREFUSED');
    }
    expect(calls()).toBe(2);
  });

  it('keeps the Retry-After of a bus that says when to come back', async () => {
    const { bus } = testBus(errors.unavailable('message bus', 30));
    const res = await ingestApp(bus).post('/ingest/traces').set('x-api-key', KEY).send(traceBatch([span()]));
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('30');
  });

  it('passes on the bus\'s 413 (a batch over the topic\'s message limit): a retry could not succeed, so not a 503', async () => {
    const { bus } = testBus(errors.tooLarge('The batch is larger than the message bus accepts.'));
    for (const [path, body] of [['/ingest/traces', traceBatch([span()])], ['/ingest/logs', logBatch([log()])]] as const) {
      const res = await ingestApp(bus).post(path).set('x-api-key', KEY).send(body);
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
      expect(res.headers['retry-after']).toBeUndefined();
    }
  });

  it('answers 200 without publishing when every item is invalid (nothing to store)', async () => {
    const { bus, calls } = testBus(new Error('down'));
    const res = await ingestApp(bus).post('/ingest/traces').set('x-api-key', KEY).send(traceBatch([{ spanId: 'x' }]));
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(0);
    expect(res.body.rejected.map((r: { index: number }) => r.index)).toEqual([0]);
    expect(calls()).toBe(0);
  });

  it('reports the bus on /readyz: 503 with Retry-After', async () => {
    const res = await ingestApp(testBus(new Error('down')).bus).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ bus: 'unavailable' });
    expect(res.headers['retry-after']).toBeDefined();
  });
});

describe('ingest service: what is published', () => {
  it('publishes the valid spans with the origin resolved from the API key, normalised', async () => {
    const { bus, published } = testBus();
    const traceId = randomUUID().toUpperCase();
    const root = span({ traceId, timestamp: '2026-11-22T12:43:34.1+02:00' });
    const res = await ingestApp(bus).post('/ingest/traces').set('x-api-key', KEY).send(traceBatch([root, { bad: true }]));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ accepted: 1, rejected: [{ index: 1, errors: expect.any(Array) }] });
    expect(published).toHaveLength(1);
    expect(published[0]!.topic).toBe('spans');
    const values = published[0]!.messages.map((m) => m.value as SpanBatchMessage);
    expect(values).toHaveLength(1);
    expect(values[0]).toMatchObject({ kind: 'spans', applicationId: 7, projectId: 3 });
    expect(values[0]!.spans).toEqual([{ ...root, traceId: traceId.toLowerCase(), timestamp: '2026-11-22T10:43:34.100Z' }]);
  });

  it('publishes logs with ids, the origin and the defaults', async () => {
    const { bus, published } = testBus();
    const res = await ingestApp(bus).post('/ingest/logs').set('x-api-key', KEY)
      .send({ timestamp: '2026-11-22T11:00:00+01:00', logs: [log({ timestamp: '2026-11-22T10:00:00Z' })] });
    expect(res.body).toEqual({ accepted: 1, rejected: [] });
    const value = published[0]!.messages[0]!.value as LogBatchMessage;
    expect(value.logs).toEqual([{
      id: expect.any(String), projectId: 3, applicationId: 7, level: 'info', type: 'app', message: 'hello',
      timestamp: '2026-11-22T10:00:00.000Z', clientTimestamp: '2026-11-22T10:00:00.000Z',
    }]);
  });

  it('gives logs time-ordered ids (UUID version 7), so the store appends to its id index instead of writing all over it', async () => {
    const { bus, published } = testBus();
    const before = Date.now();
    for (let i = 0; i < 2; i++) {
      await ingestApp(bus).post('/ingest/logs').set('x-api-key', KEY)
        .send({ timestamp: '2026-11-22T11:00:00Z', logs: [log({ message: 'a' }), log({ message: 'b' })] }).expect(200);
    }
    const ids = published.flatMap((p) => p.messages.flatMap((m) => (m.value as LogBatchMessage).logs.map((l) => l.id)));
    expect(ids).toHaveLength(4);
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms).toBeGreaterThanOrEqual(before);
      expect(ms).toBeLessThanOrEqual(Date.now());
    }
    expect(new Set(ids).size).toBe(4);
    // The second request's ids sort after the first's (their milliseconds are the same or later).
    expect(ids[2]!.slice(0, 13) >= ids[0]!.slice(0, 13)).toBe(true);
  });

  it('publishes a batch with an Idempotency-Key as one message carrying the key (claimed once, whatever its traces)', async () => {
    const { bus, published } = testBus();
    const http = ingestApp(bus);
    await http.post('/ingest/traces').set('x-api-key', KEY).set('Idempotency-Key', 'batch-1').send(traceBatch([span(), span(), { bad: 1 }])).expect(200);
    await http.post('/ingest/logs').set('x-api-key', KEY).set('Idempotency-Key', 'batch-1').send(logBatch([log()])).expect(200);
    expect(published.map((p) => [p.topic, p.messages.length])).toEqual([['spans', 1], ['logs', 1]]);
    const spans = published[0]!.messages[0]!.value as SpanBatchMessage;
    expect(spans.idempotencyKey).toBe('batch-1');
    expect(spans.spans).toHaveLength(2);
    expect((published[1]!.messages[0]!.value as LogBatchMessage).idempotencyKey).toBe('batch-1');
  });

  it('without an Idempotency-Key, publishes one message per trace, keyed by its trace id', async () => {
    const { bus, published } = testBus();
    const a = span();
    const b = span();
    const a2 = span({ traceId: a.traceId, parentSpanId: a.spanId });
    await ingestApp(bus).post('/ingest/traces').set('x-api-key', KEY).send(traceBatch([a, b, a2])).expect(200);
    const messages = published[0]!.messages;
    expect(messages.map((m) => m.key).sort()).toEqual([a.traceId, b.traceId].sort());
    for (const m of messages) {
      const value = m.value as SpanBatchMessage;
      expect(value.idempotencyKey).toBeUndefined();
      expect(value.spans.every((s) => s.traceId === m.key)).toBe(true);
    }
  });

  it('does not call the bus for a request refused before validation', async () => {
    const { bus, calls } = testBus();
    const http = ingestApp(bus);
    expect((await http.post('/ingest/traces').send(traceBatch([span()]))).status).toBe(401);
    expect((await http.post('/ingest/traces').set('x-api-key', 'lk_other').send(traceBatch([span()]))).status).toBe(401);
    expect((await http.post('/ingest/traces').set('x-api-key', KEY).send({ traces: [span()] })).status).toBe(400);
    expect((await http.post('/ingest/traces').set('x-api-key', KEY).set('Idempotency-Key', 'k'.repeat(201)).send(traceBatch([span()]))).status).toBe(400);
    expect(calls()).toBe(0);
  });
});

describe('ingest service: rate limit per API key', () => {
  it('answers 429 rate_limited with Retry-After past the limit, without publishing', async () => {
    const { bus, calls } = testBus();
    const http = ingestApp(bus, { enabled: true, perMinute: 2 });
    for (let i = 0; i < 2; i++) await http.post('/ingest/traces').set('x-api-key', KEY).send(traceBatch([span()])).expect(200);
    const res = await http.post('/ingest/logs').set('x-api-key', KEY).send(logBatch([log()]));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(calls()).toBe(2);
  });
});
