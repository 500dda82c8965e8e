import { describe, expect, it } from '@jest/globals';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { decodeTracesProtobuf, type OtlpSpan } from '@lantern/otlp';
import { concat, encodeMessage, UNKNOWN_FIELDS, wrap } from './proto-root.js';
import { RESOURCE_ATTRIBUTES, START_MS, recordSpans, traceBytes } from './sdk-fixtures.js';

const nanos = (ms: number): string => (BigInt(ms) * 1_000_000n).toString();
const hrNanos = ([seconds, nanoseconds]: [number, number]): string => (BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds)).toString();

describe('decodeTracesProtobuf on the OpenTelemetry JS SDK exporter output', () => {
  const spans = recordSpans();
  const request = decodeTracesProtobuf(traceBytes(spans));
  const decoded = request.resourceSpans![0]!.scopeSpans![0]!.spans!;
  const byName = (name: string): OtlpSpan => decoded.find((s) => s.name === name)!;
  const sdk = (name: string): ReadableSpan => spans.find((s) => s.name === name)!;

  it('keeps the resource and the instrumentation scope', () => {
    expect(request.resourceSpans).toHaveLength(1);
    expect(request.resourceSpans![0]!.resource!.attributes).toEqual([
      { key: 'service.name', value: { stringValue: RESOURCE_ATTRIBUTES['service.name'] } },
      { key: 'service.version', value: { stringValue: RESOURCE_ATTRIBUTES['service.version'] } },
      { key: 'process.pid', value: { intValue: '4211' } },
    ]);
    expect(request.resourceSpans![0]!.scopeSpans![0]!.scope).toMatchObject({ name: 'shop-instrumentation', version: '1.2.3' });
    expect(decoded).toHaveLength(3);
  });

  it('gives ids as lower-case hex, a root no parentSpanId, times as decimal Unix nanoseconds, enums as numbers', () => {
    const root = byName('GET /carts/:id');
    expect(root.traceId).toBe(sdk('GET /carts/:id').spanContext().traceId);
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanId).toBe(sdk('GET /carts/:id').spanContext().spanId);
    expect(root.parentSpanId).toBeUndefined();
    expect(root.kind).toBe(2);
    expect(root.startTimeUnixNano).toBe(nanos(START_MS));
    expect(root.endTimeUnixNano).toBe(nanos(START_MS + 10));
    expect(root.startTimeUnixNano).toBe(hrNanos(sdk('GET /carts/:id').startTime));
    expect(root.status).toEqual({ code: 2, message: 'boom' });
    expect(byName('priceCart').status).toMatchObject({ code: 1 });
    const client = byName('POST');
    expect(client.kind).toBe(3);
    expect(client.traceId).toBe(root.traceId);
    expect(client.parentSpanId).toBe(root.spanId);
    expect(byName('priceCart').kind).toBe(1);
  });

  it('decodes attributes of every kind the SDK sends: string, int (negative too), double, bool, arrays', () => {
    expect(byName('GET /carts/:id').attributes).toEqual([
      { key: 'http.request.method', value: { stringValue: 'GET' } },
      { key: 'url.path', value: { stringValue: '/carts/42' } },
      { key: 'http.response.status_code', value: { intValue: '500' } },
      { key: 'retry.count', value: { intValue: '-3' } },
      { key: 'cache.hit', value: { boolValue: true } },
      { key: 'load.ratio', value: { doubleValue: 0.25 } },
      { key: 'tags', value: { arrayValue: { values: [{ stringValue: 'a' }, { stringValue: 'b' }] } } },
      { key: 'ports', value: { arrayValue: { values: [{ intValue: '80' }, { intValue: '443' }] } } },
    ]);
  });

  it('decodes events with their times and attributes, and links with their ids and attributes', () => {
    const events = byName('GET /carts/:id').events!;
    expect(events.map((e) => [e.name, e.timeUnixNano])).toEqual([['cart.loaded', nanos(START_MS + 2)], ['exception', nanos(START_MS + 9)]]);
    expect(events[0]!.attributes).toEqual([{ key: 'cart.items', value: { intValue: '7' } }]);
    expect(events[1]!.attributes).toEqual(expect.arrayContaining([{ key: 'exception.type', value: { stringValue: 'BoomError' } }]));
    expect(byName('POST').links).toEqual([
      expect.objectContaining({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', attributes: [{ key: 'link.kind', value: { stringValue: 'follows' } }] }),
    ]);
    expect(byName('priceCart').events).toBeUndefined();
  });
});

describe('decodeTracesProtobuf on hand-made messages', () => {
  const SPAN = 'opentelemetry.proto.trace.v1.Span';
  const span = {
    traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'),
    spanId: Buffer.from('eee19b7ec3c1b174', 'hex'),
    parentSpanId: new Uint8Array(0),
    traceState: 'lantern=5b8efff798038103d269b633813fc60c',
    name: 'x',
    startTimeUnixNano: '18446744073709551615', // the largest fixed64
    endTimeUnixNano: '9007199254740993', // 2^53 + 1: not exact as a double
    flags: 0x301,
  };
  const request = (spanBytes: Uint8Array): Uint8Array => wrap(1, wrap(2, wrap(2, spanBytes)));

  it('reads 64-bit times exactly, leaves an empty parentSpanId out, keeps traceState and flags', () => {
    const out = decodeTracesProtobuf(request(encodeMessage(SPAN, span))).resourceSpans![0]!.scopeSpans![0]!.spans![0]!;
    expect(out).toEqual({
      traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', traceState: span.traceState, name: 'x',
      startTimeUnixNano: '18446744073709551615', endTimeUnixNano: '9007199254740993', flags: 0x301,
    });
  });

  it('skips unknown fields of every wire type at every level', () => {
    const plain = decodeTracesProtobuf(request(encodeMessage(SPAN, span)));
    const spanWithUnknown = concat(UNKNOWN_FIELDS, encodeMessage(SPAN, span), UNKNOWN_FIELDS);
    const bytes = concat(UNKNOWN_FIELDS, wrap(1, concat(UNKNOWN_FIELDS, wrap(2, concat(wrap(2, spanWithUnknown), UNKNOWN_FIELDS)))));
    expect(decodeTracesProtobuf(bytes)).toEqual(plain);
  });

  it('decodes an empty body as an empty request', () => {
    expect(decodeTracesProtobuf(new Uint8Array(0))).toEqual({});
  });
});
