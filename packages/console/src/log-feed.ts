import { useCallback, useEffect, useRef, useState } from 'react';
import * as client from './api/client';
import type { LogFilter } from './api/client';
import type { LogEntry } from './api/types';
import { mergeLogs, olderThan, tailFrom } from './lib/log-list';
import type { TimeQuery } from './lib/time-range';

/** Logs per page of the first read and of "Load more". */
export const PAGE_SIZE = 200;
/** The most rows the page holds; a live tail drops the oldest beyond it. */
export const MAX_ROWS = 5_000;
/** How often the live tail asks for newer logs. */
export const TAIL_INTERVAL_MS = 2_000;
/** Pages of one live-tail poll (1,000 logs each, the API's largest page). */
const TAIL_PAGES = 5;

/** Where "Load more" continues: the API's cursor, and a `to` bound once the cap has cut the list's end. */
interface Next { cursor?: string; to?: string }

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
  const [rows, setRows] = useState<LogEntry[]>([]);
  const [next, setNext] = useState<Next | undefined>();
  const [loading, setLoading] = useState(true);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<unknown>();
  const [tailedAt, setTailedAt] = useState<number>();

  // The latest values for callbacks and timers, without restarting them.
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const query = useRef({ filter, bounds });
  const generation = useRef(0);
  const loadingRef = useRef(true);

  useEffect(() => {
    const gen = ++generation.current;
    query.current = { filter, bounds };
    const controller = new AbortController();
    loadingRef.current = true;
    setLoading(true);
    setError(undefined);
    client.listLogs({ ...filter, ...bounds }, PAGE_SIZE, undefined, controller.signal).then(
      (page) => {
        if (gen !== generation.current) return;
        setRows(page.items);
        setNext(page.nextCursor ? { cursor: page.nextCursor } : undefined);
        setLoading(false);
        loadingRef.current = false;
      },
      (e: unknown) => {
        if (gen !== generation.current) return;
        setRows([]);
        setNext(undefined);
        setError(e);
        setLoading(false);
        loadingRef.current = false;
      },
    );
    return () => controller.abort();
    // `key` stands for filter and bounds.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);

  const loadMore = useCallback(() => {
    if (!next || loadingMore) return;
    const gen = generation.current;
    const { filter: f, bounds: w } = query.current;
    setLoadingMore(true);
    client.listLogs({ ...f, ...w, ...(next.to ? { to: next.to } : {}) }, PAGE_SIZE, next.cursor).then(
      (page) => {
        if (gen !== generation.current) return;
        const merged = mergeLogs(rowsRef.current, page.items, MAX_ROWS);
        setRows(merged.rows);
        setNext(page.nextCursor && merged.dropped === 0 ? { cursor: page.nextCursor, ...(next.to ? { to: next.to } : {}) } : undefined);
        setError(undefined);
        setLoadingMore(false);
      },
      (e: unknown) => {
        if (gen !== generation.current) return;
        setError(e);
        setLoadingMore(false);
      },
    );
  }, [next, loadingMore]);

  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const gen = generation.current;
      if (!loadingRef.current && !document.hidden) {
        try {
          const { filter: f, bounds: w } = query.current;
          // Up to now: the bounds' `to` was now when the list was first read.
          const from = tailFrom(rowsRef.current, w.from);
          const items: LogEntry[] = [];
          let cursor: string | undefined;
          for (let i = 0; i < TAIL_PAGES; i++) {
            const page = await client.listLogs({ ...f, ...(from ? { from } : {}) }, 1000, cursor, controller.signal);
            items.push(...page.items);
            cursor = page.nextCursor;
            if (!cursor || !from) break;
          }
          if (gen === generation.current && !controller.signal.aborted) {
            const merged = mergeLogs(rowsRef.current, items, MAX_ROWS);
            if (merged.added > 0) {
              setRows(merged.rows);
              // The cap cut the oldest rows: "Load more" goes on from the new end, by time.
              if (merged.dropped > 0) setNext({ to: olderThan(merged.rows) });
            }
            setTailedAt(Date.now());
            setError(undefined);
          }
        } catch (e) {
          if (controller.signal.aborted) return;
          if (gen === generation.current) setError(e);
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
    rows,
    loading,
    loadingMore,
    error,
    hasMore: next !== undefined,
    full: rows.length >= MAX_ROWS,
    tailedAt,
    loadMore,
  };
}
