import { errors, firstErrorValidatorFor, limits, schemas } from '@lantern/domain';
import { nestedDeeperThan } from '@lantern/http';
import {
  decodeLogsProtobuf, mapLogs, type Mapped, mapTraces, mapTracesProtobuf, OtlpDecodeError, type OtlpEncoding, type OtlpLogsRequest, OtlpTooManyItemsError,
  type OtlpTracesRequest,
} from '@lantern/otlp';

const tracesJson: JsonShape<OtlpTracesRequest> = {
  validator: firstErrorValidatorFor<OtlpTracesRequest>(schemas.otlp.otlpTracesRequest.$id), items: ['resourceSpans', 'scopeSpans', 'spans'], itemsName: 'spans',
};
const logsJson: JsonShape<OtlpLogsRequest> = {
  validator: firstErrorValidatorFor<OtlpLogsRequest>(schemas.otlp.otlpLogsRequest.$id), items: ['resourceLogs', 'scopeLogs', 'logRecords'], itemsName: 'log records',
};

/** The 400 of a request over limits.maxBatchItems spans or log records (`count` may read "more than 10000"). */
export function tooManyItems(count: number | string, what: string): Error {
  return errors.validation(`The request holds ${count} ${what}; at most ${limits.maxBatchItems} are accepted in one request. Nothing was stored.`, [{ maxItems: limits.maxBatchItems }]);
}

/** The length of the arrays at `path` under `value` (resourceSpans > scopeSpans > spans), before any validation. */
function countAt(value: unknown, path: readonly string[], level = 0): number {
  const list = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[path[level]!] : undefined;
  if (!Array.isArray(list)) return 0;
  if (level === path.length - 1) return list.length;
  let n = 0;
  for (const item of list) n += countAt(item, path, level + 1);
  return n;
}

interface JsonShape<T> {
  validator: { assert(value: unknown, what?: string): T };
  items: readonly string[];
  itemsName: string;
}

/**
 * OTLP/JSON: the raw-bytes depth scan first (nothing deeper than limits.maxJsonDepth reaches JSON.parse), then
 * JSON.parse, then the schema of the request's shape (stopping at its first error: linear time however many items
 * are invalid). Each failure is 400, nothing stored. The items are counted by a cheap walk before the schema runs:
 * over limits.maxBatchItems is the 400 at once.
 */
function parseJson<T>(body: Buffer, shape: JsonShape<T>, what: string): T {
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
  const count = countAt(value, shape.items);
  if (count > limits.maxBatchItems) throw tooManyItems(count, shape.itemsName);
  return shape.validator.assert(value, what);
}

/** Protobuf: an undecodable body (truncated, a wrong wire type, nesting past the decoder's bound) is 400. */
function parseProtobuf<T>(body: Buffer, decode: (bytes: Uint8Array, maxItems: number) => T, what: string, itemsName: string): T {
  try {
    return decode(body, limits.maxBatchItems);
  } catch (err) {
    if (err instanceof OtlpTooManyItemsError) throw tooManyItems(`more than ${err.max}`, itemsName);
    if (err instanceof OtlpDecodeError) throw errors.validation(`The ${what} cannot be decoded as protobuf: ${err.message}`);
    throw err;
  }
}

export interface OtlpReaders {
  /** An export's spans, decoded and mapped (@lantern/otlp); the time is the request's. */
  traces(body: Buffer, encoding: OtlpEncoding, now: string): Mapped;
  logs(body: Buffer, encoding: OtlpEncoding, now: string): Mapped;
}

/**
 * The two encodings to the mapped items. Protobuf spans are decoded straight into what the mapping reads
 * (mapTracesProtobuf: the same items and reasons as mapTraces of the OTLP/JSON shape); JSON and protobuf logs go
 * through the one shape (@lantern/otlp shape.ts).
 */
export const otlpReaders: OtlpReaders = {
  traces: (body, encoding) => (encoding === 'json'
    ? mapTraces(parseJson(body, tracesJson, 'ExportTraceServiceRequest'))
    : parseProtobuf(body, mapTracesProtobuf, 'ExportTraceServiceRequest', 'spans')),
  logs: (body, encoding, now) => mapLogs(encoding === 'json'
    ? parseJson(body, logsJson, 'ExportLogsServiceRequest')
    : parseProtobuf(body, decodeLogsProtobuf, 'ExportLogsServiceRequest', 'log records'), now),
};
