import { type Json, ref, retryAfter } from './openapi-parts.js';

/**
 * The OTLP/HTTP operations of the OpenAPI document (POST /v1/traces, /v1/logs): both encodings in and out, and
 * every error as a google.rpc.Status (the `OtlpStatus` schema in JSON, its protobuf encoding otherwise) instead of
 * the API's error body: the contract's one exception.
 */
const protobuf = { type: 'string', contentMediaType: 'application/x-protobuf', description: 'The protobuf encoding of the message (opentelemetry-proto).' };
const both = (schema: Json) => ({ content: { 'application/json': { schema }, 'application/x-protobuf': { schema: protobuf } } });
const status = (description: string, headers?: Json): Json => ({ description, ...(headers ? { headers } : {}), ...both(ref('OtlpStatus')) });

/** 405 on /v1/*: `Allow` as on every path, with a Status. */
export const OTLP_METHOD_NOT_ALLOWED: Json = status('The path is served with POST only; `Allow` lists its methods (gRPC code 12).', {
  Allow: { description: 'The methods of the path: `POST, OPTIONS`.', required: true, schema: { type: 'string' } },
});

const errorsOf = (what: string): Record<string, Json> => ({
  '400': status(`The body cannot be decoded (protobuf), is not OTLP/JSON of the right shape, is nested deeper than 64 levels (JSON), or holds more than 10,000 ${what} (nothing stored); or a bad Idempotency-Key (gRPC code 3).`),
  '401': status('Missing, invalid or revoked API key (gRPC code 16).'),
  '405': { $ref: '#/components/responses/OtlpMethodNotAllowed' },
  '413': status('Over 5 MiB (5,242,880 bytes) once decompressed: counted while inflating, so a gzip bomb stops there (gRPC code 8).'),
  '415': status('Content-Type other than application/x-protobuf or application/json, or a Content-Encoding other than gzip, deflate or identity (gRPC code 3).'),
  '429': status('Over the rate limit of the API key, of its application or of its organization (gRPC code 8).', retryAfter),
  '503': status('The message bus is unavailable; nothing was stored (gRPC code 14).', retryAfter),
});

const operation = (signal: 'traces' | 'logs'): Json => {
  const items = signal === 'traces' ? 'spans' : 'log records';
  const service = signal === 'traces' ? 'Trace' : 'Logs';
  return {
    summary: `OTLP/HTTP: export ${items} (an OpenTelemetry SDK or Collector)`,
    description: `Export${service}ServiceRequest as application/x-protobuf or application/json, optionally with Content-Encoding gzip or deflate. `
      + `Mapped to Lantern ${signal === 'traces' ? 'spans' : 'logs'} (docs/opentelemetry.md) and read back through the same endpoints as any other. `
      + `The ${items} that cannot be stored (bad ids, strings over 65,536 characters, nesting too deep...) are counted in partialSuccess; the others are stored. `
      + `Bounds (docs/opentelemetry.md, Limits): at most 1,000 attributes per span, event, link, resource, scope or log record, 1,000 events and 1,000 links per span, `
      + `64 KiB of text in a resource and its scope (else every item under them is rejected), 1 MiB of text in one mapped span or log record; an item past one is rejected with the reason. `
      + 'The answer, and every error (a google.rpc.Status), comes in the encoding of the request.',
    security: [{ apiKey: [] }],
    parameters: [{ name: 'Idempotency-Key', in: 'header', schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' }, description: '1-200 visible ASCII characters. A repeated key from the same application within 24 h is answered 200 and not stored again.' }],
    requestBody: { required: true, ...both(ref(signal === 'traces' ? 'OtlpTracesRequest' : 'OtlpLogsRequest')) },
    responses: { '200': { description: `Export${service}ServiceResponse: \`{}\`, or partialSuccess with how many were rejected and why.`, ...both(ref(signal === 'traces' ? 'OtlpTracesResponse' : 'OtlpLogsResponse')) }, ...errorsOf(items) },
  };
};

export const otlpPaths: Record<string, Record<string, Json>> = {
  '/v1/traces': { post: operation('traces') },
  '/v1/logs': { post: operation('logs') },
};
