// The selected span of a trace: its place in the trace, notes on how it was drawn (missing parent, cycle, clock
// skew), and every field it was sent with, extra fields included.
//
// data-testid: span-details (the panel; data-span-id), span-details-close, span-skew-note, span-field (each field
// row; data-field)
import type { WaterfallRow } from '../lib/waterfall';
import { formatDuration, spanName } from '../lib/format';

export interface SpanDetailsProps {
  row: WaterfallRow;
  applicationName: string;
  parentApplicationName?: string;
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

export function SpanDetails({ row, applicationName, parentApplicationName, onClose }: SpanDetailsProps) {
  const { span } = row;
  const status = span.responseStatus;
  const fields = Object.entries(span).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section className="panel span-details" data-testid="span-details" data-span-id={row.spanId} aria-label="Span details">
      <header className="panel-head">
        <h2 className="ellipsis" title={span.requestMethod}>
          <span className={`kind kind-${row.kind}`}>{row.type}</span> {spanName(span.requestMethod ?? '') || row.spanId}
        </h2>
        <button type="button" className="link" data-testid="span-details-close" onClick={onClose} aria-label="Close span details">Close</button>
      </header>
      <dl className="facts">
        <dt>Application</dt><dd>{applicationName}</dd>
        <dt>Starts at</dt><dd>+{formatDuration(row.offsetMs)} <span className="muted">({new Date(row.startMs).toISOString()} as drawn)</span></dd>
        <dt>Duration</dt><dd>{formatDuration(row.durationMs)}</dd>
        <dt>Status</dt><dd className={row.error ? 'error-text' : undefined}>{status ?? '–'}{row.error ? ' (error)' : ''}</dd>
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
      <h3>All fields</h3>
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
