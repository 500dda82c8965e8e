import { describe, expect, it } from '@jest/globals';
import {
  clampWindow, describeRange, isRangeName, parseRange, RANGES, rangeParams, rangeToQuery, resolveRange,
} from '../src/lib/time-range';

const NOW = Date.parse('2026-11-22T10:43:34.123Z');
const params = (s: string) => new URLSearchParams(s);

describe('RANGES', () => {
  it('lists every named range once, with a label, shortest first and "all" last', () => {
    expect(RANGES.map((r) => r.name)).toEqual(['15m', '1h', '6h', '24h', '7d', 'all']);
    for (const r of RANGES) expect(r.label).toBeTruthy();
    const lengths = RANGES.flatMap((r) => (r.ms === undefined ? [] : [r.ms]));
    expect([...lengths].sort((a, b) => a - b)).toEqual(lengths);
  });

  it('knows its names', () => {
    expect(isRangeName('1h')).toBe(true);
    expect(isRangeName('2h')).toBe(false);
    expect(isRangeName(undefined)).toBe(false);
  });
});

describe('rangeToQuery', () => {
  it('ends a named range at now', () => {
    expect(rangeToQuery('15m', NOW)).toEqual({ from: '2026-11-22T10:28:34.123Z', to: '2026-11-22T10:43:34.123Z' });
    expect(rangeToQuery('1h', NOW)).toEqual({ from: '2026-11-22T09:43:34.123Z', to: '2026-11-22T10:43:34.123Z' });
    expect(rangeToQuery('6h', new Date(NOW)).from).toBe('2026-11-22T04:43:34.123Z');
    expect(rangeToQuery('24h', NOW).from).toBe('2026-11-21T10:43:34.123Z');
    expect(rangeToQuery('7d', NOW).from).toBe('2026-11-15T10:43:34.123Z');
  });

  it('leaves "all" unbounded', () => {
    expect(rangeToQuery('all', NOW)).toEqual({});
  });
});

describe('parseRange and rangeParams', () => {
  it('reads a named range, or the fallback for none or an unknown one', () => {
    expect(parseRange(params('range=6h'))).toEqual({ name: '6h' });
    expect(parseRange(params(''))).toEqual({ name: '1h' });
    expect(parseRange(params(''), 'all')).toEqual({ name: 'all' });
    expect(parseRange(params('range=3y'), '24h')).toEqual({ name: '24h' });
  });

  it('reads a fixed window, normalised to UTC, in preference to a name', () => {
    expect(parseRange(params('range=1h&from=2026-11-22T10:00:00%2B01:00&to=2026-11-22T10:30:00Z'))).toEqual({
      name: 'custom', from: '2026-11-22T09:00:00.000Z', to: '2026-11-22T10:30:00.000Z',
    });
    expect(parseRange(params('from=2026-11-22T10:00:00Z'))).toEqual({ name: 'custom', from: '2026-11-22T10:00:00.000Z' });
    expect(parseRange(params('to=2026-11-22T10:00:00.5Z'))).toEqual({ name: 'custom', to: '2026-11-22T10:00:00.500Z' });
  });

  it('ignores bounds that are not zoned date-times, and a window that ends before it starts', () => {
    expect(parseRange(params('from=yesterday&range=15m'))).toEqual({ name: '15m' });
    expect(parseRange(params('from=2026-11-22'))).toEqual({ name: '1h' });
    expect(parseRange(params('from=2026-11-22T10:00:00'))).toEqual({ name: '1h' });
    expect(parseRange(params('from=2026-11-22T11:00:00Z&to=2026-11-22T10:00:00Z'))).toEqual({ name: '1h' });
    expect(parseRange(params('from=2026-11-22T10:00:00Z&to=2026-11-22T10:00:00Z'))).toEqual({ name: '1h' });
  });

  it('writes params that parse back to the same range, clearing the other form', () => {
    const custom = { name: 'custom' as const, from: '2026-11-22T09:00:00.000Z', to: '2026-11-22T10:00:00.000Z' };
    expect(rangeParams({ name: '7d' })).toEqual({ range: '7d', from: undefined, to: undefined });
    expect(rangeParams(custom)).toEqual({ range: undefined, from: custom.from, to: custom.to });
    for (const range of [{ name: '7d' as const }, custom]) {
      const search = new URLSearchParams();
      for (const [k, v] of Object.entries(rangeParams(range))) if (v) search.set(k, v);
      expect(parseRange(search)).toEqual(range);
    }
  });
});

describe('resolveRange', () => {
  it('resolves a named range at now and a fixed window as it is', () => {
    expect(resolveRange({ name: '1h' }, NOW)).toEqual(rangeToQuery('1h', NOW));
    expect(resolveRange({ name: 'all' }, NOW)).toEqual({});
    expect(resolveRange({ name: 'custom', from: '2026-11-22T09:00:00.000Z' }, NOW)).toEqual({ from: '2026-11-22T09:00:00.000Z' });
  });
});

describe('clampWindow', () => {
  const DAY = 86_400_000;
  it('bounds an open or too long window to the maximum, ending at now by default', () => {
    expect(clampWindow({}, 31 * DAY, NOW)).toEqual({ from: '2026-10-22T10:43:34.123Z', to: '2026-11-22T10:43:34.123Z' });
    expect(clampWindow({ from: '2020-01-01T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' }, DAY, NOW))
      .toEqual({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T00:00:00.000Z' });
  });

  it('keeps a window within the maximum', () => {
    const q = { from: '2026-11-22T09:00:00.000Z', to: '2026-11-22T10:00:00.000Z' };
    expect(clampWindow(q, DAY, NOW)).toEqual(q);
  });
});

describe('describeRange', () => {
  it('describes named and fixed ranges', () => {
    expect(describeRange({ name: '1h' })).toBe('the last hour');
    expect(describeRange({ name: 'all' })).toBe('all time');
    expect(describeRange({ name: 'custom', from: 'A', to: 'B' })).toBe('A to B');
    expect(describeRange({ name: 'custom', from: 'A' })).toBe('since A');
    expect(describeRange({ name: 'custom', to: 'B' })).toBe('before B');
  });
});
