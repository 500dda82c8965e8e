import { describe, expect, it } from '@jest/globals';
import { feedReducer, initialFeedState, type FeedAction, type FeedState } from '../src/lib/log-feed-state';

const T = Date.parse('2026-11-22T10:00:00.000Z');
type Log = { id: string; timestamp: string };
const log = (id: string, offsetMs: number): Log => ({ id, timestamp: new Date(T + offsetMs).toISOString() });
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/** Applies the actions one after another, with no render between them: what React does with queued dispatches. */
function run(actions: FeedAction<Log>[], cap = 100, from: FeedState<Log> = initialFeedState<Log>()): FeedState<Log> {
  return actions.reduce((s, a) => feedReducer(s, a, cap), from);
}

/** Generation 1, first page read: b, a, with a cursor for more. */
const loaded1 = (cap = 100) => run([
  { type: 'start', gen: 1 },
  { type: 'loaded', gen: 1, page: { items: [log('b', 1000), log('a', 0)], nextCursor: 'c1' } },
], cap);

describe('feedReducer: first read', () => {
  it('loads the first page of a generation, with its cursor', () => {
    const s = loaded1();
    expect(s).toMatchObject({ gen: 1, loading: false, loadingMore: false, error: undefined, next: { cursor: 'c1' } });
    expect(ids(s.rows)).toEqual(['b', 'a']);
  });

  it('forgets the previous key\'s cursor at once: Load more has nothing to continue until the new first page', () => {
    const s = run([{ type: 'start', gen: 2 }], 100, loaded1());
    expect(s.next).toBeUndefined();
    expect(run([{ type: 'loaded', gen: 2, page: { items: [log('n', 9000)], nextCursor: 'c2' } }], 100, s).next).toEqual({ cursor: 'c2' });
  });

  it('keeps the rows on show while a new key reads again, and ignores the old read answering late', () => {
    const s = run([
      { type: 'start', gen: 2 },
      { type: 'loaded', gen: 1, page: { items: [log('old', 5000)] } },
    ], 100, loaded1());
    expect(s.loading).toBe(true);
    expect(ids(s.rows)).toEqual(['b', 'a']);
    const done = run([{ type: 'loaded', gen: 2, page: { items: [log('x', 9000)] } }], 100, s);
    expect(ids(done.rows)).toEqual(['x']);
    expect(done.next).toBeUndefined();
    expect(done.loading).toBe(false);
  });

  it('shows a failed read as an error with no rows, and a new key clears it', () => {
    const failed = run([{ type: 'start', gen: 2 }, { type: 'loadFailed', gen: 2, error: 'boom' }], 100, loaded1());
    expect(failed).toMatchObject({ rows: [], next: undefined, loading: false, error: 'boom' });
    expect(run([{ type: 'start', gen: 3 }], 100, failed).error).toBeUndefined();
  });
});

describe('feedReducer: Load more', () => {
  it('appends the older page and continues from its cursor', () => {
    const s = run([
      { type: 'moreStarted', gen: 1 },
      { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('a', 0), log('z', -1000)], nextCursor: 'c2' } },
    ], 100, loaded1());
    expect(ids(s.rows)).toEqual(['b', 'a', 'z']);
    expect(s.next).toEqual({ cursor: 'c2' });
    expect(s.loadingMore).toBe(false);
  });

  it('keeps the `to` bound it continued from', () => {
    const s = run([
      { type: 'moreStarted', gen: 1 },
      { type: 'moreLoaded', gen: 1, from: { to: '2026-11-22T10:00:00.001Z' }, page: { items: [log('z', -1000)], nextCursor: 'c2' } },
    ], 100, loaded1());
    expect(s.next).toEqual({ cursor: 'c2', to: '2026-11-22T10:00:00.001Z' });
  });

  it('stops when the cap cuts the page, and when no cursor is left', () => {
    const capped = run([
      { type: 'moreStarted', gen: 1 },
      { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('z', -1000), log('y', -2000)], nextCursor: 'c2' } },
    ], 3, loaded1(3));
    expect(ids(capped.rows)).toEqual(['b', 'a', 'z']);
    expect(capped.next).toBeUndefined();
    const end = run([
      { type: 'moreStarted', gen: 1 },
      { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('z', -1000)] } },
    ], 100, loaded1());
    expect(end.next).toBeUndefined();
  });

  it('frees the button when it fails, keeping the rows and the cursor to try again', () => {
    const s = run([{ type: 'moreStarted', gen: 1 }, { type: 'moreFailed', gen: 1, error: 'down' }], 100, loaded1());
    expect(s).toMatchObject({ loadingMore: false, error: 'down', next: { cursor: 'c1' } });
    expect(ids(s.rows)).toEqual(['b', 'a']);
  });

  it('is not stuck on "Loading…" when the key changes before it answers (filter change or Refresh)', () => {
    const busy = run([{ type: 'moreStarted', gen: 1 }], 100, loaded1());
    expect(busy.loadingMore).toBe(true);
    const restarted = run([{ type: 'start', gen: 2 }], 100, busy);
    expect(restarted.loadingMore).toBe(false);
    // The old request answers, or fails, late: it changes nothing of the new key's state.
    const stale = run([
      { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('z', -1000)], nextCursor: 'c2' } },
      { type: 'moreFailed', gen: 1, error: 'aborted' },
    ], 100, restarted);
    expect(stale).toBe(restarted);
    // The new key's list loads, and its own "Load more" works.
    const again = run([
      { type: 'loaded', gen: 2, page: { items: [log('q', 500)], nextCursor: 'k1' } },
      { type: 'moreStarted', gen: 2 },
    ], 100, stale);
    expect(again.loadingMore).toBe(true);
    const done = run([{ type: 'moreLoaded', gen: 2, from: { cursor: 'k1' }, page: { items: [log('p', 100)] } }], 100, again);
    expect(ids(done.rows)).toEqual(['q', 'p']);
    expect(done.loadingMore).toBe(false);
  });
});

