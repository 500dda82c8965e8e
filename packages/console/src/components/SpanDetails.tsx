// The selected span of a trace: its place in the trace, notes on how it was drawn (missing parent, cycle, clock
// skew), and every field it was sent with, extra fields included. An OpenTelemetry span's own fields (service,
// kind, status, scope, attributes, resource, events, links) are shown in their own rows and tables
// (OtelSections.tsx) instead of among "All fields"; a span without them looks as it always did.
//
// A failed span's cause comes first (lib/trace-failure.ts), then the logs the span wrote, each with "Open in Logs".
//
// data-testid: span-details (the panel; data-span-id), span-details-close, span-skew-note, span-field (each field
// row; data-field), span-service, span-kind, span-status, span-status-error, span-scope, span-error-cause,
// span-error-message, span-logs (data-log-count), span-log-entry (data-log-id), log-open; and those of
// OtelSections.tsx
import { useEffect, useMemo, useRef } from 'react';
import type { LogEntry } from '../api/types';
import { errorCause } from '../lib/trace-failure';
import { isLogLevel } from '../lib/log-list';
import { hrefInScope, useRoute } from '../router';
import type { WaterfallRow } from '../lib/waterfall';
import { formatDuration } from '../lib/format';
import { otelView, scopeText, spanLabel, spanService } from '../lib/otel-span';
import { EventList, FindLink, KeyValueTable, LinkList, Section, type FindTraces } from './OtelSections';
import { termOf } from '../lib/attribute-terms';
import { useTimePrefs } from '../time-prefs';

export interface SpanDetailsProps {
  row: WaterfallRow;
  applicationName: string;
  parentApplicationName?: string;
  /** The project of the trace: links to other spans name it. */
  projectId?: number;
  /** The logs the span wrote, oldest first. */
  logs?: LogEntry[];
  /** A log to bring into view and mark (clicked in the waterfall). */
  highlightLogId?: string;
  /** Start of the trace (epoch ms), for each log's offset. */
  traceStartMs?: number;
  onClose(): void;
}

/** A span's logs listed in full here at most; the rest are in the waterfall and on the Logs page. */
const SHOWN_LOGS = 200;

/** Around a log, on the Logs page: what its application logged a minute either side, every trace. */
const AROUND_MS = 60_000;

/** A span's fields that are not attributes (the trace search has its own filters for them): no "Find traces". */
const NOT_SEARCHED = new Set(['traceId', 'spanId', 'parentSpanId', 'timestamp', 'durationMs', 'attributes', 'resource', 'scope']);

/** A field value as text: strings as they are, everything else as JSON. */
function fieldText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

