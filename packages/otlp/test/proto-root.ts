/** protobufjs reflection of the vendored .proto files: the tests' independent encoder and decoder of OTLP messages. */
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';

const PROTO = fileURLToPath(new URL('../proto', import.meta.url));

function load(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (isAbsolute(target) ? target : join(PROTO, target));
  return root.loadSync([
    'opentelemetry/proto/collector/trace/v1/trace_service.proto',
    'opentelemetry/proto/collector/logs/v1/logs_service.proto',
    'google/rpc/status.proto',
  ]);
}

const root = load();
export const protoType = (name: string): protobuf.Type => root.lookupType(name);

/** Encodes a message given as a plain object (protobufjs field names: camelCase; bytes as Uint8Array). */
export function encodeMessage(name: string, value: Record<string, unknown>): Uint8Array {
  const type = protoType(name);
  return type.encode(type.fromObject(value)).finish();
}

/** The bytes of field `field` (length-delimited) holding `inner`, as a parent message would carry it. */
export function wrap(field: number, inner: Uint8Array): Uint8Array {
  return protobuf.Writer.create().uint32((field << 3) | 2).bytes(inner).finish();
}

export const concat = (...parts: Uint8Array[]): Uint8Array => Buffer.concat(parts);

/** Unknown fields of every wire type (numbers 90-93: not in any OTLP message). */
export const UNKNOWN_FIELDS: Uint8Array = protobuf.Writer.create()
  .uint32((90 << 3) | 0).uint64(123456789)
  .uint32((91 << 3) | 1).fixed64(42)
  .uint32((92 << 3) | 2).bytes(Buffer.from('not an OTLP field'))
  .uint32((93 << 3) | 5).fixed32(7)
  .finish();
