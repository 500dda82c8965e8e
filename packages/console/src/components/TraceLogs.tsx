// The logs written during one trace (GET /ingest/logs?projectId=&traceId=, the newest 500), shown oldest first, each with
// its time from the trace's start and its level's colour.
//
// data-testid: trace-logs (the panel; data-log-count), trace-log (each entry; data-level), trace-logs-empty,
// trace-logs-more (shown when the trace has more logs than were read)
import type { Application, LogEntry, Page } from '../api/types';
import { formatDuration } from '../lib/format';
import { isLogLevel } from '../lib/log-list';
import { ErrorBanner, Loading } from './Feedback';
import { applicationName } from '../lib/applications';
import { useTimePrefs } from '../time-prefs';

export interface TraceLogsProps {
  page: Page<LogEntry> | undefined;
  loading: boolean;
  error: unknown;
  onRetry(): void;
  applications: Application[];
  /** The trace's start (epoch ms), for each entry's offset. */
  traceStartMs: number;
  limit: number;
}

export function TraceLogs({ page, loading, error, onRetry, applications, traceStartMs, limit }: TraceLogsProps) {
  const { time } = useTimePrefs();
  const items = page ? [...page.items].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp)) : [];
  const multiApp = new Set(items.map((l) => l.applicationId)).size > 1;
  return (
    <section className="panel trace-logs" data-testid="trace-logs" data-log-count={page ? items.length : undefined} aria-label="Logs of this trace">
      <header className="panel-head">
        <h2>Logs</h2>
        {page ? <span className="muted">{items.length}{page.nextCursor ? '+' : ''}</span> : null}
      </header>
      <ErrorBanner error={error} onRetry={onRetry} />
      {loading && !page ? <Loading what="logs" /> : null}
      {page && !items.length ? <p className="muted" data-testid="trace-logs-empty">No log was written during this trace.</p> : null}
      {items.length ? (
        <ol className="tl-list">
          {items.map((l) => {
            const level = isLogLevel(l.level) ? l.level : 'info';
            const t = Date.parse(l.timestamp);
            return (
              <li key={l.id} className={`tl-item tl-${level}`} data-testid="trace-log" data-level={l.level}>
                <span className="tl-time" title={l.timestamp}>
                  {Number.isFinite(t) && traceStartMs ? `${t >= traceStartMs ? '+' : ''}${formatDuration(t - traceStartMs)}` : time(l.timestamp, Date.now(), { ms: true })}
                </span>
                <span className="tl-level">{l.level}</span>
                {multiApp ? <span className="muted tl-app">{applicationName(applications, l.applicationId)}</span> : null}
                <span className="tl-message">{l.message}</span>
              </li>
            );
          })}
        </ol>
      ) : null}
      {page?.nextCursor ? <p className="muted" data-testid="trace-logs-more">Showing the newest {limit} logs of this trace.</p> : null}
    </section>
  );
}
