import { memo } from 'react';
import type { LogEntry } from '../api/types';
import { MAX_TERMS, termOf } from '../lib/attribute-terms';
import { traceHref } from '../router';
import { useTimePrefs } from '../time-prefs';

/** The fields a row shows itself; the others appear in the expanded details. */
const SHOWN = new Set(['id', 'projectId', 'applicationId', 'level', 'message', 'timestamp', 'traceId']);
/** A log's fields that are not attributes (docs/api.md "Attribute search"): no "Find logs" for them. */
const NOT_SEARCHED = new Set([...SHOWN, 'clientTimestamp', 'spanId', 'attributes', 'resource', 'scope']);
// (`serviceName` is searched as `service.name`: termOf.)

/** The terms that find a log's own scalar fields (its OpenTelemetry lists are in its details), a few at most. */
function findTerms(log: LogEntry): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(log)) {
    if (NOT_SEARCHED.has(k) || (typeof v === 'object' && v !== null)) continue;
    const term = termOf(k, v);
    if (term !== undefined) out.push(term);
  }
  return out.slice(0, MAX_TERMS);
}

function details(log: LogEntry): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(log)) if (!SHOWN.has(k)) rest[k] = v;
  return JSON.stringify({ id: log.id, traceId: log.traceId ?? null, ...rest }, null, 2);
}

/**
 * One log line: time, level (coloured), application, message, and a link to its trace. Clicking the message shows
 * the whole message and the log's other fields. Memoised: a live-tail poll re-renders only the new rows.
 */
export const LogRow = memo(function LogRow({ log, appName, expanded, onToggle, current, onFind }: {
  log: LogEntry;
  appName: string;
  expanded: boolean;
  onToggle(id: string): void;
  /** Whether it is the list's one tab stop (the keys move it: Logs.tsx). */
  current: boolean;
  /** Adds an attribute term to the page's filters ("Find logs" in the details). */
  onFind?: (term: string) => void;
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
      {expanded && onFind && findTerms(log).length ? (
        <p className="log-find" data-testid="log-find">
          Find logs with{' '}
          {findTerms(log).map((term) => (
            <button key={term} type="button" className="link" data-testid="log-find-term" data-term={term} onClick={() => onFind(term)}><code>{term}</code></button>
          ))}
        </p>
      ) : null}
    </li>
  );
});
