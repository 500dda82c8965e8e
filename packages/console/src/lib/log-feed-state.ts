/**
 * The state of the Logs page's feed (src/log-feed.ts) and how each answer of the API changes it: a pure reducer,
 * unit-tested in packages/console/test/log-feed-state.test.ts.
 *
 * Every request is made for one generation (one key: filters, range, Refresh). An answer for another generation than
 * the current one is stale and changes nothing. Every answer merges into the state as it is when the answer is
 * applied, so a live-tail poll and "Load more" answering between two renders both keep their rows.
 */
import { mergeLogs, olderThan, type LogLike } from './log-list';

/** Where "Load more" continues: the API's cursor, and a `to` bound once the cap has cut the list's end. */
export interface Next { cursor?: string; to?: string }

export interface FeedState<T extends LogLike> {
  /** The generation the state belongs to. */
  gen: number;
  rows: T[];
  next: Next | undefined;
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  /** When the live tail last heard from the API. */
  tailedAt: number | undefined;
}

export interface PageLike<T> { items: T[]; nextCursor?: string }

export type FeedAction<T extends LogLike> =
  /** A new key: read again from the start. Keeps the rows on show (marked stale) until the first page comes. */
  | { type: 'start'; gen: number }
  | { type: 'loaded'; gen: number; page: PageLike<T> }
  | { type: 'loadFailed'; gen: number; error: unknown }
  | { type: 'moreStarted'; gen: number }
  /** A page of "Load more", asked from `from` (the `next` it continued). */
  | { type: 'moreLoaded'; gen: number; from: Next; page: PageLike<T> }
  | { type: 'moreFailed'; gen: number; error: unknown }
  | { type: 'tailed'; gen: number; items: T[]; at: number }
  | { type: 'tailFailed'; gen: number; error: unknown };

export function initialFeedState<T extends LogLike>(): FeedState<T> {
  return { gen: 0, rows: [], next: undefined, loading: true, loadingMore: false, error: undefined, tailedAt: undefined };
}

/** The state after `action`, for a list of at most `cap` rows. */
export function feedReducer<T extends LogLike>(state: FeedState<T>, action: FeedAction<T>, cap: number): FeedState<T> {
  if (action.type === 'start') {
    // A "Load more" of the previous key will never answer into this one: it must not keep the button busy. Its
    // cursor belongs to the previous key too: until this key's first page, there is nothing more to load.
    return { ...state, gen: action.gen, next: undefined, loading: true, loadingMore: false, error: undefined };
  }
  if (action.gen !== state.gen) return state;
  switch (action.type) {
    case 'loaded':
      return {
        ...state,
        rows: action.page.items,
        next: action.page.nextCursor ? { cursor: action.page.nextCursor } : undefined,
        loading: false,
        error: undefined,
      };
    case 'loadFailed':
      return { ...state, rows: [], next: undefined, loading: false, error: action.error };
    case 'moreStarted':
      return { ...state, loadingMore: true };
    case 'moreLoaded': {
      const merged = mergeLogs(state.rows, action.page.items, cap);
      const to = action.from.to;
      return {
        ...state,
        rows: merged.rows,
        next: action.page.nextCursor && merged.dropped === 0 ? { cursor: action.page.nextCursor, ...(to ? { to } : {}) } : undefined,
        loadingMore: false,
        error: undefined,
      };
    }
    case 'moreFailed':
      return { ...state, loadingMore: false, error: action.error };
    case 'tailed': {
      const merged = mergeLogs(state.rows, action.items, cap);
      return {
        ...state,
        rows: merged.added > 0 ? merged.rows : state.rows,
        // The cap cut the oldest rows: "Load more" goes on from the new end, by time.
        next: merged.dropped > 0 ? { to: olderThan(merged.rows) } : state.next,
        tailedAt: action.at,
        error: undefined,
      };
    }
    case 'tailFailed':
      return { ...state, error: action.error };
  }
}
