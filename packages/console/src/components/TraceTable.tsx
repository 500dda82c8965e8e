// The traces list as a virtualised table: only the rows in view are in the DOM, however many pages are loaded.
// Scrolling near the end asks for the next page (onNearEnd).
//
// The Service column is the root span's service.name (OpenTelemetry), else its application's name.
//
// The Time, Status, Duration and Spans headings sort the loaded rows (lib/trace-sort.ts); aria-sort says which.
// The rows are one tab stop: j/k and the arrows move between them (lib/list-keys.ts), Enter opens one.
//
// data-testid: trace-table (the scroll container), trace-row (each row: a link to #/traces/<traceId>,
// data-trace-id), trace-service (a row's Service cell), sort-time, sort-status, sort-duration, sort-spans
import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import type { Application } from '../api/types';
import { applicationName } from '../lib/applications';
import { formatDuration, spanName, spanType, statusClass } from '../lib/format';
import type { TraceSort, TraceSummary } from '../lib/trace-list';
import { nextSort } from '../lib/trace-sort';
import { listStep } from '../lib/list-keys';
import { spanKind } from '../lib/waterfall';
import { traceHref } from '../router';
import { VirtualRows } from './VirtualRows';
import { useTimePrefs } from '../time-prefs';

export const TRACE_ROW_HEIGHT = 34;

export interface TraceTableProps {
  rows: readonly TraceSummary[];
  applications: Application[];
  /** The project the rows belong to: named in each row's link. */
  projectId: number;
  now: number;
  onNearEnd?: () => void;
  sort: TraceSort;
  onSort(sort: TraceSort): void;
}

type Column = 'time' | 'duration' | 'spans' | 'status';
const SORTED_BY: Record<TraceSort, [Column, 'ascending' | 'descending']> = {
  newest: ['time', 'descending'], oldest: ['time', 'ascending'], slowest: ['duration', 'descending'], fastest: ['duration', 'ascending'],
  'most-spans': ['spans', 'descending'], status: ['status', 'descending'],
};

/** A heading that sorts the rows by its column: a button, its state in aria-sort. */
function SortHeading({ column, label, sort, onSort, className, children }: {
  column: Column; label: string; sort: TraceSort; onSort(sort: TraceSort): void; className?: string; children?: ReactNode;
}) {
  const [by, direction] = SORTED_BY[sort];
  const on = by === column;
  return (
    <span role="columnheader" className={className} aria-sort={on ? direction : 'none'}>
      <button type="button" className="sort-heading" data-testid={`sort-${column}`} onClick={() => onSort(nextSort(column, sort))}
        title={`Sort the loaded traces by ${label.toLowerCase()}`}>
        {children ?? label}{on ? (direction === 'descending' ? ' ▾' : ' ▴') : ''}
      </button>
    </span>
  );
}


export function TraceTable({ rows, applications, projectId, now, onNearEnd, sort, onSort }: TraceTableProps) {
  const { short } = useTimePrefs();
  // The row that takes the focus when the list is tabbed into, and that the keys move.
  const [current, setCurrent] = useState(0);
  // The row the keys moved to, until it has the focus: it may mount only after the list scrolls to it (Home, End).
  const [focusTarget, setFocusTarget] = useState<number>();
  const body = useRef<HTMLDivElement>(null);
  const at = Math.min(current, Math.max(0, rows.length - 1));
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const next = listStep(rows.length, at, e.key);
    if (next === undefined) return;
    e.preventDefault();
    setCurrent(next);
    setFocusTarget(next);
  };
  const focused = useCallback(() => setFocusTarget(undefined), []);
  // A list read again (new filters, Refresh) starts empty: a row the keys moved to in the old one is not waited for.
  useEffect(() => {
    if (rows.length === 0) setFocusTarget(undefined);
  }, [rows.length]);
  return (
    <div ref={body} className="trace-table" role="table" aria-label="Traces" aria-rowcount={rows.length}>
      <div className="trace-grid trace-head" role="row">
        <SortHeading column="time" label="Time" sort={sort} onSort={onSort}>
          <span data-testid="trace-time-heading">Time <span className="muted">({short})</span></span>
        </SortHeading>
        <span role="columnheader" title="The root span's service.name, else its application">Service</span>
        <span role="columnheader" title="The root span's operation: its OpenTelemetry name, else its method (with its route)">Operation</span>
        <span role="columnheader">URL</span>
        <SortHeading column="status" label="Status" sort={sort} onSort={onSort} className="num" />
        <SortHeading column="duration" label="Duration" sort={sort} onSort={onSort} className="num" />
        <SortHeading column="spans" label="Spans" sort={sort} onSort={onSort} className="num" />
      </div>
      <VirtualRows
        count={rows.length}
        rowHeight={TRACE_ROW_HEIGHT}
        rowKey={(i) => rows[i]!.traceId}
        onNearEnd={onNearEnd}
        scrollToIndex={focusTarget}
        containerProps={{ 'data-testid': 'trace-table', role: 'rowgroup', onKeyDown, onFocus: (e) => {
          const index = Number((e.target as HTMLElement).dataset['rowIndex']);
          if (Number.isInteger(index) && index !== at) setCurrent(index);
        } }}
        renderRow={(i) => <TraceRow row={rows[i]!} index={i} current={i === at} focusNow={i === focusTarget} onFocused={focused}
          applications={applications} projectId={projectId} now={now} />}
      />
    </div>
  );
}

function TraceRow({ row, index, current, focusNow, onFocused, applications, projectId, now }: {
  row: TraceSummary; index: number; current: boolean; applications: Application[]; projectId: number; now: number;
  /** The keys moved here: take the focus once mounted, then say so. */
  focusNow: boolean;
  onFocused(): void;
}) {
  const link = useRef<HTMLAnchorElement>(null);
  useEffect(() => {
    if (!focusNow) return;
    link.current?.focus();
    onFocused();
  }, [focusNow, onFocused]);
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
      ref={link}
      data-row-index={index}
      tabIndex={current ? 0 : -1}
      href={traceHref(row.traceId, projectId)}
    >
      <span role="cell" title={new Date(row.startMs).toISOString()}>{time(new Date(row.startMs).toISOString(), now)}</span>
      <span role="cell" className="ellipsis" data-testid="trace-service" title={service && service !== app ? `service.name ${service}, application ${app}` : app}>
        {service ?? app}
        {others > 0 ? <span className="muted"> +{others}</span> : null}
      </span>
      <span role="cell" className="ellipsis">
        {method ? <span className={`kind kind-${spanKind(method)}`}>{spanType(method)}</span> : null}
        {method || row.root?.operation ? (row.root?.operation ?? spanName(method)) : <span className="muted">no root span</span>}
      </span>
      <span role="cell" className="ellipsis url" title={row.root?.requestURL}>{row.root?.requestURL ?? ''}</span>
      <span role="cell" className={`num status status-${cls || 'none'}`}>{row.status ?? '–'}</span>
      <span role="cell" className="num">{formatDuration(row.durationMs)}</span>
      <span role="cell" className="num">{row.spanCount}</span>
    </a>
  );
}
