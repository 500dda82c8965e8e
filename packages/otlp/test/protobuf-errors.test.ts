import { describe, expect, it } from '@jest/globals';
import { decodeLogsProtobuf, decodeTracesProtobuf, OtlpDecodeError, OtlpTooManyItemsError } from '@lantern/otlp';
import protobuf from 'protobufjs';
import { MAX_ANY_VALUE_DEPTH } from '../src/protobuf-common.js';
import { encodeMessage, wrap } from './proto-root.js';
import { logBytes, recordLogs, recordSpans, traceBytes } from './sdk-fixtures.js';

/** What a decoder did with the bytes: 'ok', or the class name of what it threw. */
function outcome(decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array): string {
  try {
    decode(bytes);
    return 'ok';
  } catch (error) {
    return error instanceof OtlpDecodeError ? 'OtlpDecodeError' : String(error);
  }
}

/** A length-delimited field's head: its tag and the length of what follows. */
const head = (field: number, length: number): Uint8Array => protobuf.Writer.create().uint32((field << 3) | 2).uint32(length).finish();

/**
 * A log request whose one record's body is an AnyValue nesting `depth` kvlists: { k: { k: ... 'leaf' } }. Written
 * as the heads of every level (lengths counted from the inside out), then the leaf: no level is copied again.
 */
function nestedKvlistRequest(depth: number): Uint8Array {
  const leaf = protobuf.Writer.create().uint32(10).string('leaf').finish(); // AnyValue { stringValue }
  const heads: Uint8Array[] = []; // innermost first
  let length = leaf.length;
  const add = (bytes: Uint8Array): void => {
    heads.push(bytes);
    length += bytes.length;
  };
  for (let i = 1; i < depth; i++) {
    add(Buffer.concat([Uint8Array.from([0x0a, 0x01, 0x6b]), head(2, length)])); // KeyValue { key: 'k', value: ... }
    add(head(1, length)); // KeyValueList { values: [...] }
    add(head(6, length)); // AnyValue { kvlistValue: ... }
  }
  for (const field of [5, 2, 2, 1]) add(head(field, length)); // body < log_records < scope_logs < resource_logs
  return Buffer.concat([...heads.reverse(), leaf]);
}

