import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { ApiKeyResolver, ResolvedKey } from '@lantern/auth';
import type { Bus, BusMessage, Topic } from '@lantern/bus';
import { errors, type LogBatchMessage, type SpanBatchMessage } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { createIngestApp } from '../src/index.js';

const ORIGIN: ResolvedKey = { keyId: 'key-1', applicationId: 7, projectId: 3, organizationId: 2 };
const KEY = 'lk_test-key';
const keys: ApiKeyResolver = { resolve: async (key) => (key === KEY ? ORIGIN : null) };

function testBus(failure?: Error) {
  const published: Array<{ topic: Topic; messages: BusMessage[] }> = [];
  const bus: Bus = {
    async publish<T>(topic: Topic, messages: BusMessage<T>[]) {
      if (failure) throw failure;
      published.push({ topic, messages: messages as BusMessage[] });
    },
    async subscribe() {
      throw new Error('not used by ingest');
    },
    async ping() {},
    async close() {},
  };
  return { bus, published };
}

const app = (bus: Bus) => request(createIngestApp({ bus, keys, logger: createLogger({ service: 'ingest-test', silent: true }) }));
const hex = (n: number) => randomBytes(n).toString('hex');
const span = (traceId: string) => ({ traceId, spanId: hex(8), name: 'work', kind: 1, startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n) });
const traces = (spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
const logs = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'hi' } }, { body: { stringValue: 'there' } }] }] }] };

describe('ingest service: OTLP publishes as /ingest/* does', () => {
  it('one spans message per trace, keyed by its trace id; one with the Idempotency-Key', async () => {
    const { bus, published } = testBus();
    const [a, b] = [hex(16), hex(16)];
    await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Content-Type', 'application/json').send(traces([span(a), span(b), span(a)])).expect(200, {});
    expect(published).toHaveLength(1);
    const messages = published[0]!.messages as Array<BusMessage<SpanBatchMessage>>;
    expect(messages.map((m) => [m.key, m.value.spans.length, m.value.applicationId, m.value.projectId])).toEqual([
      [messages[0]!.value.spans[0]!.traceId, 2, 7, 3], [messages[1]!.value.spans[0]!.traceId, 1, 7, 3],
    ]);
    await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Idempotency-Key', 'k1').set('Content-Type', 'application/json').send(traces([span(a), span(b)])).expect(200, {});
    const keyed = published[1]!.messages as Array<BusMessage<SpanBatchMessage>>;
    expect(keyed.map((m) => [m.value.spans.length, m.value.idempotencyKey])).toEqual([[2, 'k1']]);
  });

  it('one logs message keyed by the application, with ids given at ingest', async () => {
    const { bus, published } = testBus();
    await app(bus).post('/v1/logs').set('x-api-key', KEY).set('Content-Type', 'application/json').send(logs).expect(200, {});
    const [message] = published[0]!.messages as Array<BusMessage<LogBatchMessage>>;
    expect(published[0]!.topic).toBe('logs');
    expect(message!.key).toBe('7');
    expect(message!.value.logs.map((l) => [l.message, typeof l.id, l.applicationId])).toEqual([['hi', 'string', 7], ['there', 'string', 7]]);
  });

  it('publishes nothing when every item is rejected', async () => {
    const { bus, published } = testBus(new Error('must not be called'));
    const res = await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Content-Type', 'application/json').send(traces([span('0'.repeat(32))])).expect(200);
    expect(res.body.partialSuccess.rejectedSpans).toBe('1');
    expect(published).toEqual([]);
  });
});

