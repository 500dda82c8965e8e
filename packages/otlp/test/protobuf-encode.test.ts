import { describe, expect, it } from '@jest/globals';
import { encodeExportResponse, encodeStatus } from '@lantern/otlp';
import { protoType } from './proto-root.js';

const decode = (name: string, bytes: Uint8Array | string): Record<string, unknown> => {
  expect(bytes).toBeInstanceOf(Uint8Array);
  const type = protoType(name);
  return type.toObject(type.decode(bytes as Uint8Array), { longs: String, defaults: false }) as Record<string, unknown>;
};
const TRACES = 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse';
const LOGS = 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse';

describe('encodeExportResponse', () => {
  it('encodes a partial success in protobuf that protobufjs reflection decodes back', () => {
    expect(decode(TRACES, encodeExportResponse('traces', 'protobuf', { rejected: 3, errorMessage: 'spanId not 16 hex digits' }))).toEqual({
      partialSuccess: { rejectedSpans: '3', errorMessage: 'spanId not 16 hex digits' },
    });
    expect(decode(LOGS, encodeExportResponse('logs', 'protobuf', { rejected: 5_000_000_000, errorMessage: 'x' }))).toEqual({
      partialSuccess: { rejectedLogRecords: '5000000000', errorMessage: 'x' },
    });
  });

  it('answers the empty message when nothing was rejected: no bytes, {} in JSON', () => {
    expect(encodeExportResponse('traces', 'protobuf')).toHaveLength(0);
    expect(encodeExportResponse('logs', 'protobuf', { rejected: 0, errorMessage: '' })).toHaveLength(0);
    expect(decode(TRACES, encodeExportResponse('traces', 'protobuf'))).toEqual({});
    expect(encodeExportResponse('traces', 'json')).toBe('{}');
    expect(encodeExportResponse('logs', 'json', { rejected: 0, errorMessage: '' })).toBe('{}');
  });

  it('spells the JSON partial success as proto3 JSON: int64 as a decimal string, per signal', () => {
    expect(encodeExportResponse('traces', 'json', { rejected: 3, errorMessage: 'bad "ids"' })).toBe('{"partialSuccess":{"rejectedSpans":"3","errorMessage":"bad \\"ids\\""}}');
    expect(JSON.parse(encodeExportResponse('logs', 'json', { rejected: 2, errorMessage: 'e' }) as string)).toEqual({ partialSuccess: { rejectedLogRecords: '2', errorMessage: 'e' } });
    // A warning without rejections (OTLP allows it): the message alone.
    expect(encodeExportResponse('logs', 'json', { rejected: 0, errorMessage: 'w' })).toBe('{"partialSuccess":{"errorMessage":"w"}}');
  });
});

describe('encodeStatus', () => {
  it('encodes google.rpc.Status in protobuf that protobufjs reflection decodes back', () => {
    expect(decode('google.rpc.Status', encodeStatus('protobuf', { code: 3, message: 'undecodable ExportTraceServiceRequest' }))).toEqual({
      code: 3,
      message: 'undecodable ExportTraceServiceRequest',
    });
    expect(decode('google.rpc.Status', encodeStatus('protobuf', { code: 16, message: 'ünïcode ✓' }))).toEqual({ code: 16, message: 'ünïcode ✓' });
  });

  it('spells the JSON Status with code, message and an empty details list', () => {
    expect(encodeStatus('json', { code: 8, message: 'rate limited' })).toBe('{"code":8,"message":"rate limited","details":[]}');
  });
});