describe('undecodable protobuf -> OtlpDecodeError, never another error', () => {
  const traces = traceBytes(recordSpans());
  const logs = logBytes(recordLogs());

  it('refuses every truncation of SDK-made requests (each cut falls inside a length-delimited field)', () => {
    for (const [decode, bytes] of [[decodeTracesProtobuf, traces], [decodeLogsProtobuf, logs]] as const) {
      const outcomes = new Set<string>();
      for (let cut = 1; cut < bytes.length; cut++) outcomes.add(outcome(decode, bytes.subarray(0, cut)));
      expect([...outcomes]).toEqual(['OtlpDecodeError']);
    }
  });

  it('answers random bytes with a shape or OtlpDecodeError only', () => {
    let seed = 0x2545f491;
    const next = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 0xff;
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: 1 + (i % 200) }, next);
      for (const decode of [decodeTracesProtobuf, decodeLogsProtobuf]) {
        const result = outcome(decode, bytes);
        outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
      }
    }
    expect([...outcomes.keys()].filter((k) => k !== 'ok' && k !== 'OtlpDecodeError')).toEqual([]);
    expect(outcomes.get('OtlpDecodeError')).toBeGreaterThan(3000);
  });

  it('refuses random corruption of an SDK-made request with OtlpDecodeError only', () => {
    let seed = 7;
    const next = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let i = 0; i < 500; i++) {
      const bytes = Uint8Array.from(traces);
      for (let flips = 0; flips < 3; flips++) bytes[next(bytes.length)] = next(256);
      expect(['ok', 'OtlpDecodeError']).toContain(outcome(decodeTracesProtobuf, bytes));
    }
  });

  it('refuses a known field sent with another wire type, field number 0, and the invalid wire types 6 and 7', () => {
    const span = (bytes: number[]): Uint8Array => wrap(1, wrap(2, wrap(2, Uint8Array.from(bytes))));
    expect(outcome(decodeTracesProtobuf, span([0x08, 0x01]))).toBe('OtlpDecodeError'); // trace_id (1) as a varint
    expect(outcome(decodeTracesProtobuf, span([0x3a, 0x00]))).toBe('OtlpDecodeError'); // start time (7, fixed64) as bytes
    expect(outcome(decodeTracesProtobuf, Uint8Array.from([0x00, 0x01]))).toBe('OtlpDecodeError'); // field 0
    expect(outcome(decodeTracesProtobuf, Uint8Array.from([0x0e]))).toBe('OtlpDecodeError'); // wire type 6
    expect(outcome(decodeLogsProtobuf, Uint8Array.from([0x0f]))).toBe('OtlpDecodeError'); // wire type 7
    expect(outcome(decodeTracesProtobuf, span([0x2a, 0x05, 0x61]))).toBe('OtlpDecodeError'); // name longer than its span
  });

  it('refuses a 100,000-deep kvlist (about 1.5 MB) as OtlpDecodeError, not a stack overflow', () => {
    const bytes = nestedKvlistRequest(100_000);
    expect(bytes.length).toBeGreaterThan(1_000_000);
    expect(() => decodeLogsProtobuf(bytes)).toThrow(OtlpDecodeError);
    expect(() => decodeLogsProtobuf(bytes)).toThrow(`AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  });

  it('decodes AnyValues nested exactly to the bound and refuses one level more', () => {
    const body = (depth: number) => decodeLogsProtobuf(nestedKvlistRequest(depth)).resourceLogs![0]!.scopeLogs![0]!.logRecords![0]!.body;
    let value = body(MAX_ANY_VALUE_DEPTH);
    let levels = 1;
    while (value?.kvlistValue) {
      value = value.kvlistValue.values![0]!.value;
      levels++;
    }
    expect(levels).toBe(MAX_ANY_VALUE_DEPTH);
    expect(value).toEqual({ stringValue: 'leaf' });
    expect(() => body(MAX_ANY_VALUE_DEPTH + 1)).toThrow(OtlpDecodeError);
  });

  it('bounds nested arrays the same way', () => {
    let value: Uint8Array = encodeMessage('opentelemetry.proto.common.v1.AnyValue', { boolValue: true });
    for (let i = 1; i <= MAX_ANY_VALUE_DEPTH; i++) value = wrap(5, wrap(1, value)); // AnyValue { arrayValue { values: [value] } }
    const attribute = Buffer.concat([protobuf.Writer.create().uint32(10).string('deep').finish(), wrap(2, value)]);
    const request = wrap(1, wrap(2, wrap(2, wrap(9, attribute)))); // span attributes (9)
    expect(() => decodeTracesProtobuf(request)).toThrow(OtlpDecodeError);
    expect(() => decodeTracesProtobuf(request)).toThrow('AnyValue nested deeper than');
  });
});

describe('profiles-only string-table fields', () => {
  it('KeyValue.key_strindex (3) and AnyValue.string_value_strindex (8) are skipped, not a wrong wire type', () => {
    const anyValue = [0x40, 0x03, 0x0a, 0x01, 0x76]; // string_value_strindex = 3, stringValue 'v'
    const keyValue = [0x0a, 0x01, 0x6b, 0x18, 0x05, 0x12, anyValue.length, ...anyValue]; // key 'k', key_strindex = 5, value
    const span = [0x4a, keyValue.length, ...keyValue]; // attributes
    const scopeSpans = [0x12, span.length, ...span];
    const resourceSpans = [0x12, scopeSpans.length, ...scopeSpans];
    const request = Uint8Array.from([0x0a, resourceSpans.length, ...resourceSpans]);
    expect(decodeTracesProtobuf(request).resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0]?.attributes).toEqual([{ key: 'k', value: { stringValue: 'v' } }]);
  });
});

describe('the item bound while decoding', () => {
  const nested = (fields: number[], inner: number[]): Uint8Array => {
    let bytes = Uint8Array.from(inner);
    for (const f of fields.reverse()) bytes = Buffer.concat([head(f, bytes.length), bytes]);
    return bytes;
  };
  it('stops at the first span or log record past the bound (OtlpTooManyItemsError), and not below it', () => {
    const threeSpans = nested([1, 2], [0x12, 0x00, 0x12, 0x00, 0x12, 0x00]); // ResourceSpans > ScopeSpans > 3 empty spans
    expect(() => decodeTracesProtobuf(threeSpans, 2)).toThrow(OtlpTooManyItemsError);
    expect(decodeTracesProtobuf(threeSpans, 3).resourceSpans?.[0]?.scopeSpans?.[0]?.spans).toHaveLength(3);
    const threeRecords = nested([1, 2], [0x12, 0x00, 0x12, 0x00, 0x12, 0x00]); // ResourceLogs > ScopeLogs > 3 empty records
    expect(() => decodeLogsProtobuf(threeRecords, 2)).toThrow(OtlpTooManyItemsError);
    expect(decodeLogsProtobuf(threeRecords).resourceLogs?.[0]?.scopeLogs?.[0]?.logRecords).toHaveLength(3);
  });
  it('keeps 1,001 attributes of a holder at most (the mapping rejects it), the rest skipped', () => {
    const attrs = Array.from({ length: 5000 }, () => [0x4a, 0x00]).flat(); // a span's empty attributes
    const request = nested([1, 2, 2], attrs);
    expect(decodeTracesProtobuf(request).resourceSpans?.[0]?.scopeSpans?.[0]?.spans?.[0]?.attributes).toHaveLength(1001);
  });
});
