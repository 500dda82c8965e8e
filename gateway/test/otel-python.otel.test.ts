import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LogEntry, TraceRecord } from '@lantern/domain';
import { createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';
import { attr, attrs, iso, logOf, recordOf, spanOf, spanUuid, traceUuid, wiretap } from './otel-helpers.js';
import { logs, traces } from './telemetry-helpers.js';

/**
 * Issue 14's proof with the OpenTelemetry Python SDK (opentelemetry-sdk 1.45.2, opentelemetry-exporter-otlp-proto-http
 * 1.45.2 from PyPI, pinned in scripts/otel-python/requirements.txt): scripts/otel-python/export.py exports a trace
 * and logs over OTLP/HTTP protobuf with the batch processors, configured only through OTEL_EXPORTER_OTLP_ENDPOINT
 * and OTEL_EXPORTER_OTLP_HEADERS, to the embedded Lantern on a real port; they are read back through
 * GET /logs/project and GET /ingest/logs. Runs under `pnpm test:otel` (the virtualenv's first install needs PyPI).
 */

const run = promisify(execFile);
const scripts = join(process.cwd(), 'scripts', 'otel-python');

interface Exported {
  t0Ms: number;
  traceId: string;
  server: string;
  client: string;
  internal: string;
  exports: { spans: number; logs: number };
}

let l: Lantern;
let t: Tenancy;
let server: { port: number; close(): Promise<void> };
let tap: Awaited<ReturnType<typeof wiretap>>;
let exported: Exported;
let records: TraceRecord[];
let stored: LogEntry[];

beforeAll(async () => {
  // The virtualenv first (minutes on a cold cache), then the server: asynchronous children, so the event loop
  // that serves Lantern keeps running while Python sends to it.
  const venv = await run(process.execPath, [join(scripts, 'venv.mjs')], { timeout: 540_000 });
  const python = venv.stdout.trim().split('\n').pop()!;
  l = await startLantern();
  server = await listenOnPort(l);
  tap = await wiretap(`http://127.0.0.1:${server.port}`);
  t = await createTenancy(l, 'otel-python');
  const { OTEL_EXPORTER_OTLP_PROTOCOL: _p, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: _te, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: _le, ...env } = process.env;
  const child = await run(python, [join(scripts, 'export.py')], {
    timeout: 60_000,
    env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: tap.base, OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${t.apiKey}` },
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`export.py failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
  });
  exported = JSON.parse(child.stdout.trim().split('\n').pop()!) as Exported;
  records = await traces(l, t);
  stored = await logs(l, t);
}, 600_000);
afterAll(async () => {
  await tap?.close();
  await server?.close();
  await l?.stop();
});

describe('OpenTelemetry Python SDK -> POST /v1/traces (protobuf) -> GET /logs/project', () => {
  it('on the wire: the endpoint variable alone led the exporters to /v1/traces and /v1/logs, protobuf, answered 200', () => {
    expect(new Set(tap.seen.map((r) => `${r.status} ${r.path} ${r.contentType}`))).toEqual(
      new Set(['200 /v1/traces application/x-protobuf', '200 /v1/logs application/x-protobuf']),
    );
    expect(tap.seen).toHaveLength(exported.exports.spans + exported.exports.logs);
  });

  it('the three spans of the trace join one record of the key\'s application', () => {
    expect(exported.exports.spans).toBeGreaterThanOrEqual(1);
    expect(records).toHaveLength(1);
    const record = recordOf(records, traceUuid(exported.traceId));
    expect(record.applicationId).toBe(t.applicationId);
    expect(record.timestamp).toBe(iso(exported.t0Ms));
    expect(record.telemetry.map((s) => s.spanId).sort()).toEqual([exported.server, exported.client, exported.internal].map(spanUuid).sort());
  });

  it('SERVER: controller:POST, url.path?url.query, 502, 120 ms, error status, resource (with the SDK\'s own attributes) and scope', () => {
    const s = spanOf(recordOf(records, traceUuid(exported.traceId)), spanUuid(exported.server));
    expect(s).toMatchObject({
      traceId: traceUuid(exported.traceId),
      parentSpanId: null,
      timestamp: iso(exported.t0Ms),
      durationMs: 120,
      requestMethod: 'controller:POST',
      requestURL: '/invoices?draft=1',
      responseStatus: 502,
      name: 'POST /invoices',
      kind: 'server',
      serviceName: 'billing-py',
      scope: { name: 'billing.http', version: '0.9.0' },
      status: { code: 'error' },
    });
    expect(attrs(s['attributes'])).toEqual({
      'http.request.method': 'POST', 'url.path': '/invoices', 'url.query': 'draft=1', 'http.response.status_code': 502, 'http.route': '/invoices',
    });
    expect(attr(s['resource'], 'service.version')).toBe('3.1.0');
    expect(attr(s['resource'], 'telemetry.sdk.language')).toBe('python');
    expect(attr(s['resource'], 'telemetry.sdk.name')).toBe('opentelemetry');
  });

  it('CLIENT: external:<host of url.full>, url.full, 504, error status with its message, parent the SERVER span', () => {
    const s = spanOf(recordOf(records, traceUuid(exported.traceId)), spanUuid(exported.client));
    expect(s).toMatchObject({
      parentSpanId: spanUuid(exported.server),
      timestamp: iso(exported.t0Ms + 10),
      durationMs: 70,
      requestMethod: 'external:tax.internal',
      requestURL: 'http://tax.internal:9000/rates?country=FR',
      responseStatus: 504,
      kind: 'client',
      status: { code: 'error', message: 'tax service timed out' },
    });
  });

  it('INTERNAL: service:<name>, typed attributes, the exception event', () => {
    const s = spanOf(recordOf(records, traceUuid(exported.traceId)), spanUuid(exported.internal));
    expect(s).toMatchObject({ parentSpanId: spanUuid(exported.server), durationMs: 10, requestMethod: 'service:computeTotals', kind: 'internal' });
    expect(s['status']).toBeUndefined();
    expect(attrs(s['attributes'])).toEqual({ 'invoice.lines': 4, 'invoice.amount': 99.5, 'invoice.paid': false, 'invoice.tags': ['b2b', 'eu'] });
    const events = s['events'] as { name: string; timestamp: string; attributes?: unknown }[];
    expect(events.map((e) => [e.name, e.timestamp])).toEqual([['exception', iso(exported.t0Ms + 95)]]);
    expect(attr(events[0]!.attributes, 'exception.type')).toBe('ValueError');
    expect(attr(events[0]!.attributes, 'exception.message')).toBe('negative amount');
    expect(String(attr(events[0]!.attributes, 'exception.stacktrace'))).toContain('ValueError: negative amount');
  });
});

describe('OpenTelemetry Python SDK -> POST /v1/logs (protobuf) -> GET /ingest/logs', () => {
  it('ERROR with trace context, attributes, both timestamps, resource and scope', () => {
    expect(exported.exports.logs).toBeGreaterThanOrEqual(1);
    expect(stored).toHaveLength(3);
    expect(logOf(stored, 'invoice rejected')).toMatchObject({
      level: 'error',
      type: 'app',
      severityText: 'ERROR',
      traceId: traceUuid(exported.traceId),
      spanId: spanUuid(exported.server),
      timestamp: iso(exported.t0Ms + 5),
      clientTimestamp: iso(exported.t0Ms + 6),
      serviceName: 'billing-py',
      scope: { name: 'billing.logs', version: '0.9.0' },
      applicationId: t.applicationId,
    });
    expect(attrs(logOf(stored, 'invoice rejected')['attributes'])).toEqual({ 'invoice.id': 'inv-7', attempt: 2 });
    expect(attr(logOf(stored, 'invoice rejected')['resource'], 'service.version')).toBe('3.1.0');
  });

  it('INFO in the trace; a map body as JSON text, its level from severityText "warning", no trace', () => {
    expect(logOf(stored, 'totals computed')).toMatchObject({ level: 'info', traceId: traceUuid(exported.traceId), timestamp: iso(exported.t0Ms + 7) });
    const warn = stored.find((e) => e.level === 'warn');
    expect(warn).toMatchObject({ severityText: 'warning', timestamp: iso(exported.t0Ms + 8) });
    expect(JSON.parse(warn!.message)).toEqual([{ key: 'queue', value: 'invoices' }, { key: 'depth', value: 12 }]);
    expect(warn!.traceId).toBeUndefined();
  });
});
