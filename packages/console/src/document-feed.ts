import { useCallback, useEffect, useState } from 'react';
import * as client from './api/client';
import type { DocumentRecord } from './api/types';
import { nextPollDelay, replaceDocument, withoutDocument } from './lib/documents';

export interface DocumentFeed {
  /** The list as last read (kept on show while a later read fails); undefined before the first answer. */
  docs: DocumentRecord[] | undefined;
  /** The last read's failure, until a read succeeds. */
  error: unknown;
  /** A read is in flight. */
  loading: boolean;
  /** Milliseconds until the next read, while a document is pending; undefined when the list is settled. */
  pollingIn: number | undefined;
  /** Reads the list now (any read in flight is dropped). */
  reload(): void;
  /** Shows `doc` in place of its row at once (a reprocess's answer), then reads the list again. */
  replace(doc: DocumentRecord): void;
  /** Drops the row at once (deleted), then reads the list again. */
  remove(id: string): void;
}

/** Whether the browser shows the page: a hidden tab stops polling; shown again, it polls at its next delay. */
function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);
  return visible;
}

interface State { docs: DocumentRecord[] | undefined; error: unknown; loading: boolean; failures: number }

/**
 * A tenant's documents, updated live: read when `tenantId` or `version` (an upload) changes, then again while
 * any document is `stored` or `processing` (lib/documents.ts nextPollDelay: every 2 s, backing off after failed
 * reads, never while the tab is hidden). One read at a time: the next is planned only once the last answered,
 * and a new read drops the one in flight, so a late answer never puts back a row just deleted. Leaving the page
 * (unmount) stops everything.
 */
export function useDocumentFeed(tenantId: string, version: number): DocumentFeed {
  const [state, setState] = useState<State>({ docs: undefined, error: undefined, loading: true, failures: 0 });
  const [tick, setTick] = useState(0);
  const visible = usePageVisible();
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    client.listDocuments(tenantId, controller.signal).then(
      (docs) => { if (!controller.signal.aborted) setState({ docs, error: undefined, loading: false, failures: 0 }); },
      (error: unknown) => { if (!controller.signal.aborted) setState((s) => ({ ...s, error, loading: false, failures: s.failures + 1 })); },
    );
    return () => controller.abort();
  }, [tenantId, version, tick]);

  const pollingIn = nextPollDelay({ docs: state.docs, failures: state.failures, visible });
  useEffect(() => {
    if (state.loading || pollingIn === undefined) return;
    const timer = setTimeout(reload, pollingIn);
    return () => clearTimeout(timer);
  }, [state.loading, state.docs, state.failures, pollingIn, reload]);

  const replace = useCallback((doc: DocumentRecord) => {
    setState((s) => ({ ...s, docs: s.docs && replaceDocument(s.docs, doc) }));
    reload();
  }, [reload]);
  const remove = useCallback((id: string) => {
    setState((s) => ({ ...s, docs: s.docs && withoutDocument(s.docs, id) }));
    reload();
  }, [reload]);

  return { docs: state.docs, error: state.error, loading: state.loading, pollingIn, reload, replace, remove };
}
