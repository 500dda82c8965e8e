import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultTextMapGetter, defaultTextMapSetter, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { createLantern, type Lantern as LanternClient } from '@lantern/sdk-node';
import type { TraceRecord } from '@lantern/domain';
import { createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';
import { flushed, spanUuid, traceExporter, tracerProvider, traceUuid } from './otel-helpers.js';
import { addApplication, getAs, traces } from './telemetry-helpers.js';

/**
 * One trace across both worlds, both directions, over real HTTP (issue 14): a service using @lantern/sdk-node
 * and a service instrumented with the OpenTelemetry JS SDK (W3C Trace Context through @opentelemetry/core's
 * propagator), each sending with its own application's key, to the embedded Lantern on a real port.
 */

let l: Lantern;
let t: Tenancy;
let lanternPort: { port: number; close(): Promise<void> };
let base: string;
const servers: http.Server[] = [];
const propagator = new W3CTraceContextPropagator();

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const lanternClient = (apiKey: string): LanternClient =>
  createLantern({ apiKey, ingestUrl: base, flushIntervalMs: 60_000, flushOnExit: false });

/** The records of one trace, by application. */
async function byApplication(traceId: string): Promise<Map<number, TraceRecord>> {
  const records = await traces(l, t, { traceId });
  expect(new Set(records.map((r) => r.applicationId)).size).toBe(records.length);
  return new Map(records.map((r) => [r.applicationId, r]));
}

/** Entry requests GET /metrics counts for an application (the last hour). */
async function entries(applicationId: number): Promise<number> {
  const res = await getAs(l, t.token, '/metrics', { applicationId }).expect(200);
  const apps = res.body.applications as { applicationId: number; requests: number }[];
  return apps.find((a) => a.applicationId === applicationId)?.requests ?? 0;
}

beforeAll(async () => {
  l = await startLantern();
  lanternPort = await listenOnPort(l);
  base = `http://127.0.0.1:${lanternPort.port}`;
  t = await createTenancy(l, 'otel-cross');
}, 60_000);
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
  await lanternPort.close();
  await l.stop();
});

describe('@lantern/sdk-node caller -> OpenTelemetry callee', () => {
  let caller: { applicationId: number; apiKey: string };
  let callee: { applicationId: number; apiKey: string };
  let traceId: string;
  let received: { traceparent?: string; tracestate?: string } = {};

  beforeAll(async () => {
    caller = await addApplication(l, t, 'lantern caller');
    callee = await addApplication(l, t, 'otel callee');
    const exporter = traceExporter({ base, apiKey: callee.apiKey, encoding: 'protobuf' });
    const provider = tracerProvider(exporter, { 'service.name': 'inventory' });
    const tracer = provider.getTracer('inventory-server', '1.0.0');
    // The OTel service: extracts the W3C context and serves under a SERVER span of its own.
    const calleeUrl = await listen((req, res) => {
      received = { traceparent: req.headers['traceparent'] as string, tracestate: req.headers['tracestate'] as string };
      const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
      const span = tracer.startSpan('GET /stock', {
        kind: SpanKind.SERVER, attributes: { 'http.request.method': 'GET', 'url.path': '/stock', 'http.response.status_code': 200 },
      }, parent);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ reserved: 2 }), () => span.end());
    });
    // The Lantern service: a node:http handler that calls the OTel service with the headers call() hands it.
    const lantern = lanternClient(caller.apiKey);
    const callerUrl = await listen(lantern.wrap(async (_req, res) => {
      traceId = lantern.currentTrace()!.traceId;
      const answer = await lantern.call('inventory', (headers) => fetch(`${calleeUrl}/stock`, { headers: { ...headers } }), { url: `${calleeUrl}/stock` });
      res.end(await answer.text());
    }));
    const res = await fetch(`${callerUrl}/checkout`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ reserved: 2 });
    await lantern.close();
    await flushed(provider);
    await provider.shutdown();
    exporter.expectAllSucceeded();
    expect(exporter.batches).toEqual([1]);
  }, 30_000);

  it('one traceId: the OTel SERVER span points exactly at the Lantern call span (its whole id from tracestate)', async () => {
    const records = await byApplication(traceId);
    expect([...records.keys()].sort()).toEqual([caller.applicationId, callee.applicationId].sort());
    const callerSpans = records.get(caller.applicationId)!.telemetry;
    const root = callerSpans.find((s) => s.parentSpanId === null)!;
    expect(root).toMatchObject({ requestMethod: 'controller:GET', requestURL: '/checkout', responseStatus: 200 });
    const call = callerSpans.find((s) => s.requestMethod === 'external:inventory')!;
    expect(call).toMatchObject({ parentSpanId: root.spanId, responseStatus: 200 });
    expect(received.tracestate).toBe(`lantern=${call.spanId.replace(/-/g, '')}`);

    const calleeSpans = records.get(callee.applicationId)!.telemetry;
    expect(calleeSpans).toHaveLength(1);
    expect(calleeSpans[0]).toMatchObject({
      traceId,
      parentSpanId: call.spanId,
      requestMethod: 'controller:GET',
      requestURL: '/stock',
      responseStatus: 200,
      kind: 'server',
      serviceName: 'inventory',
      traceState: received.tracestate,
    });
    // The Lantern span id does not end in 16 zeros: the exact match is the tracestate rule, not the padding rule.
    expect(call.spanId.replace(/-/g, '').endsWith('0'.repeat(16))).toBe(false);
  });

  it("the OTel SERVER span is its application's entry: GET /metrics counts it for the callee, and the caller's root for the caller", async () => {
    expect(await entries(callee.applicationId)).toBe(1);
    expect(await entries(caller.applicationId)).toBe(1);
  });
});