export function SpanDetails({ row, applicationName, parentApplicationName, projectId, logs, highlightLogId, traceStartMs, onClose }: SpanDetailsProps) {
  const { time, short } = useTimePrefs();
  const { params } = useRoute();
  const { span } = row;
  const status = span.responseStatus;
  const otel = useMemo(() => otelView(span), [span]);
  const cause = useMemo(() => errorCause(span), [span]);
  // An OpenTelemetry ERROR status already shows its message in the line below the title; the box adds the rest.
  const causeAdds = cause && !(otel.status?.code === 'error' && !cause.stack && cause.title === 'Error');
  const highlighted = useRef<HTMLLIElement>(null);
  // A block body: Chromium's scrollIntoView now returns a promise, which React would take for a cleanup function.
  useEffect(() => {
    highlighted.current?.scrollIntoView({ block: 'nearest' });
  }, [highlightLogId]);
  const aroundLog = (log: LogEntry) => {
    const t = Date.parse(log.timestamp);
    return hrefInScope('/logs', params, {
      applicationId: log.applicationId, range: undefined, traceId: undefined, span: undefined,
      ...(Number.isFinite(t) ? { from: new Date(t - AROUND_MS).toISOString(), to: new Date(t + AROUND_MS).toISOString() } : { range: 'all' }),
    });
  };
  const service = spanService(span);
  // The traces with this attribute, over all time: the attribute index answers a first page at once (docs/api.md).
  const find: FindTraces = (key, value) => {
    const term = NOT_SEARCHED.has(key) ? undefined : termOf(key, value);
    return term === undefined ? undefined : hrefInScope('/traces', params, { attr: [term], range: 'all', span: undefined });
  };
  const fields = Object.entries(span).filter(([k]) => !otel.shown.has(k)).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section className="panel span-details" data-testid="span-details" data-span-id={row.spanId} aria-label="Span details">
      <header className="panel-head">
        <h2 className="ellipsis" title={span.requestMethod}>
          <span className={`kind kind-${row.kind}`}>{row.type}</span> {spanLabel(span) || row.spanId}
        </h2>
        <button type="button" className="link" data-testid="span-details-close" onClick={onClose} aria-label="Close span details">Close</button>
      </header>
      {otel.status?.code === 'error' ? (
        <p className="span-error" data-testid="span-status-error" role="alert">Error{otel.status.message ? `: ${otel.status.message}` : ''}</p>
      ) : null}
      {causeAdds ? (
        <div className="error-cause" data-testid="span-error-cause" role="alert">
          <h3>{cause.title}</h3>
          {cause.message ? <p data-testid="span-error-message">{cause.message}</p> : null}
          {cause.stack ? <details><summary>Stack trace</summary><pre>{cause.stack}</pre></details> : null}
        </div>
      ) : null}
      <dl className="facts">
        {service ? <><dt>Service</dt><dd data-testid="span-service">{service}</dd></> : null}
        <dt>Application</dt><dd>{applicationName}</dd>
        {otel.kind ? <><dt>Kind</dt><dd data-testid="span-kind">{otel.kind}</dd></> : null}
        <dt>Starts at</dt>
        <dd data-testid="span-start" title={new Date(row.startMs).toISOString()}>
          +{formatDuration(row.offsetMs)} <span className="muted">({time(new Date(row.startMs).toISOString(), Date.now(), { ms: true })} {short} as drawn)</span>
        </dd>
        <dt>Duration</dt><dd>{formatDuration(row.durationMs)}</dd>
        <dt>Status</dt><dd className={row.error ? 'error-text' : undefined}>{status ?? '–'}{row.error ? ' (error)' : ''}</dd>
        {otel.status ? <><dt>Span status</dt><dd data-testid="span-status" className={otel.status.code === 'error' ? 'error-text' : undefined}>{otel.status.code}</dd></> : null}
        {otel.scope ? <><dt>Scope</dt><dd data-testid="span-scope" className="break">{scopeText(otel.scope)}</dd></> : null}
        {span.requestURL ? <><dt>URL</dt><dd className="break">{span.requestURL}</dd></> : null}
        <dt>Depth</dt><dd>{row.depth}{row.childCount ? `, ${row.childCount} child span${row.childCount === 1 ? '' : 's'}` : ''}</dd>
      </dl>
      {logs?.length ? (
        <section className="span-logs" data-testid="span-logs" data-log-count={logs.length} aria-label="Logs of this span">
          <h3>Logs of this span <span className="muted">{logs.length}</span></h3>
          <ol className="tl-list">
            {logs.slice(0, SHOWN_LOGS).map((l) => {
              const level = isLogLevel(l.level) ? l.level : 'info';
              const t = Date.parse(l.timestamp);
              const mark = l.id === highlightLogId;
              return (
                <li key={l.id} ref={mark ? highlighted : undefined} className={`tl-item tl-${level}${mark ? ' highlight' : ''}`} data-testid="span-log-entry" data-log-id={l.id}>
                  <span className="tl-time" title={`${time(l.timestamp, Date.now(), { ms: true })} ${short}`}>
                    {Number.isFinite(t) && traceStartMs ? `+${formatDuration(Math.max(0, t - traceStartMs))}` : time(l.timestamp, Date.now(), { ms: true })}
                  </span>
                  <span className="tl-level">{l.level}</span>
                  <span className="tl-message">{l.message}</span>
                  <a className="tl-open" data-testid="log-open" href={aroundLog(l)} title="The Logs page, a minute either side of this log, for its application">Open in Logs</a>
                </li>
              );
            })}
          </ol>
          {logs.length > SHOWN_LOGS ? (
            <p className="muted" data-testid="span-logs-more">
              The first {SHOWN_LOGS} of {logs.length}: <a href={hrefInScope('/logs', params, { traceId: row.span.traceId, range: 'all' })}>all of the trace's logs in Logs</a>.
            </p>
          ) : null}
        </section>
      ) : null}
      {row.skewMs ? (
        <p className="note" data-testid="span-skew-note">
          Clock skew adjusted by {formatDuration(row.skewMs)}: as recorded, this span of {applicationName}
          {row.skewMs > 0 ? ' started before' : ' ended after'} its parent in {parentApplicationName ?? 'the calling application'}, which
          cannot happen, so the two machines' clocks differ. It is drawn within its parent; its own timestamp is below.
        </p>
      ) : row.shiftMs ? (
        <p className="note" data-testid="span-skew-note">Drawn shifted by {formatDuration(row.shiftMs)} with an ancestor span whose clock skew was adjusted.</p>
      ) : null}
      {row.orphan ? <p className="note">Its parent span ({String(span.parentSpanId)}) is not in this trace, so it is shown at the top level.</p> : null}
      {row.cycle ? <p className="note">Its parent link closes a cycle of spans, so it is shown at the top level.</p> : null}
      {otel.attributes ? <Section title="Attributes" count={otel.attributes.length} testId="span-attributes"><KeyValueTable pairs={otel.attributes} find={find} /></Section> : null}
      {otel.events ? <Section title="Events" count={otel.events.length} testId="span-events"><EventList events={otel.events} /></Section> : null}
      {otel.links ? <Section title="Links" count={otel.links.length} testId="span-links"><LinkList links={otel.links} projectId={projectId} /></Section> : null}
      {otel.resource ? <Section title="Resource" count={otel.resource.length} testId="span-resource"><KeyValueTable pairs={otel.resource} find={find} /></Section> : null}
      {otel.scope?.attributes.length ? <Section title="Scope attributes" count={otel.scope.attributes.length} testId="span-scope-attributes"><KeyValueTable pairs={otel.scope.attributes} find={find} /></Section> : null}
      <h3>{otel.shown.size ? 'Other fields' : 'All fields'}</h3>
      <table className="fields">
        <tbody>
          {fields.map(([k, v]) => (
            <tr key={k} data-testid="span-field" data-field={k}>
              <th scope="row">{k}</th>
              <td><pre className="field-value">{fieldText(v)}</pre><FindLink find={find} name={k} value={v} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