describe('feedReducer: live tail', () => {
  it('merges newer logs without duplicates and records when it heard from the API', () => {
    const s = run([{ type: 'tailed', gen: 1, items: [log('c', 2000), log('b', 1000)], at: 42 }], 100, loaded1());
    expect(ids(s.rows)).toEqual(['c', 'b', 'a']);
    expect(s.tailedAt).toBe(42);
    expect(s.next).toEqual({ cursor: 'c1' });
  });

  it('keeps the same rows when nothing is new', () => {
    const before = loaded1();
    const s = run([{ type: 'tailed', gen: 1, items: [log('b', 1000)], at: 1 }], 100, before);
    expect(s.rows).toBe(before.rows);
  });

  it('drops the oldest rows beyond the cap, and Load more then goes on from the new end by time', () => {
    const s = run([{ type: 'tailed', gen: 1, items: [log('d', 3000), log('c', 2000)], at: 1 }], 3, loaded1(3));
    expect(ids(s.rows)).toEqual(['d', 'c', 'b']);
    expect(s.next).toEqual({ to: '2026-11-22T10:00:01.001Z' });
  });

  it('ignores a poll of the previous key', () => {
    const restarted = run([{ type: 'start', gen: 2 }], 100, loaded1());
    expect(run([{ type: 'tailed', gen: 1, items: [log('c', 2000)], at: 1 }, { type: 'tailFailed', gen: 1, error: 'x' }], 100, restarted)).toBe(restarted);
  });

  it('shows a failed poll, keeps the rows, and clears the error on the next good one', () => {
    const failed = run([{ type: 'tailFailed', gen: 1, error: 'down' }], 100, loaded1());
    expect(failed.error).toBe('down');
    expect(ids(failed.rows)).toEqual(['b', 'a']);
    expect(run([{ type: 'tailed', gen: 1, items: [], at: 2 }], 100, failed).error).toBeUndefined();
  });
});

describe('feedReducer: a poll and Load more answering before one render', () => {
  const tail: FeedAction<Log> = { type: 'tailed', gen: 1, items: [log('d', 3000), log('c', 2000)], at: 7 };
  const more: FeedAction<Log> = { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('z', -1000), log('y', -2000)], nextCursor: 'c2' } };

  it('keeps the rows of both, whichever answers first', () => {
    for (const order of [[tail, more], [more, tail]]) {
      const s = run([{ type: 'moreStarted', gen: 1 }, ...order], 100, loaded1());
      expect(ids(s.rows)).toEqual(['d', 'c', 'b', 'a', 'z', 'y']);
      expect(s.next).toEqual({ cursor: 'c2' });
      expect(s.tailedAt).toBe(7);
      expect(s.loadingMore).toBe(false);
    }
  });

  it('still holds at most the cap, the newest first, each id once', () => {
    const overlap: FeedAction<Log> = { type: 'moreLoaded', gen: 1, from: { cursor: 'c1' }, page: { items: [log('a', 0), log('z', -1000)], nextCursor: 'c2' } };
    const s = run([{ type: 'moreStarted', gen: 1 }, tail, overlap], 5, loaded1(5));
    expect(ids(s.rows)).toEqual(['d', 'c', 'b', 'a', 'z']);
    const cut = run([{ type: 'moreStarted', gen: 1 }, more, tail], 5, loaded1(5));
    expect(ids(cut.rows)).toEqual(['d', 'c', 'b', 'a', 'z']);
    expect(cut.next).toEqual({ to: '2026-11-22T09:59:59.001Z' });
  });
});
