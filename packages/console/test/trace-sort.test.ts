import { describe, expect, it } from '@jest/globals';
import type { TraceSummary } from '../src/lib/trace-list';
import { nextSort, sortTraces } from '../src/lib/trace-sort';

const row = (traceId: string, startMs: number, durationMs: number | undefined, spanCount: number, status?: number): TraceSummary => ({
  traceId, startMs, durationMs, spanCount, status, root: undefined, applicationId: 1, applicationIds: [1], records: [],
});
const rows = [row('a', 40, 12, 3, 200), row('b', 30, undefined, 9, undefined), row('c', 20, 500, 1, 503), row('d', 10, 12, 3, 404)];
const ids = (list: readonly TraceSummary[]) => list.map((r) => r.traceId);

describe('sortTraces', () => {
  it('keeps the API\'s newest-first order as it is, without copying', () => {
    expect(sortTraces(rows, 'newest')).toBe(rows);
  });

  it('sorts by time, duration, spans or status; ties keep the newest first; missing values go last', () => {
    expect(ids(sortTraces(rows, 'oldest'))).toEqual(['d', 'c', 'b', 'a']);
    expect(ids(sortTraces(rows, 'slowest'))).toEqual(['c', 'a', 'd', 'b']);
    expect(ids(sortTraces(rows, 'fastest'))).toEqual(['a', 'd', 'c', 'b']);
    expect(ids(sortTraces(rows, 'most-spans'))).toEqual(['b', 'a', 'd', 'c']);
    expect(ids(sortTraces(rows, 'status'))).toEqual(['c', 'd', 'a', 'b']);
    expect(ids(rows)).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('nextSort', () => {
  it('turns a column on in its first direction, then flips or drops it', () => {
    expect(nextSort('time', 'newest')).toBe('oldest');
    expect(nextSort('time', 'oldest')).toBe('newest');
    expect(nextSort('duration', 'newest')).toBe('slowest');
    expect(nextSort('duration', 'slowest')).toBe('fastest');
    expect(nextSort('duration', 'fastest')).toBe('slowest');
    expect(nextSort('spans', 'slowest')).toBe('most-spans');
    expect(nextSort('spans', 'most-spans')).toBe('newest');
    expect(nextSort('status', 'newest')).toBe('status');
  });
});
