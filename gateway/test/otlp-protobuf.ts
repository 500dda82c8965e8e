import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import type { Response, Test } from 'supertest';

/**
 * OTLP protobuf for the tests, by protobufjs reflection of the vendored .proto files (packages/otlp/proto): an
 * encoder independent of the service's hand-written decoder. Requests are built in the OTLP/JSON shape (hex ids)
 * and encoded; answers are decoded back to plain objects.
 */
const PROTO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'otlp', 'proto');
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : join(PROTO, target));
root.loadSync([
  'opentelemetry/proto/collector/trace/v1/trace_service.proto',
  'opentelemetry/proto/collector/logs/v1/logs_service.proto',
  'google/rpc/status.proto',
]);
// google/protobuf/any.proto comes with protobufjs (its common types).
root.resolveAll();

const type = (name: string) => root.lookupType(name);
const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** Hex ids (OTLP/JSON) to bytes, as protobuf carries them; everything else as it is. */
function idsToBytes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(idsToBytes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ID_FIELDS.has(k) && typeof v === 'string' ? Buffer.from(v, 'hex') : k === 'bytesValue' && typeof v === 'string' ? Buffer.from(v, 'base64') : idsToBytes(v)]));
}

function encode(name: string, request: object): Buffer {
  const t = type(name);
  return Buffer.from(t.encode(t.fromObject(idsToBytes(request) as Record<string, unknown>)).finish());
}

export const encodeTraces = (request: object) => encode('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest', request);
export const encodeLogs = (request: object) => encode('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest', request);

const decode = (name: string, bytes: Buffer) => type(name).toObject(type(name).decode(bytes), { longs: String, defaults: false }) as Record<string, unknown>;
export const decodeTracesResponse = (bytes: Buffer) => decode('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse', bytes);
export const decodeLogsResponse = (bytes: Buffer) => decode('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse', bytes);
export const decodeStatus = (bytes: Buffer) => decode('google.rpc.Status', bytes);

/** Keeps a binary answer's bytes in `res.body` (supertest leaves unknown types unread). */
export function binary(req: Test): Test {
  return req.buffer(true).parse((res, callback) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => callback(null, Buffer.concat(chunks)));
  });
}

export const bodyBytes = (res: Response) => res.body as Buffer;
