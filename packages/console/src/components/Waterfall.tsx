// One trace's waterfall: a time axis, then one row per span (nested by depth, collapsible), each a bar placed at
// its offset from the trace start, coloured by type (controller, service, external, other) and red on error.
// A row is labelled with the span's OpenTelemetry `name` where it has one, else the name part of requestMethod; it
// names the span's service (service.name, else its application) when the trace crossed more than one.
// Virtualised: a 10,000-span trace puts only the rows in view in the DOM.
//
// data-testid: waterfall (container; data-span-count once laid out), span-row (each row; data-span-id,
// data-depth, aria-selected), span-toggle (a row's expand/collapse button), waterfall-axis
import { memo, useMemo, type KeyboardEvent } from 'react';
import type { Application } from '../api/types';
import { niceTicks } from '../lib/chart';
import { applicationName } from '../lib/applications';
import { formatDuration } from '../lib/format';
import { spanLabel, spanService } from '../lib/otel-span';
import type { WaterfallLayout, WaterfallRow } from '../lib/waterfall';
import { VirtualRows } from './VirtualRows';

export const SPAN_ROW_HEIGHT = 26;
/** Indentation stops growing past this depth (a 10,000-deep chain stays readable); the row's title says the depth. */
const MAX_INDENT_DEPTH = 24;

export interface WaterfallProps {
  layout: WaterfallLayout;
  /** The rows shown (collapsed subtrees left out): visibleRows(layout, collapsed). */
  rows: WaterfallRow[];
  collapsed: ReadonlySet<string>;
  selectedId: string | undefined;
  applications: Application[];
  onSelect(spanId: string): void;
  onToggle(spanId: string): void;
}

const pct = (v: number, total: number) => `${total > 0 ? (v / total) * 100 : 0}%`;

export function Waterfall({ layout, rows, collapsed, selectedId, applications, onSelect, onToggle }: WaterfallProps) {
  const total = layout.totalMs;
  const ticks = niceTicks(0, total || 1, 5).ticks.filter((t) => t <= total);
  const selectedIndex = selectedId === undefined ? -1 : rows.findIndex((r) => r.spanId === selectedId);
  const { multiApp, multiService } = useMemo(() => ({
    multiApp: new Set(layout.rows.map((r) => r.applicationId)).size > 1,
    multiService: new Set(layout.rows.map((r) => spanService(r.span)).filter(Boolean)).size > 1,
  }), [layout]);
  const where = (r: WaterfallRow): string | undefined => {
    const service = multiService ? spanService(r.span) : undefined;
    return service ?? (multiApp ? applicationName(applications, r.applicationId) : undefined);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const cur = rows[selectedIndex];
    const move = (i: number) => {
      const r = rows[Math.max(0, Math.min(rows.length - 1, i))];
      if (r) onSelect(r.spanId);
    };
    if (e.key === 'ArrowDown') move(selectedIndex + 1);
    else if (e.key === 'ArrowUp') move(selectedIndex < 0 ? 0 : selectedIndex - 1);
    else if (e.key === 'Home') move(0);
    else if (e.key === 'End') move(rows.length - 1);
    else if (cur && cur.childCount > 0 && ((e.key === 'ArrowLeft' && !collapsed.has(cur.spanId)) || (e.key === 'ArrowRight' && collapsed.has(cur.spanId)))) onToggle(cur.spanId);
    else return;
    e.preventDefault();
  };

  return (
    <div className="waterfall" data-testid="waterfall" data-span-count={layout.spanCount}>
      <div className="wf-grid wf-axis" data-testid="waterfall-axis" aria-hidden="true">
        <span className="wf-name">Span</span>
        <span className="wf-track">
          {ticks.map((t) => <span key={t} className="wf-tick" style={{ left: pct(t, total) }}>{formatDuration(t)}</span>)}
        </span>
      </div>
      <VirtualRows
        count={rows.length}
        rowHeight={SPAN_ROW_HEIGHT}
        rowKey={(i) => rows[i]!.spanId}
        scrollToIndex={selectedIndex >= 0 ? selectedIndex : undefined}
        className="wf-rows"
        containerProps={{ role: 'tree', tabIndex: 0, 'aria-label': `Spans of the trace (${layout.spanCount})`, onKeyDown }}
        renderRow={(i) => {
          const r = rows[i]!;
          return (
            <SpanRow
              row={r}
              total={total}
              collapsed={collapsed.has(r.spanId)}
              selected={r.spanId === selectedId}
              appName={where(r)}
              onSelect={onSelect}
              onToggle={onToggle}
            />
          );
        }}
      />
    </div>
  );
}

interface SpanRowProps {
  row: WaterfallRow;
  total: number;
  collapsed: boolean;
  selected: boolean;
  /** The span's service or application, when the trace crossed several. */
  appName: string | undefined;
  onSelect(spanId: string): void;
  onToggle(spanId: string): void;
}

const SpanRow = memo(function SpanRow({ row, total, collapsed, selected, appName, onSelect, onToggle }: SpanRowProps) {
  const name = spanLabel(row.span) || row.spanId;
  const indent = Math.min(row.depth, MAX_INDENT_DEPTH) * 14;
  const flags = [row.orphan ? 'parent missing' : '', row.cycle ? 'parent link cycle' : '', row.skewMs ? `clock skew adjusted by ${formatDuration(row.skewMs)}` : '']
    .filter(Boolean).join(', ');
  const left = total > 0 ? (row.offsetMs / total) * 100 : 0;
  return (
    <div
      className={`wf-grid wf-row${selected ? ' selected' : ''}${row.error ? ' is-error' : ''}`}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-expanded={row.childCount > 0 ? !collapsed : undefined}
      data-testid="span-row"
      data-span-id={row.spanId}
      data-depth={row.depth}
      title={`${row.span.requestMethod ?? ''} · depth ${row.depth}${flags ? ` · ${flags}` : ''}`}
      onClick={() => onSelect(row.spanId)}
    >
      <span className="wf-name" style={{ paddingLeft: indent }}>
        {row.childCount > 0 ? (
          <button
            type="button"
            className="wf-toggle"
            data-testid="span-toggle"
            aria-label={collapsed ? `Expand (${row.childCount} children)` : 'Collapse'}
            onClick={(e) => { e.stopPropagation(); onToggle(row.spanId); }}
          >
            {collapsed ? '▸' : '▾'}
          </button>
        ) : <span className="wf-toggle" />}
        <span className={`kind kind-${row.kind}`}>{row.type}</span>
        <span className="wf-label">{name}</span>
        {appName ? <span className="muted wf-app">{appName}</span> : null}
        {row.skewMs ? <span className="wf-flag" title={`Clock skew adjusted by ${formatDuration(row.skewMs)}`}>skew</span> : null}
        {row.orphan || row.cycle ? <span className="wf-flag" title={flags}>{row.orphan ? 'orphan' : 'cycle'}</span> : null}
      </span>
      <span className="wf-track">
        <span
          className={`wf-bar kind-${row.kind}${row.error ? ' is-error' : ''}`}
          style={{ left: `${left}%`, width: pct(row.durationMs, total) }}
        />
        <span className={`wf-dur${left > 70 ? ' before' : ''}`} style={left > 70 ? { right: `${100 - left}%` } : { left: `calc(${left}% + ${pct(row.durationMs, total)} + 4px)` }}>
          {formatDuration(row.durationMs)}
        </span>
      </span>
    </div>
  );
});
