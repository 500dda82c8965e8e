import { describe, expect, it } from '@jest/globals';
import { decodeTracesProtobuf, mapTraces, mapTracesProtobuf, OtlpDecodeError, OtlpTooManyItemsError } from '@lantern/otlp';
import { concat, encodeMessage, wrap } from './proto-root.js';
import { recordSpans, traceBytes } from './sdk-fixtures.js';

/**
 * mapTracesProtobuf decodes spans straight into what the mapping reads: it must give exactly what mapTraces gives for
 * decodeTracesProtobuf's OTLP/JSON shape, items, reasons and errors alike.
 */
const reference = (bytes: Uint8Array, max?: number) => mapTraces(decodeTracesProtobuf(bytes, max));

/** What a function gave: its value, or the class and message of what it threw. */
function outcome(fn: () => unknown): unknown {
  try {
    return { value: fn() };
  } catch (error) {
    return { threw: error instanceof OtlpTooManyItemsError ? 'too many' : error instanceof OtlpDecodeError ? 'decode' : String(error), message: (error as Error).message };
  }
}

/** mulberry32: the same values on every run. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const ANY = 'opentelemetry.proto.common.v1.AnyValue';
const KEY_VALUE = 'opentelemetry.proto.common.v1.KeyValue';
const SPAN = 'opentelemetry.proto.trace.v1.Span';
const KEYS = ['http.request.method', 'http.method', 'server.address', 'url.full', 'http.url', 'net.peer.name', 'peer.service', 'url.path',
  'url.query', 'http.target', 'http.response.status_code', 'http.status_code', 'k', ''];

/** A request of random spans: every kind of value, nesting past both bounds' edges, repeated keys and oneof fields, bad ids and times. */
function randomRequest(seed: number): Uint8Array {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[next(xs.length)]!;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => next(256)));

  const scalar = (): Uint8Array => encodeMessage(ANY, pick([
    { stringValue: pick(['GET', '', '404', ' 201 ', '12x', 'payments-api', '/a?b=c', 'x'.repeat(1 + next(40))]) },
    { boolValue: next(2) === 1 },
    { intValue: pick([0, 200, -5, 503, '9007199254740993', '-9223372036854775808', 599]) },
    { doubleValue: pick([1.5, 404, Number.NaN, Number.POSITIVE_INFINITY, -0, 1e300]) },
    { bytesValue: bytes(next(5)) },
    { bytesValue: Buffer.from('d38d38', 'hex') }, // base64 "0404": not a status code
    {},
    { stringValue: '200' },
  ]));
  /** An AnyValue's bytes; `depth` levels of arrays and kvlists above a scalar. */
  const anyValue = (depth: number): Uint8Array => {
    let value: Uint8Array;
    if (depth === 0) value = scalar();
    else if (next(2)) value = wrap(5, concat(...Array.from({ length: depth > 2 ? 1 : 1 + next(2) }, () => wrap(1, anyValue(depth - 1)))));
    else value = wrap(6, wrap(1, keyValue(depth - 1)));
    // Two oneof fields in one AnyValue, a scalar before or after: the last one counts.
    const twice = next(8);
    return twice === 0 ? concat(value, scalar()) : twice === 1 ? concat(scalar(), value) : value;
  };
  const deep = () => (next(4) === 0 ? 12 + next(24) : next(3));
  const keyValue = (depth: number): Uint8Array => {
    const key = encodeMessage(KEY_VALUE, { key: pick(KEYS) });
    if (next(10) === 0) return key; // no value
    const value = concat(key, wrap(2, anyValue(depth)));
    return next(10) === 0 ? concat(value, wrap(2, anyValue(next(2)))) : value; // a second value: the last counts
  };
  const attributes = () => {
    const n = next(40) === 0 ? 998 + next(5) : next(7);
    return concat(...Array.from({ length: n }, () => wrap(9, keyValue(n > 100 ? 0 : deep()))));
  };
  const valid = <T>(good: T, bad: T[]): T => (next(6) ? good : pick(bad));

  const span = (): Uint8Array => {
    const fields: Record<string, unknown> = {
      traceId: valid(bytes(16), [Buffer.alloc(16), bytes(15), Buffer.alloc(0)]),
      spanId: valid(bytes(8), [Buffer.alloc(8), bytes(9)]),
      name: pick(['GET', 'SELECT\nusers', '', 'x'.repeat(1100)]),
      kind: next(7),
      startTimeUnixNano: valid('1764130000123456789', ['0', '18446744073709551615', '999999', '8640000000000000000']),
      endTimeUnixNano: pick(['1764130000223456789', '1764130000000000000', '0', '1764130000123956789']),
    };
    if (next(2)) fields['parentSpanId'] = valid(bytes(8), [Buffer.alloc(8), bytes(3)]);
    if (next(4) === 0) fields['traceState'] = pick(['lantern=5b8efff798038103d269b633813fc60c', 'a=b, lantern=0123456789abcdef0123456789abcdef', 'x=y']);
    if (next(3) === 0) fields['status'] = { code: next(4), message: pick(['', 'boom']) };
    if (next(5) === 0) fields['events'] = Array.from({ length: next(3) }, () => ({ name: 'exception', timeUnixNano: pick(['0', '1764130000123456789']) }));
    if (next(6) === 0) fields['links'] = [{ traceId: pick([bytes(16), Buffer.alloc(16)]), spanId: bytes(8), traceState: 'k=v' }];
    if (next(8) === 0) fields['droppedAttributesCount'] = 3;
    if (next(8) === 0) fields['flags'] = 0x301;
    const head = encodeMessage(SPAN, fields);
    // Attributes before, between or after the other fields (a message's fields may come in any order).
    return pick([concat(head, attributes()), concat(attributes(), head), concat(attributes(), head, attributes())]);
  };

  const resource = wrap(1, concat(...Array.from({ length: next(3) }, () => wrap(1, keyValue(0)))));
  const scopes = Array.from({ length: 1 + next(2) }, () => wrap(2, concat(
    next(2) ? wrap(1, encodeMessage('opentelemetry.proto.common.v1.InstrumentationScope', { name: pick(['http', '']), version: '1' })) : new Uint8Array(0),
    ...Array.from({ length: next(4) }, () => wrap(2, span())),
  )));
  return wrap(1, concat(resource, ...scopes));
}

