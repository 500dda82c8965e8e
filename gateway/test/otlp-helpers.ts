import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { OtlpLogRecord, OtlpSpan } from '@lantern/otlp';
import type { Response } from 'supertest';
import type { HttpTarget } from './harness.js';

/** Builders and senders of the OTLP tests (otlp-*.test.ts). */

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** A hex id as Lantern stores it: 32 digits as a UUID, 16 followed by 16 zeros. */
export const uuidOfHex = (h: string) => {
  const x = (h.length === 16 ? h + '0'.repeat(16) : h).toLowerCase();
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
};
/** Nanoseconds of an instant in milliseconds, as OTLP/JSON's decimal text. */
export const nanos = (ms: number, extraNs = 0) => (BigInt(ms) * 1_000_000n + BigInt(extraNs)).toString();
export const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
export const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

export const T0 = Date.parse('2026-03-01T10:00:00.000Z');

export function otlpSpan(over: Partial<OtlpSpan> = {}): OtlpSpan {
  return { traceId: hex(16), spanId: hex(8), name: 'GET /cart', kind: 2, startTimeUnixNano: nanos(T0), endTimeUnixNano: nanos(T0 + 25), attributes: [str('http.request.method', 'GET'), str('url.path', '/cart'), int('http.response.status_code', 200)], ...over };
}

export function tracesRequest(spans: OtlpSpan[], service = 'checkout') {
  return { resourceSpans: [{ resource: { attributes: [str('service.name', service)] }, scopeSpans: [{ scope: { name: 'test.lib', version: '1.0.0' }, spans }] }] };
}

export function otlpLog(over: Partial<OtlpLogRecord> = {}): OtlpLogRecord {
  return { timeUnixNano: nanos(T0), severityNumber: 9, severityText: 'INFO', body: { stringValue: 'hello from otel' }, ...over };
}

export function logsRequest(records: OtlpLogRecord[], service = 'checkout') {
  return { resourceLogs: [{ resource: { attributes: [str('service.name', service)] }, scopeLogs: [{ scope: { name: 'test.logger' }, logRecords: records }] }] };
}

const verbatim = (b: unknown) => b as string;

/** POST an OTLP body: an object as JSON, a Buffer verbatim with the given content type. */
export function sendOtlp(l: HttpTarget, path: string, apiKey: string | undefined, body: object | Buffer | string, headers: Record<string, string> = {}) {
  let req = l.http.post(path);
  if (apiKey !== undefined) req = req.set('x-api-key', apiKey);
  req = req.set('Content-Type', Buffer.isBuffer(body) ? 'application/x-protobuf' : 'application/json').set(headers);
  if (Buffer.isBuffer(body)) return req.serialize(verbatim).send(body);
  return req.send(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A JSON google.rpc.Status answer with this HTTP status and gRPC code. */
export function expectJsonStatus(res: Response, httpStatus: number, grpcCode: number): void {
  expect({ status: res.status, type: res.headers['content-type'] }).toEqual({ status: httpStatus, type: expect.stringMatching(/^application\/json/) });
  expect(res.body).toEqual({ code: grpcCode, message: expect.any(String), details: [] });
  expect(res.body.message.length).toBeGreaterThan(0);
}
