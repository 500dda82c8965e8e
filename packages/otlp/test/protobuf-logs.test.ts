import { describe, expect, it } from '@jest/globals';
import { decodeLogsProtobuf } from '@lantern/otlp';
import { concat, encodeMessage, UNKNOWN_FIELDS, wrap } from './proto-root.js';
import { LOG_BODIES, SPAN_CONTEXT, START_MS, logBytes, recordLogs } from './sdk-fixtures.js';

const nanos = (ms: number): string => (BigInt(ms) * 1_000_000n).toString();

describe('decodeLogsProtobuf on the OpenTelemetry JS SDK exporter output', () => {
  const request = decodeLogsProtobuf(logBytes(recordLogs()));
  const scopeLogs = request.resourceLogs![0]!.scopeLogs![0]!;
  const records = scopeLogs.logRecords!;

  it('keeps the resource, the scope and every record', () => {
    expect(request.resourceLogs![0]!.resource!.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'checkout' } });
    expect(scopeLogs.scope).toMatchObject({ name: 'shop-logger', version: '0.9.0' });
    expect(records).toHaveLength(LOG_BODIES.length);
  });

  it('decodes times, severity number and text, attributes, and the trace context of a record inside a span', () => {
    expect(records[0]).toMatchObject({
      timeUnixNano: nanos(START_MS),
      observedTimeUnixNano: nanos(START_MS + 1),
      severityNumber: 13,
      severityText: 'WARN',
      traceId: SPAN_CONTEXT.traceId,
      spanId: SPAN_CONTEXT.spanId,
      flags: 1,
      attributes: [{ key: 'order.id', value: { intValue: '42' } }],
    });
    expect(records[1]).toMatchObject({ severityNumber: 9, severityText: 'INFO' });
    expect(records[1]!.traceId).toBeUndefined();
    expect(records[1]!.spanId).toBeUndefined();
  });

  it('decodes bodies of every AnyValue kind: string, kvlist, array, bytes (base64), int, double, bool', () => {
    expect(records.map((r) => r.body)).toEqual([
      { stringValue: 'order placed' },
      { kvlistValue: { values: [
        { key: 'orderId', value: { intValue: '42' } },
        { key: 'paid', value: { boolValue: true } },
        { key: 'lines', value: { arrayValue: { values: [{ stringValue: 'x' }, { stringValue: 'y' }] } } },
      ] } },
      { arrayValue: { values: [{ stringValue: 'queued' }, { intValue: '3' }] } },
      { bytesValue: Buffer.from([0xde, 0xad, 0xbe, 0xef]).toString('base64') },
      { intValue: '1234' },
      { doubleValue: 2.5 },
      { boolValue: false },
    ]);
  });
});

describe('decodeLogsProtobuf on hand-made messages', () => {
  const LOG = 'opentelemetry.proto.logs.v1.LogRecord';
  const request = (record: Uint8Array): Uint8Array => wrap(1, wrap(2, wrap(2, record)));
  const only = (bytes: Uint8Array) => decodeLogsProtobuf(bytes).resourceLogs![0]!.scopeLogs![0]!.logRecords![0]!;

  it('keeps empty bytes and empty values as such, event names, and the int64 extremes exactly', () => {
    const record = encodeMessage(LOG, {
      eventName: 'order.placed',
      body: { kvlistValue: { values: [
        { key: 'empty-bytes', value: { bytesValue: new Uint8Array(0) } },
        { key: 'no-value' },
        { key: 'empty-value', value: {} },
        { key: 'min', value: { intValue: '-9223372036854775808' } },
        { key: 'max', value: { intValue: '9223372036854775807' } },
        { key: 'minus-one', value: { intValue: '-1' } },
        { key: 'nan', value: { doubleValue: Number.NaN } },
      ] } },
      traceId: new Uint8Array(0),
    });
    expect(only(request(record))).toEqual({
      eventName: 'order.placed',
      body: { kvlistValue: { values: [
        { key: 'empty-bytes', value: { bytesValue: '' } },
        { key: 'no-value' },
        { key: 'empty-value', value: {} },
        { key: 'min', value: { intValue: '-9223372036854775808' } },
        { key: 'max', value: { intValue: '9223372036854775807' } },
        { key: 'minus-one', value: { intValue: '-1' } },
        { key: 'nan', value: { doubleValue: Number.NaN } },
      ] } },
    });
  });

  it('skips unknown fields of every wire type, inside AnyValues too', () => {
    const record = { severityNumber: 17, body: { stringValue: 'x' } };
    const plain = only(request(encodeMessage(LOG, record)));
    const body = concat(UNKNOWN_FIELDS, encodeMessage('opentelemetry.proto.common.v1.AnyValue', record.body), UNKNOWN_FIELDS);
    const withUnknown = concat(UNKNOWN_FIELDS, encodeMessage(LOG, { severityNumber: 17 }), wrap(5, body));
    expect(only(request(withUnknown))).toEqual(plain);
    expect(plain).toEqual({ severityNumber: 17, body: { stringValue: 'x' } });
  });
});
