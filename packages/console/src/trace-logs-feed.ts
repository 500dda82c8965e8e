import { useCallback, useEffect, useState } from 'react';
import * as client from './api/client';
import type { LogEntry } from './api/types';

/** Logs asked for per request, and at most this many read for one trace (memory stays bounded). */
export const TRACE_LOG_PAGE = 500;
export const MAX_TRACE_LOGS = 5_000;

export interface TraceLogsFeed {
  logs: LogEntry[];
  /** True until every page is read (or the cap reached). */
  loading: boolean;
  error: unknown;
  /** The trace has more logs than MAX_TRACE_LOGS: the newest ones were read. */
  truncated: boolean;
  reload(): void;
}

/**
 * Every log of one trace, read page by page (`cursor`) up to MAX_TRACE_LOGS, so each span's logs can sit under it.
 * A change of trace aborts what is in flight; each page shows as it arrives.
 */
export function useTraceLogs(projectId: number, traceId: string): TraceLogsFeed {
  const [state, setState] = useState<Omit<TraceLogsFeed, 'reload'>>({ logs: [], loading: true, error: undefined, truncated: false });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    let logs: LogEntry[] = [];
    setState({ logs, loading: true, error: undefined, truncated: false });
    const read = async (cursor: string | undefined): Promise<void> => {
      const page = await client.listLogs({ projectId, traceId }, TRACE_LOG_PAGE, cursor, abort.signal);
      if (abort.signal.aborted) return;
      logs = logs.concat(page.items);
      const more = Boolean(page.nextCursor) && logs.length < MAX_TRACE_LOGS;
      setState({ logs, loading: more, error: undefined, truncated: Boolean(page.nextCursor) && !more });
      if (more) await read(page.nextCursor);
    };
    read(undefined).catch((error: unknown) => {
      if (!abort.signal.aborted) setState((s) => ({ ...s, loading: false, error }));
    });
    return () => abort.abort();
  }, [projectId, traceId, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
