import { expect } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter as OTLPLogExporterJson } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as OTLPLogExporterProto } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as OTLPTraceExporterJson } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { LogEntry, Span, TraceRecord } from '@lantern/domain';

/**
 * Helpers of the tests that send with the OpenTelemetry SDKs themselves (issue 14): the official exporters,
 * wrapped so a test sees every export's result and counts the requests, and the OTLP -> Lantern id rules
 * written out independently of packages/otlp.
 */

/** Lantern's trace id: the uuid text of OTLP's 32 hex digits. */
export const traceUuid = (hex32: string) =>
  `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20, 32)}`;
/** Lantern's span id: the uuid text of OTLP's 16 hex digits followed by 16 zeros. */
export const spanUuid = (hex16: string) => traceUuid(hex16 + '0'.repeat(16));

export type Encoding = 'protobuf' | 'json';
export interface ExporterOptions {
  base: string;
  apiKey: string;
  encoding: Encoding;
  gzip?: boolean;
}

/** Any OTel exporter: spans or log records. */
interface Exporter<T> {
  export(items: T[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/** An exporter that records each export's result (the SDK would only log a failure) and how many items each sent. */
export class Recording<T> implements Exporter<T> {
  readonly results: ExportResult[] = [];
  readonly batches: number[] = [];
  constructor(private readonly inner: Exporter<T>) {}
  export(items: T[], done: (result: ExportResult) => void): void {
    this.batches.push(items.length);
    this.inner.export(items, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
  /** Every export so far succeeded (a failure shows its error). */
  expectAllSucceeded(): void {
    expect(this.results.length).toBe(this.batches.length);
    expect(this.results.filter((r) => r.code !== ExportResultCode.SUCCESS).map((r) => String(r.error))).toEqual([]);
  }
}

const compression = (gzip: boolean | undefined) =>
  ({ compression: (gzip ? 'gzip' : 'none') as unknown }) as { compression: NonNullable<NonNullable<ConstructorParameters<typeof OTLPTraceExporterProto>[0]>['compression']> };

export function traceExporter(o: ExporterOptions): Recording<ReadableSpan> & SpanExporter {
  const config = { url: `${o.base}/v1/traces`, headers: { 'x-api-key': o.apiKey }, ...compression(o.gzip) };
  return new Recording<ReadableSpan>(o.encoding === 'protobuf' ? new OTLPTraceExporterProto(config) : new OTLPTraceExporterJson(config));
}

export function logExporter(o: ExporterOptions): Recording<ReadableLogRecord> & LogRecordExporter {
  const config = { url: `${o.base}/v1/logs`, headers: { 'x-api-key': o.apiKey }, ...compression(o.gzip) };
  return new Recording<ReadableLogRecord>(o.encoding === 'protobuf' ? new OTLPLogExporterProto(config) : new OTLPLogExporterJson(config));
}

/**
 * A tracer provider whose every ended span is exported at once in a request of its own (SimpleSpanProcessor),
 * so the spans of one trace travel in separate requests.
 */
export function tracerProvider(exporter: SpanExporter, resource: Record<string, string>) {
  return new BasicTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(exporter)] });
}

export function loggerProvider(exporter: LogRecordExporter, resource: Record<string, string>) {
  return new LoggerProvider({ resource: resourceFromAttributes(resource), processors: [new SimpleLogRecordProcessor({ exporter })] });
}

/**
 * Waits for the provider's exports. A failed export rejects forceFlush; it is caught here so that the test that
 * checks the exporter's results (Recording.expectAllSucceeded) fails with the exporter's error, and the others
 * with what is missing.
 */
export const flushed = (provider: { forceFlush(): Promise<void> }) => provider.forceFlush().catch(() => undefined);

export interface KeyValue {
  key: string;
  value: unknown;
}

/** The value of `key` in a stored `{ key, value }` list (undefined when absent). */
export function attr(list: unknown, key: string): unknown {
  expect(Array.isArray(list)).toBe(true);
  return (list as KeyValue[]).find((kv) => kv.key === key)?.value;
}

/** The stored `{ key, value }` list as an object (keys are unique in what the SDKs send). */
export function attrs(list: unknown): Record<string, unknown> {
  expect(Array.isArray(list)).toBe(true);
  return Object.fromEntries((list as KeyValue[]).map((kv) => [kv.key, kv.value]));
}

/** The one trace record of `traceId` among `records`. */
export function recordOf(records: TraceRecord[], traceId: string): TraceRecord {
  const found = records.filter((r) => r.traceId === traceId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The one stored span of `spanId` in a record. */
export function spanOf(record: TraceRecord, spanId: string): Span {
  const found = record.telemetry.filter((s) => s.spanId === spanId);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** The one stored log whose message is `message`. */
export function logOf(logs: LogEntry[], message: string): LogEntry {
  const found = logs.filter((entry) => entry.message === message);
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** What went over the wire: one request as the exporter sent it, and Lantern's status. */
export interface SeenRequest {
  path: string;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  status: number | undefined;
}

/**
 * A pass-through HTTP proxy in front of Lantern that notes each request's path, Content-Type and
 * Content-Encoding, so a test sees which encoding and compression the exporters really used.
 */
export async function wiretap(target: string): Promise<{ base: string; seen: SeenRequest[]; close(): Promise<void> }> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const upstream = http.request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      seen.push({
        path: req.url ?? '', contentType: req.headers['content-type'], contentEncoding: req.headers['content-encoding'], status: answer.statusCode,
      });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A whole millisecond a minute ago, so every timestamp of a test is exact in ms and in the past. */
export const aMinuteAgo = () => Math.floor(Date.now() / 1000) * 1000 - 60_000;
export const at = (ms: number) => new Date(ms);
export const iso = (ms: number) => new Date(ms).toISOString();