describe('mapTracesProtobuf: spans decoded straight into the mapping', () => {
  it('gives what mapTraces of the decoded shape gives, on the OpenTelemetry JS SDK exporter output', () => {
    const bytes = traceBytes(recordSpans());
    const mapped = mapTracesProtobuf(bytes);
    expect(mapped.items.length).toBeGreaterThanOrEqual(3);
    expect(mapped).toStrictEqual(reference(bytes));
  });

  it('gives the same items and reasons on 400 random requests of every kind of value and fault', () => {
    const reasons = new Set<string>();
    let items = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const bytes = randomRequest(seed);
      const expected = outcome(() => reference(bytes));
      expect([seed, outcome(() => mapTracesProtobuf(bytes))]).toStrictEqual([seed, expected]);
      const value = (expected as { value?: { items: unknown[]; rejected: string[] } }).value;
      items += value?.items.length ?? 0;
      for (const reason of value?.rejected ?? []) reasons.add(reason.replace(/[0-9]+/g, 'N'));
    }
    // The requests reached the mapping's reasons, not only its happy path.
    expect(items).toBeGreaterThan(100);
    expect([...reasons]).toEqual(expect.arrayContaining([
      'traceId must be N hex digits', 'traceId must not be all zeros', 'spanId must be N hex digits',
      'startTimeUnixNano is required (a whole number of nanoseconds, not N)', 'an attribute value is nested deeper than N levels',
      'the span has more than N attributes',
    ]));
  });

  it('draws the nesting bounds and the last of repeated fields where the decoded shape does', () => {
    const leaf = encodeMessage(ANY, { stringValue: 'leaf' });
    const arrays = (levels: number, inner = leaf): Uint8Array => (levels === 0 ? inner : wrap(5, wrap(1, arrays(levels - 1, inner))));
    const kvlists = (levels: number): Uint8Array => (levels === 0 ? leaf : wrap(6, wrap(1, concat(encodeMessage(KEY_VALUE, { key: 'k' }), wrap(2, kvlists(levels - 1))))));
    const attribute = (...values: Uint8Array[]) => wrap(9, concat(encodeMessage(KEY_VALUE, { key: 'k' }), ...values.map((v) => wrap(2, v))));
    const spanWith = (...fields: Uint8Array[]) => wrap(1, wrap(2, wrap(2, concat(encodeMessage(SPAN, {
      traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'), spanId: Buffer.from('eee19b7ec3c1b174', 'hex'), name: 'x',
      startTimeUnixNano: '1764130000123456789',
    }), ...fields))));
    const cases: Array<[string, Uint8Array, boolean]> = [
      // plainValue's bound (32): an array level adds one, a kvlist level two, the attribute's value is at 1.
      ['31 arrays', spanWith(attribute(arrays(31))), true],
      ['32 arrays', spanWith(attribute(arrays(32))), false],
      ['15 kvlists', spanWith(attribute(kvlists(15))), true],
      ['16 kvlists', spanWith(attribute(kvlists(16))), false],
      // The last value of a KeyValue, and the last oneof field of an AnyValue, count alone.
      ['a deep value, then a flat one', spanWith(attribute(arrays(40), leaf)), true],
      ['a flat value, then a deep one', spanWith(attribute(leaf, arrays(40))), false],
      ['a deep array, then a flat array', spanWith(attribute(concat(arrays(40), arrays(1)))), true],
      ['a deep array, then a string', spanWith(attribute(concat(arrays(40), leaf))), true],
      ['a string, then a deep array', spanWith(attribute(concat(leaf, arrays(40)))), false],
      ['a deep kvlist inside an array, then a string', spanWith(attribute(arrays(2, concat(kvlists(20), leaf)))), true],
      ['a kvlist entry of a deep value, then a flat one', spanWith(attribute(wrap(6, wrap(1, concat(encodeMessage(KEY_VALUE, { key: 'k' }), wrap(2, arrays(40)), wrap(2, leaf)))))), true],
    ];
    for (const [name, bytes, kept] of cases) {
      const mapped = mapTracesProtobuf(bytes);
      expect([name, mapped]).toStrictEqual([name, reference(bytes)]);
      expect([name, mapped.items.length]).toEqual([name, kept ? 1 : 0]);
    }
  });

  it('fails as the decoder does on cut and corrupted bytes, and at the span bound', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const bytes = randomRequest(seed);
      const next = random(seed);
      const cut = bytes.subarray(0, next(bytes.length));
      const flipped = Buffer.from(bytes);
      const at = next(bytes.length);
      flipped[at] = flipped[at]! ^ (1 << next(8));
      for (const variant of [cut, flipped]) {
        expect([seed, outcome(() => mapTracesProtobuf(variant))]).toStrictEqual([seed, outcome(() => reference(variant))]);
      }
      expect([seed, outcome(() => mapTracesProtobuf(bytes, 2))]).toStrictEqual([seed, outcome(() => reference(bytes, 2))]);
    }
  });
});