describe('ingest service: OTLP when the bus is down', () => {
  it.each([
    ['a plain error', new Error('connect ECONNREFUSED 10.0.0.1:9092'), '5'],
    ['a 503 AppError with its own Retry-After', errors.unavailable('message bus', 30), '30'],
  ])('503 with Retry-After and a Status of code 14 UNAVAILABLE (%s)', async (_label, failure, retryAfter) => {
    const { bus } = testBus(failure);
    for (const [path, body] of [['/v1/traces', traces([span(hex(16))])], ['/v1/logs', logs]] as const) {
      const res = await app(bus).post(path).set('x-api-key', KEY).set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe(retryAfter);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ code: 14, message: expect.stringContaining('unavailable'), details: [] });
      expect(res.text).not.toContain('ECONNREFUSED');
    }
  });
});

describe('ingest service: a resource is checked once for all its spans', () => {
  it('a resource value nested too deep rejects every span under it, with the safety walk\'s reason; the others share one checked resource', async () => {
    const { bus, published } = testBus();
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    // 10 kvlists deep: within the mapping's bound of nesting, past the safety walk's (limits.maxDepth) once on a span.
    let deep: Record<string, unknown> = { stringValue: 'leaf' };
    for (let i = 0; i < 10; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } };
    const trace = hex(16);
    const body = {
      resourceSpans: [
        { resource: { attributes: [attr('service.name', 'bad'), { key: 'blob', value: deep }] }, scopeSpans: [{ spans: [span(trace), span(trace), span(trace)] }] },
        { resource: { attributes: [attr('service.name', 'good'), attr('host.name', 'web-1')] }, scopeSpans: [{ scope: { name: 'lib' }, spans: [span(trace), span(trace)] }] },
      ],
    };
    const res = await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Content-Type', 'application/json').send(body).expect(200);
    expect(res.body.partialSuccess).toEqual({ rejectedSpans: '3', errorMessage: expect.stringMatching(/^3 spans rejected: \/resource\/1\/value\/\S+ is nested deeper than 16 levels$/) });
    const spans = (published[0]!.messages as Array<BusMessage<SpanBatchMessage>>).flatMap((m) => m.value.spans) as Array<Record<string, unknown>>;
    expect(spans.map((s) => s['serviceName'])).toEqual(['good', 'good']);
    expect(spans[0]!['resource']).toEqual([{ key: 'service.name', value: 'good' }, { key: 'host.name', value: 'web-1' }]);
    expect(spans[0]!['resource']).toBe(spans[1]!['resource']);
    expect(spans[0]!['timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });
});

describe('ingest service: the 10,000-item bound counts every resource and scope', () => {
  it('OTLP/JSON: 10,000 spans over three resources and scopes are taken, 10,001 are 400 and nothing is published', async () => {
    const { bus, published } = testBus();
    const trace = hex(16);
    const spread = (n: number) => ({
      resourceSpans: [
        { scopeSpans: [{ spans: Array.from({ length: 4_000 }, () => span(trace)) }, {}, { spans: Array.from({ length: 3_000 }, () => span(trace)) }] },
        {},
        { scopeSpans: [{ spans: Array.from({ length: n - 7_000 }, () => span(trace)) }] },
      ],
    });
    await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Content-Type', 'application/json').send(spread(10_000)).expect(200, {});
    expect(published).toHaveLength(1);
    const over = await app(bus).post('/v1/traces').set('x-api-key', KEY).set('Content-Type', 'application/json').send(spread(10_001)).expect(400);
    expect(over.body.message).toMatch(/holds 10001 spans; at most 10000/);
    expect(published).toHaveLength(1);
  });

  it('OTLP/JSON: 10,001 log records over two resources are 400', async () => {
    const { bus, published } = testBus();
    const records = (n: number) => Array.from({ length: n }, () => ({ body: { stringValue: 'x' } }));
    const body = { resourceLogs: [{ scopeLogs: [{ logRecords: records(5_000) }, { logRecords: records(5_000) }] }, { scopeLogs: [{ logRecords: records(1) }] }] };
    const over = await app(bus).post('/v1/logs').set('x-api-key', KEY).set('Content-Type', 'application/json').send(body).expect(400);
    expect(over.body.message).toMatch(/holds 10001 log records; at most 10000/);
    expect(published).toHaveLength(0);
  });
});
