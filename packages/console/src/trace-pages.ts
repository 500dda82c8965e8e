import { useCallback, useEffect, useRef, useState } from 'react';
import * as client from './api/client';
import type { TraceFilter } from './api/client';
import { addRecordSummaries, EMPTY_TRACE_LIST, summariseRecord, toTraceFilter, type TraceList, type TraceListParams } from './lib/trace-list';

/** Trace records per page: one request answers fast even on a large project; more pages load on demand. */
export const TRACE_PAGE_SIZE = 100;

export interface TracePages {
  list: TraceList;
  loading: boolean;
  error: unknown;
  /** The API has more pages (the last answer carried a next cursor). */
  hasMore: boolean;
  /** When the first page was asked for (epoch ms): the "now" of a relative time range. */
  since: number;
  /** Loads the next page; ignored while a page is loading or when there is none. */
  loadMore(): void;
  /** Starts again from the newest page. */
  reload(): void;
  /** After a failure: the page that failed again (the first, or the next). */
  retry(): void;
}

interface Run {
  abort: AbortController;
  filter: TraceFilter;
  cursor: string | undefined;
  busy: boolean;
  done: boolean;
}

interface State { list: TraceList; loading: boolean; error: unknown; hasMore: boolean; since: number }

/**
 * The project's traces for the list's filters, a page at a time with `limit` + `cursor`. A change of project or
 * filters (`key`) aborts what is in flight and starts over; answers of an older run are dropped. The time range
 * is resolved once per run, so every page of a run reads the same window.
 */
export function useTracePages(projectId: number | undefined, params: TraceListParams, key: string): TracePages {
  const [state, setState] = useState<State>({ list: EMPTY_TRACE_LIST, loading: true, error: undefined, hasMore: false, since: Date.now() });
  const [tick, setTick] = useState(0);
  const run = useRef<Run | null>(null);
  const paramsRef = useRef(params);
  paramsRef.current = params;

  const fetchPage = useCallback((first: boolean) => {
    const r = run.current;
    if (!r || projectId === undefined || r.busy || (!first && r.done)) return;
    r.busy = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    client.listTraces(projectId, r.filter, TRACE_PAGE_SIZE, first ? undefined : r.cursor, r.abort.signal).then(
      (page) => {
        if (run.current !== r) return;
        r.busy = false;
        r.cursor = page.nextCursor;
        r.done = !page.nextCursor;
        // Summarised here, once: the list keeps what the rows show, and the page's telemetry is let go.
        const records = page.items.map(summariseRecord);
        setState((s) => ({ ...s, list: addRecordSummaries(first ? EMPTY_TRACE_LIST : s.list, records), loading: false, hasMore: !r.done }));
      },
      (error: unknown) => {
        if (run.current !== r || r.abort.signal.aborted) return;
        r.busy = false;
        setState((s) => ({ ...s, loading: false, error }));
      },
    );
  }, [projectId]);

  useEffect(() => {
    const since = Date.now();
    const r: Run = { abort: new AbortController(), filter: toTraceFilter(paramsRef.current, since), cursor: undefined, busy: false, done: false };
    run.current = r;
    setState({ list: EMPTY_TRACE_LIST, loading: projectId !== undefined, error: undefined, hasMore: false, since });
    fetchPage(true);
    return () => {
      r.abort.abort();
      if (run.current === r) run.current = null;
    };
  }, [projectId, key, tick, fetchPage]);

  const loadMore = useCallback(() => fetchPage(false), [fetchPage]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const retry = useCallback(() => {
    if (run.current?.cursor) fetchPage(false);
    else reload();
  }, [fetchPage, reload]);

  return { ...state, loadMore, reload, retry };
}

let lastListHash = '#/traces';

/** The traces list remembers its hash (filters included), so a trace's "back" link returns to the same view. */
export function rememberTraceListHash(hash: string): void {
  if (hash.startsWith('#/traces') && !hash.startsWith('#/traces/')) lastListHash = hash;
}

export function traceListHash(): string {
  return lastListHash;
}
