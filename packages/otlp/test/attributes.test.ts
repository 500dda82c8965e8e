import { describe, expect, it } from '@jest/globals';
import { mapTraces, type OtlpAnyValue } from '../src/index.js';

const valueOf = (value: OtlpAnyValue | undefined) => {
  const m = mapTraces({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), startTimeUnixNano: '1', attributes: [{ key: 'k.x', ...(value === undefined ? {} : { value }) }] }] }] }] });
  if (m.rejected.length > 0) return { rejected: m.rejected[0] };
  return (m.items[0]!['attributes'] as Array<{ key: string; value: unknown }>)[0]!.value;
};

describe('attributes: plain JSON values under their dotted keys', () => {
  it.each<[string, OtlpAnyValue | undefined, unknown]>([
    ['a string', { stringValue: 'v' }, 'v'],
    ['an empty string', { stringValue: '' }, ''],
    ['a boolean', { boolValue: false }, false],
    ['a safe int as text', { intValue: '42' }, 42],
    ['a negative int', { intValue: -7 }, -7],
    ['an int past 2^53 as its text', { intValue: '9007199254740993' }, '9007199254740993'],
    ['a double', { doubleValue: 1.5 }, 1.5],
    ['NaN as text', { doubleValue: 'NaN' }, 'NaN'],
    ['a double as numeric text (proto3 JSON)', { doubleValue: '1.5' }, 1.5],
    ['a double as exponent text', { doubleValue: '-2e3' }, -2000],
    ['Infinity as text', { doubleValue: 'Infinity' }, 'Infinity'],
    ['a non-finite number', { doubleValue: Number.NEGATIVE_INFINITY }, '-Infinity'],
    ['bytes as base64', { bytesValue: 'AQID' }, 'AQID'],
    ['an array', { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 1 }, {}] } }, ['a', 1, null]],
    ['an empty array', { arrayValue: {} }, []],
    ['a kvlist as pairs', { kvlistValue: { values: [{ key: 'a.b', value: { boolValue: true } }, { key: 'c' }] } }, [{ key: 'a.b', value: true }, { key: 'c', value: null }]],
    ['an empty AnyValue', {}, null],
    ['no value', undefined, null],
  ])('%s', (_label, value, expected) => {
    expect(valueOf(value)).toEqual(expected);
  });
  it('a value nested past 32 levels rejects its span', () => {
    let v: OtlpAnyValue = { stringValue: 'deep' };
    for (let i = 0; i < 40; i++) v = { arrayValue: { values: [v] } };
    expect(valueOf(v)).toEqual({ rejected: expect.stringContaining('nested deeper') });
  });
  it('a resource attribute nested too deep rejects every span under it', () => {
    let v: OtlpAnyValue = { stringValue: 'deep' };
    for (let i = 0; i < 40; i++) v = { kvlistValue: { values: [{ key: 'k', value: v }] } };
    const span = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), startTimeUnixNano: '1' };
    const m = mapTraces({ resourceSpans: [{ resource: { attributes: [{ key: 'r', value: v }] }, scopeSpans: [{ spans: [span, span] }] }] });
    expect(m.items).toEqual([]);
    expect(m.rejected).toHaveLength(2);
  });
});
