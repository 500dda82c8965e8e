import { errors, limits, schemas, validatorFor } from '@lantern/domain';
import { nestedDeeperThan } from '@lantern/http';
import type { OtlpLogsRequest, OtlpTracesRequest } from '@lantern/otlp';
import type { OtlpEncoding } from './otlp-body.js';

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

export interface OtlpDecoders {
  traces(body: Buffer, encoding: OtlpEncoding): OtlpTracesRequest;
  logs(body: Buffer, encoding: OtlpEncoding): OtlpLogsRequest;
}

/** The decoders of the two encodings; protobuf comes from @lantern/otlp (an undecodable body is 400). */
export const otlpDecoders: OtlpDecoders = {
  traces(body, encoding) {
    if (encoding === 'json') return parseJson(body, tracesJson, 'ExportTraceServiceRequest');
    throw errors.unsupportedMedia('OTLP/protobuf is not decoded yet: send application/json.');
  },
  logs(body, encoding) {
    if (encoding === 'json') return parseJson(body, logsJson, 'ExportLogsServiceRequest');
    throw errors.unsupportedMedia('OTLP/protobuf is not decoded yet: send application/json.');
  },
};
