// The selected span of a trace: its place in the trace, notes on how it was drawn (missing parent, cycle, clock
// skew), and every field it was sent with, extra fields included. An OpenTelemetry span's own fields (service,
// kind, status, scope, attributes, resource, events, links) are shown in their own rows and tables
// (OtelSections.tsx) instead of among "All fields"; a span without them looks as it always did.
//
// data-testid: span-details (the panel; data-span-id), span-details-close, span-skew-note, span-field (each field
// row; data-field), span-service, span-kind, span-status, span-status-error, span-scope; and those of OtelSections.tsx
import { useMemo } from 'react';
import type { WaterfallRow } from '../lib/waterfall';
import { formatDuration } from '../lib/format';
import { otelView, scopeText, spanLabel, spanService } from '../lib/otel-span';
import { EventList, KeyValueTable, LinkList, Section } from './OtelSections';
import { useTimePrefs } from '../time-prefs';

export interface SpanDetailsProps {
  row: WaterfallRow;
  applicationName: string;
  parentApplicationName?: string;
  /** The project of the trace: links to other spans name it. */
  projectId?: number;
  onClose(): void;
}

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

export function SpanDetails({ row, applicationName, parentApplicationName, projectId, onClose }: SpanDetailsProps) {
  const { time, short } = useTimePrefs();
  const { span } = row;
  const status = span.responseStatus;
  const otel = useMemo(() => otelView(span), [span]);
  const service = spanService(span);
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
      {otel.attributes ? <Section title="Attributes" count={otel.attributes.length} testId="span-attributes"><KeyValueTable pairs={otel.attributes} /></Section> : null}
      {otel.events ? <Section title="Events" count={otel.events.length} testId="span-events"><EventList events={otel.events} /></Section> : null}
      {otel.links ? <Section title="Links" count={otel.links.length} testId="span-links"><LinkList links={otel.links} projectId={projectId} /></Section> : null}
      {otel.resource ? <Section title="Resource" count={otel.resource.length} testId="span-resource"><KeyValueTable pairs={otel.resource} /></Section> : null}
      {otel.scope?.attributes.length ? <Section title="Scope attributes" count={otel.scope.attributes.length} testId="span-scope-attributes"><KeyValueTable pairs={otel.scope.attributes} /></Section> : null}
      <h3>{otel.shown.size ? 'Other fields' : 'All fields'}</h3>
      <table className="fields">
        <tbody>
          {fields.map(([k, v]) => (
            <tr key={k} data-testid="span-field" data-field={k}>
              <th scope="row">{k}</th>
              <td><pre className="field-value">{fieldText(v)}</pre></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