describe('OpenTelemetry caller -> @lantern/sdk-node callee', () => {
  let caller: { applicationId: number; apiKey: string };
  let callee: { applicationId: number; apiKey: string };
  let client: { traceId: string; spanId: string };
  let calleeTrace: { traceId: string; spanId: string } | undefined;

  beforeAll(async () => {
    caller = await addApplication(l, t, 'otel caller');
    callee = await addApplication(l, t, 'lantern callee');
    const lantern = lanternClient(callee.apiKey);
    const calleeUrl = await listen(lantern.wrap((_req, res) => {
      calleeTrace = lantern.currentTrace();
      res.statusCode = 201;
      res.end('made');
    }));
    const exporter = traceExporter({ base, apiKey: caller.apiKey, encoding: 'json', gzip: true });
    const provider = tracerProvider(exporter, { 'service.name': 'storefront' });
    const tracer = provider.getTracer('storefront-client');
    // The OTel client: a CLIENT span whose context is injected into the request's headers.
    const span = tracer.startSpan('POST', {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': 'POST', 'server.address': '127.0.0.1', 'url.full': `${calleeUrl}/orders` },
    });
    const headers: Record<string, string> = {};
    propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
    const res = await fetch(`${calleeUrl}/orders`, { method: 'POST', headers });
    expect(res.status).toBe(201);
    span.setAttribute('http.response.status_code', res.status);
    span.end();
    client = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    await flushed(provider);
    await provider.shutdown();
    await lantern.close();
    exporter.expectAllSucceeded();
  }, 30_000);

  it("one traceId: the Lantern controller span's parent is the OTel CLIENT span by the span id rule", async () => {
    expect(calleeTrace?.traceId).toBe(traceUuid(client.traceId));
    const records = await byApplication(traceUuid(client.traceId));
    expect([...records.keys()].sort()).toEqual([caller.applicationId, callee.applicationId].sort());
    const otel = records.get(caller.applicationId)!.telemetry;
    expect(otel).toHaveLength(1);
    expect(otel[0]).toMatchObject({
      spanId: spanUuid(client.spanId), parentSpanId: null, requestMethod: 'external:127.0.0.1', responseStatus: 201, kind: 'client', serviceName: 'storefront',
    });
    const lantern = records.get(callee.applicationId)!.telemetry;
    expect(lantern).toHaveLength(1);
    expect(lantern[0]).toMatchObject({
      traceId: traceUuid(client.traceId),
      spanId: calleeTrace!.spanId,
      parentSpanId: spanUuid(client.spanId),
      requestMethod: 'controller:POST',
      requestURL: '/orders',
      responseStatus: 201,
    });
  });

  it("the Lantern controller span is the callee's entry; the OTel CLIENT span is no entry of the caller", async () => {
    expect(await entries(callee.applicationId)).toBe(1);
    expect(await entries(caller.applicationId)).toBe(0);
  });
});
