// The traces list as a virtualised table: only the rows in view are in the DOM, however many pages are loaded.
// Scrolling near the end asks for the next page (onNearEnd).
//
// The Service column is the root span's service.name (OpenTelemetry), else its application's name.
//
// data-testid: trace-table (the scroll container), trace-row (each row: a link to #/traces/<traceId>,
// data-trace-id), trace-service (a row's Service cell)
import type { Application } from '../api/types';
import { applicationName } from '../lib/applications';
import { formatDuration, spanName, spanType, statusClass } from '../lib/format';
import type { TraceSummary } from '../lib/trace-list';
import { spanKind } from '../lib/waterfall';
import { traceHref } from '../router';
import { VirtualRows } from './VirtualRows';
import { useTimePrefs } from '../time-prefs';

export const TRACE_ROW_HEIGHT = 34;

export interface TraceTableProps {
  rows: TraceSummary[];
  applications: Application[];
  /** The project the rows belong to: named in each row's link. */
  projectId: number;
  now: number;
  onNearEnd?: () => void;
}


export function TraceTable({ rows, applications, projectId, now, onNearEnd }: TraceTableProps) {
  const { short } = useTimePrefs();
  return (
    <div className="trace-table" role="table" aria-label="Traces" aria-rowcount={rows.length}>
      <div className="trace-grid trace-head" role="row">
        <span role="columnheader" data-testid="trace-time-heading">Time <span className="muted">({short})</span></span>
        <span role="columnheader" title="The root span's service.name, else its application">Service</span>
        <span role="columnheader">Method</span>
        <span role="columnheader">URL</span>
        <span role="columnheader" className="num">Status</span>
        <span role="columnheader" className="num">Duration</span>
        <span role="columnheader" className="num">Spans</span>
      </div>
      <VirtualRows
        count={rows.length}
        rowHeight={TRACE_ROW_HEIGHT}
        rowKey={(i) => rows[i]!.traceId}
        onNearEnd={onNearEnd}
        containerProps={{ 'data-testid': 'trace-table', role: 'rowgroup' }}
        renderRow={(i) => <TraceRow row={rows[i]!} applications={applications} projectId={projectId} now={now} />}
      />
    </div>
  );
}

function TraceRow({ row, applications, projectId, now }: { row: TraceSummary; applications: Application[]; projectId: number; now: number }) {
  const { time } = useTimePrefs();
  const method = row.root?.requestMethod ?? '';
  const others = row.applicationIds.length - 1;
  const cls = statusClass(row.status);
  const app = applicationName(applications, row.applicationId);
  const service = row.root?.serviceName;
  return (
    <a
      className={`trace-grid trace-row${cls === '5xx' ? ' is-error' : ''}`}
      role="row"
      data-testid="trace-row"
      data-trace-id={row.traceId}
      href={traceHref(row.traceId, projectId)}
    >
      <span role="cell" title={new Date(row.startMs).toISOString()}>{time(new Date(row.startMs).toISOString(), now)}</span>
      <span role="cell" className="ellipsis" data-testid="trace-service" title={service && service !== app ? `service.name ${service}, application ${app}` : app}>
        {service ?? app}
        {others > 0 ? <span className="muted"> +{others}</span> : null}
      </span>
      <span role="cell" className="ellipsis">
        {method ? <span className={`kind kind-${spanKind(method)}`}>{spanType(method)}</span> : null}
        {method ? spanName(method) : <span className="muted">no root span</span>}
      </span>
      <span role="cell" className="ellipsis url" title={row.root?.requestURL}>{row.root?.requestURL ?? ''}</span>
      <span role="cell" className={`num status status-${cls || 'none'}`}>{row.status ?? '–'}</span>
      <span role="cell" className="num">{formatDuration(row.durationMs)}</span>
      <span role="cell" className="num">{row.spanCount}</span>
    </a>
  );
}
