import { memo } from 'react';
import type { LogEntry } from '../api/types';
import { traceHref } from '../router';
import { useTimePrefs } from '../time-prefs';

/** The fields a row shows itself; the others appear in the expanded details. */
const SHOWN = new Set(['id', 'projectId', 'applicationId', 'level', 'message', 'timestamp', 'traceId']);

function details(log: LogEntry): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(log)) if (!SHOWN.has(k)) rest[k] = v;
  return JSON.stringify({ id: log.id, traceId: log.traceId ?? null, ...rest }, null, 2);
}

/**
 * One log line: time, level (coloured), application, message, and a link to its trace. Clicking the message shows
 * the whole message and the log's other fields. Memoised: a live-tail poll re-renders only the new rows.
 */
export const LogRow = memo(function LogRow({ log, appName, expanded, onToggle, current }: {
  log: LogEntry;
  appName: string;
  expanded: boolean;
  onToggle(id: string): void;
  /** Whether it is the list's one tab stop (the keys move it: Logs.tsx). */
  current: boolean;
}) {
  const { time } = useTimePrefs();
  return (
    <li className={`log-row level-${log.level}${expanded ? ' expanded' : ''}`} data-testid="log-row" data-level={log.level} data-log-id={log.id}>
      <time className="log-time" dateTime={log.timestamp} title={log.timestamp}>{time(log.timestamp, Date.now(), { ms: true })}</time>
      <span className="log-level">{log.level}</span>
      <span className="log-app" title={appName}>{appName}</span>
      <button type="button" className="log-message" tabIndex={current ? 0 : -1} aria-expanded={expanded} onClick={() => onToggle(log.id)} title={expanded ? undefined : 'Show details'}>
        {log.message}
      </button>
      <span className="log-trace">
        {log.traceId ? <a data-testid="log-trace-link" tabIndex={current ? 0 : -1} href={traceHref(log.traceId, log.projectId)} title={`Trace ${log.traceId}`}>trace</a> : null}
      </span>
      {expanded ? <pre className="log-details">{details(log)}</pre> : null}
    </li>
  );
});
