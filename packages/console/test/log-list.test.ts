import { describe, expect, it } from '@jest/globals';
import { isLogLevel, levelsParam, LOG_LEVELS, mergeLogs, newestFirst, olderThan, parseLevels, tailFrom } from '../src/lib/log-list';

const T = Date.parse('2026-11-22T10:00:00.000Z');
const log = (id: string, offsetMs: number, message = id) => ({ id, timestamp: new Date(T + offsetMs).toISOString(), message });
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

describe('levels', () => {
  it('are the contract levels, lowest first', () => {
    expect(LOG_LEVELS).toEqual(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
    expect(isLogLevel('warn')).toBe(true);
    expect(isLogLevel('warning')).toBe(false);
    expect(isLogLevel(null)).toBe(false);
  });
});

describe('newestFirst', () => {
  it('orders by timestamp then id, both descending', () => {
    const rows = [log('a', 0), log('c', 1000), log('b', 1000), log('d', -5)];
    expect(ids([...rows].sort(newestFirst))).toEqual(['c', 'b', 'a', 'd']);
  });
});

describe('mergeLogs', () => {
  it('prepends newer logs and skips the ones already shown', () => {
    const rows = [log('b', 1000), log('a', 0)];
    const m = mergeLogs(rows, [log('d', 3000), log('c', 2000), log('b', 1000)], 100);
    expect(ids(m.rows)).toEqual(['d', 'c', 'b', 'a']);
    expect(m.added).toBe(2);
    expect(m.dropped).toBe(0);
  });

  it('places a late log where it belongs', () => {
    const m = mergeLogs([log('c', 2000), log('a', 0)], [log('b', 1000)], 100);
    expect(ids(m.rows)).toEqual(['c', 'b', 'a']);
  });

  it('appends older logs (Load more)', () => {
    const m = mergeLogs([log('d', 3000), log('c', 2000)], [log('b', 1000), log('a', 0)], 100);
    expect(ids(m.rows)).toEqual(['d', 'c', 'b', 'a']);
  });

  it('cuts the oldest rows beyond the cap and says how many', () => {
    const m = mergeLogs([log('b', 1000), log('a', 0)], [log('d', 3000), log('c', 2000)], 3);
    expect(ids(m.rows)).toEqual(['d', 'c', 'b']);
    expect(m.dropped).toBe(1);
  });

  it('keeps the list as it was when nothing is new, and takes the incoming copy of a known id', () => {
    const rows = [log('b', 1000), log('a', 0)];
    const m = mergeLogs(rows, [log('a', 0, 'updated')], 10);
    expect(m.added).toBe(0);
    expect(ids(m.rows)).toEqual(['b', 'a']);
    expect(m.rows[1]!.message).toBe('updated');
    expect(mergeLogs([], [], 10)).toEqual({ rows: [], added: 0, dropped: 0 });
  });

  it('de-duplicates ids within one incoming page', () => {
    expect(ids(mergeLogs([], [log('a', 0), log('a', 0)], 10).rows)).toEqual(['a']);
  });
});

describe('tailFrom', () => {
  const now = T + 60_000;

  it('starts a little before the newest row', () => {
    expect(tailFrom([log('b', 10_000), log('a', 0)], undefined, now)).toBe('2026-11-22T10:00:05.000Z');
  });

  it('starts a little before a row of this very millisecond', () => {
    expect(tailFrom([log('a', 60_000)], undefined, now)).toBe('2026-11-22T10:00:55.000Z');
  });

  it('skips a future-dated log (a client clock an hour fast) and follows the newest real one', () => {
    const rows = [log('future', 3_600_000), log('b', 10_000), log('a', 0)];
    expect(tailFrom(rows, undefined, now)).toBe('2026-11-22T10:00:05.000Z');
    // As real logs come in, the tail moves with them, not with the future log.
    const later = T + 120_000;
    expect(tailFrom([log('future', 3_600_000), log('c', 119_000), ...rows.slice(1)], undefined, later)).toBe('2026-11-22T10:01:54.000Z');
  });

  it('starts a little before now when every row is in the future', () => {
    expect(tailFrom([log('f2', 7_200_000), log('f1', 3_600_000)], undefined, now)).toBe('2026-11-22T10:00:55.000Z');
    expect(tailFrom([log('f1', 3_600_000)], '2026-11-22T10:00:58.000Z', now)).toBe('2026-11-22T10:00:58.000Z');
  });

  it('never starts before the range, and starts at the range for an empty list', () => {
    expect(tailFrom([log('a', 1000)], '2026-11-22T10:00:00.000Z', now)).toBe('2026-11-22T10:00:00.000Z');
    expect(tailFrom([], '2026-11-22T09:00:00.000Z', now)).toBe('2026-11-22T09:00:00.000Z');
    expect(tailFrom([], undefined, now)).toBeUndefined();
  });
});

describe('olderThan', () => {
  it('is 1 ms after the oldest row, so its millisecond comes again', () => {
    expect(olderThan([log('b', 1000), log('a', 0)])).toBe('2026-11-22T10:00:00.001Z');
    expect(olderThan([])).toBeUndefined();
  });
});

describe('level params', () => {
  it('reads several levels from the hash, each once, in the contract\'s order, unknown ones dropped', () => {
    expect(parseLevels('fatal,error,error,loud')).toEqual(['error', 'fatal']);
    expect(parseLevels('')).toEqual([]);
    expect(parseLevels(null)).toEqual([]);
    expect(levelsParam(['fatal', 'warn'])).toBe('warn,fatal');
    expect(levelsParam([])).toBeUndefined();
  });
});
