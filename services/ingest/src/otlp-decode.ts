import { errors, limits, schemas, validatorFor } from '@lantern/domain';
import { nestedDeeperThan } from '@lantern/http';
import { decodeLogsProtobuf, decodeTracesProtobuf, OtlpDecodeError, type OtlpEncoding, type OtlpLogsRequest, type OtlpTracesRequest } from '@lantern/otlp';

const tracesJson = validatorFor<OtlpTracesRequest>(schemas.otlp.otlpTracesRequest.$id);
const logsJson = validatorFor<OtlpLogsRequest>(schemas.otlp.otlpLogsRequest.$id);

/**
 * OTLP/JSON: the raw-bytes depth scan first (nothing deeper than limits.maxJsonDepth reaches JSON.parse), then
 * JSON.parse, then the schema of the request's shape. Each failure is 400, nothing stored.
 */
function parseJson<T>(body: Buffer, validator: { assert(value: unknown, what?: string): T }, what: string): T {
  if (nestedDeeperThan(body, limits.maxJsonDepth)) {
    throw errors.validation(`The request body is nested deeper than ${limits.maxJsonDepth} levels of arrays and objects.`, [{ path: '/', maxDepth: limits.maxJsonDepth }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw errors.invalidJson('The request body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.validation(`The ${what} must be a JSON object.`, [{ path: '/', message: 'must be object' }]);
  }
  return validator.assert(value, what);
}

/** Protobuf: an undecodable body (truncated, a wrong wire type, nesting past the decoder's bound) is 400. */
function parseProtobuf<T>(body: Buffer, decode: (bytes: Uint8Array) => T, what: string): T {
  try {
    return decode(body);
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw errors.validation(`The ${what} cannot be decoded as protobuf: ${err.message}`);
    throw err;
  }
}

export interface OtlpDecoders {
  traces(body: Buffer, encoding: OtlpEncoding): OtlpTracesRequest;
  logs(body: Buffer, encoding: OtlpEncoding): OtlpLogsRequest;
}

/** The decoders of the two encodings to the one shape (@lantern/otlp shape.ts) the mapping reads. */
export const otlpDecoders: OtlpDecoders = {
  traces: (body, encoding) => (encoding === 'json' ? parseJson(body, tracesJson, 'ExportTraceServiceRequest') : parseProtobuf(body, decodeTracesProtobuf, 'ExportTraceServiceRequest')),
  logs: (body, encoding) => (encoding === 'json' ? parseJson(body, logsJson, 'ExportLogsServiceRequest') : parseProtobuf(body, decodeLogsProtobuf, 'ExportLogsServiceRequest')),
};
