import { useCallback, useEffect, useReducer, useRef } from 'react';
import * as client from './api/client';
import type { LogFilter } from './api/client';
import type { LogEntry } from './api/types';
import { feedReducer, initialFeedState, type FeedAction, type FeedState } from './lib/log-feed-state';
import { tailFrom } from './lib/log-list';
import type { TimeQuery } from './lib/time-range';

/** Logs per page of the first read and of "Load more". */
export const PAGE_SIZE = 200;
/** The most rows the page holds; a live tail drops the oldest beyond it. */
export const MAX_ROWS = 5_000;
/** How often the live tail asks for newer logs. */
export const TAIL_INTERVAL_MS = 2_000;
/** Pages of one live-tail poll (1,000 logs each, the API's largest page). */
const TAIL_PAGES = 5;

const reduce = (state: FeedState<LogEntry>, action: FeedAction<LogEntry>) => feedReducer(state, action, MAX_ROWS);

export interface LogFeed {
  rows: LogEntry[];
  loading: boolean;
  loadingMore: boolean;
  error: unknown;
  /** Older logs exist beyond the list. */
  hasMore: boolean;
  /** The list is at MAX_ROWS: "Load more" stops, the tail drops the oldest. */
  full: boolean;
  /** When the live tail last heard from the API. */
  tailedAt: number | undefined;
  loadMore(): void;
}

/**
 * The logs of `filter` within `bounds`, newest first: one page, then more on loadMore(); while `live`, polls every
 * TAIL_INTERVAL_MS for logs from a little before the newest shown (tailFrom), up to now, and merges them in.
 * `key` names the filter and bounds: a new key (another filter, or the same one at a later `now`) reads again
 * from the start.
 */
export function useLogFeed(key: string, filter: LogFilter, bounds: TimeQuery, live: boolean): LogFeed {
  const [state, dispatch] = useReducer(reduce, undefined, () => initialFeedState<LogEntry>());

  // The latest values for callbacks and timers, without restarting them. Read only: every change goes through
  // dispatch, which applies it to the state as it is then, not as it was at the last render.
  const stateRef = useRef(state);
  stateRef.current = state;
  const query = useRef({ filter, bounds });
  const generation = useRef(0);
  /** The "Load more" in flight, aborted by a new key or on unmount. */
  const more = useRef<AbortController | undefined>(undefined);

  useEffect(() => {
    const gen = ++generation.current;
    query.current = { filter, bounds };
    const controller = new AbortController();
    more.current?.abort();
    more.current = undefined;
    dispatch({ type: 'start', gen });
    client.listLogs({ ...filter, ...bounds }, PAGE_SIZE, undefined, controller.signal).then(
      (page) => dispatch({ type: 'loaded', gen, page }),
      (error: unknown) => {
        if (!controller.signal.aborted) dispatch({ type: 'loadFailed', gen, error });
      },
    );
    return () => {
      controller.abort();
      more.current?.abort();
      more.current = undefined;
    };
    // `key` stands for filter and bounds.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const { next, loadingMore } = state;
  const loadMore = useCallback(() => {
    if (!next || loadingMore || more.current) return;
    const gen = generation.current;
    const { filter: f, bounds: w } = query.current;
    const controller = new AbortController();
    more.current = controller;
    dispatch({ type: 'moreStarted', gen });
    const done = () => {
      if (more.current === controller) more.current = undefined;
    };
    client.listLogs({ ...f, ...w, ...(next.to ? { to: next.to } : {}) }, PAGE_SIZE, next.cursor, controller.signal).then(
      (page) => {
        done();
        if (!controller.signal.aborted) dispatch({ type: 'moreLoaded', gen, from: next, page });
      },
      (error: unknown) => {
        done();
        if (!controller.signal.aborted) dispatch({ type: 'moreFailed', gen, error });
      },
    );
  }, [next, loadingMore]);

  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const gen = generation.current;
      if (!stateRef.current.loading && !document.hidden) {
        try {
          const { filter: f, bounds: w } = query.current;
          // Up to now: the bounds' `to` was now when the list was first read.
          const from = tailFrom(stateRef.current.rows, w.from, Date.now());
          const items: LogEntry[] = [];
          let cursor: string | undefined;
          for (let i = 0; i < TAIL_PAGES; i++) {
            const page = await client.listLogs({ ...f, ...(from ? { from } : {}) }, 1000, cursor, controller.signal);
            items.push(...page.items);
            cursor = page.nextCursor;
            if (!cursor || !from) break;
          }
          if (!controller.signal.aborted) dispatch({ type: 'tailed', gen, items, at: Date.now() });
        } catch (error) {
          if (controller.signal.aborted) return;
          dispatch({ type: 'tailFailed', gen, error });
        }
      }
      if (!controller.signal.aborted) timer = setTimeout(() => void poll(), TAIL_INTERVAL_MS);
    };
    timer = setTimeout(() => void poll(), TAIL_INTERVAL_MS);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [live, key]);

  return {
    rows: state.rows,
    loading: state.loading,
    loadingMore: state.loadingMore,
    error: state.error,
    hasMore: state.next !== undefined,
    full: state.rows.length >= MAX_ROWS,
    tailedAt: state.tailedAt,
    loadMore,
  };
}
