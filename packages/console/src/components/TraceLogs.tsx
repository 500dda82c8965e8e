// Every log written during one trace (GET /ingest/logs?projectId=&traceId=, read page by page up to 5,000), oldest
// first, each with its time from the trace's start and its level's colour. A log opens its span (the span's
// details list it with the span's other logs); "Open in Logs" shows them all on the Logs page.
//
// data-testid: trace-logs (the panel; data-log-count), trace-log (each entry; data-level, data-log-id),
// trace-logs-empty, trace-logs-more (shown when the trace has more logs than were read), trace-logs-open
import { memo, useMemo } from 'react';
import type { Application, LogEntry } from '../api/types';
import { applicationName } from '../lib/applications';
import { formatDuration } from '../lib/format';
import { isLogLevel } from '../lib/log-list';
import { useTimePrefs } from '../time-prefs';
import { ErrorBanner, Loading } from './Feedback';

export interface TraceLogsProps {
  logs: LogEntry[];
  loading: boolean;
  error: unknown;
  onRetry(): void;
  applications: Application[];
  /** The trace's start (epoch ms), for each entry's offset. */
  traceStartMs: number;
  /** More logs than `limit` exist; the newest were read. */
  truncated: boolean;
  limit: number;
  /** The Logs page narrowed to this trace. */
  allHref: string;
  /** A log was clicked: its span (and the log) should show. */
  onOpen(log: LogEntry): void;
}

export const TraceLogs = memo(function TraceLogs({ logs, loading, error, onRetry, applications, traceStartMs, truncated, limit, allHref, onOpen }: TraceLogsProps) {
  const { time } = useTimePrefs();
  // Once per read of the logs, not on every selection of a span (the arrow keys): up to 5,000 of them.
  const items = useMemo(() => logs.map((l) => ({ l, t: Date.parse(l.timestamp) })).sort((a, b) => a.t - b.t).map((x) => x.l), [logs]);
  const multiApp = new Set(items.map((l) => l.applicationId)).size > 1;
  const done = !loading || items.length > 0;
  return (
    <section className="panel trace-logs" data-testid="trace-logs" data-log-count={loading ? undefined : items.length} aria-label="Logs of this trace">
      <header className="panel-head">
        <h2>Logs</h2>
        {done ? <span className="muted">{items.length}{truncated ? '+' : ''}{loading ? '…' : ''}</span> : null}
        {items.length ? <a data-testid="trace-logs-open" href={allHref}>Open in Logs</a> : null}
      </header>
      <ErrorBanner error={error} onRetry={onRetry} />
      {loading && !items.length ? <Loading what="logs" /> : null}
      {!loading && !error && !items.length ? <p className="muted" data-testid="trace-logs-empty">No log was written during this trace.</p> : null}
      {items.length ? (
        <ol className="tl-list">
          {items.map((l) => {
            const level = isLogLevel(l.level) ? l.level : 'info';
            const t = Date.parse(l.timestamp);
            return (
              <li key={l.id} className={`tl-item tl-${level} tl-clickable`} data-testid="trace-log" data-level={l.level} data-log-id={l.id} onClick={() => onOpen(l)}>
                <span className="tl-time" title={l.timestamp}>
                  {Number.isFinite(t) && traceStartMs ? `${t >= traceStartMs ? '+' : ''}${formatDuration(t - traceStartMs)}` : time(l.timestamp, Date.now(), { ms: true })}
                </span>
                <span className="tl-level">{l.level}</span>
                {multiApp ? <span className="muted tl-app">{applicationName(applications, l.applicationId)}</span> : null}
                <button type="button" className="tl-message link" onClick={(e) => { e.stopPropagation(); onOpen(l); }}>{l.message}</button>
              </li>
            );
          })}
        </ol>
      ) : null}
      {truncated ? <p className="muted" data-testid="trace-logs-more">Showing the newest {limit.toLocaleString('en-US')} logs of this trace.</p> : null}
    </section>
  );
});
