// One trace's waterfall: a time axis, then one row per span (nested by depth, collapsible), each a bar placed at
// its offset from the trace start, coloured by type (controller, service, external, other) and red on error.
// A row is labelled with the span's OpenTelemetry `name` where it has one, else the name part of requestMethod; it
// names the span's service (service.name, else its application) when the trace crossed more than one.
// A span that wrote logs has a badge with their count; opening it shows each log in a row under the span.
// Virtualised: a 10,000-span trace puts only the rows in view in the DOM.
//
// data-testid: waterfall (container; data-span-count once laid out), span-row (each row; data-span-id,
// data-depth, aria-selected), span-toggle (a row's expand/collapse button), span-logs-toggle (a span's log
// badge; data-log-count, aria-expanded), span-log (a log row under its span; data-log-id, data-level),
// waterfall-axis
import { memo, useMemo, type KeyboardEvent } from 'react';
import type { Application, LogEntry } from '../api/types';
import { niceTicks } from '../lib/chart';
import { applicationName } from '../lib/applications';
import { formatDuration } from '../lib/format';
import { spanLabel, spanService } from '../lib/otel-span';
import { isLogLevel } from '../lib/log-list';
import { worstLevel, type WaterfallItem } from '../lib/trace-logs';
import type { WaterfallLayout, WaterfallRow } from '../lib/waterfall';
import { VirtualRows } from './VirtualRows';

export const SPAN_ROW_HEIGHT = 26;
/** Indentation stops growing past this depth (a 10,000-deep chain stays readable); the row's title says the depth. */
const MAX_INDENT_DEPTH = 24;

export interface WaterfallProps {
  layout: WaterfallLayout;
  /** The rows shown: withLogRows(visibleRows(layout, collapsed), logs, openLogs). */
  items: WaterfallItem[];
  collapsed: ReadonlySet<string>;
  selectedId: string | undefined;
  applications: Application[];
  /** Each span's logs (lib/trace-logs.ts), for its badge. */
  logsBySpan: ReadonlyMap<string, LogEntry[]>;
  /** Spans whose logs are shown under them. */
  openLogs: ReadonlySet<string>;
  onSelect(spanId: string, logId?: string): void;
  onToggle(spanId: string): void;
  onToggleLogs(spanId: string): void;
}

const pct = (v: number, total: number) => `${total > 0 ? (v / total) * 100 : 0}%`;

export function Waterfall({ layout, items, collapsed, selectedId, applications, logsBySpan, openLogs, onSelect, onToggle, onToggleLogs }: WaterfallProps) {
  const total = layout.totalMs;
  const ticks = niceTicks(0, total || 1, 5).ticks.filter((t) => t <= total);
  // The arrow keys step through spans; log rows are passed over.
  const rows = useMemo(() => items.flatMap((i) => (i.kind === 'span' ? [i.row] : [])), [items]);
  const selectedIndex = selectedId === undefined ? -1 : rows.findIndex((r) => r.spanId === selectedId);
  const selectedItem = selectedId === undefined ? -1 : items.findIndex((i) => i.kind === 'span' && i.row.spanId === selectedId);
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
    if (e.key === 'ArrowDown' || e.key === 'j') move(selectedIndex + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(selectedIndex < 0 ? 0 : selectedIndex - 1);
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
        count={items.length}
        rowHeight={SPAN_ROW_HEIGHT}
        rowKey={(i) => items[i]!.key}
        scrollToIndex={selectedItem >= 0 ? selectedItem : undefined}
        className="wf-rows"
        containerProps={{ role: 'tree', tabIndex: 0, 'aria-label': `Spans of the trace (${layout.spanCount})`, onKeyDown, 'data-waterfall-keys': 'on' }}
        renderRow={(i) => {
          const item = items[i]!;
          const r = item.row;
          if (item.kind === 'log') return <LogLine log={item.log} row={r} startMs={layout.startMs} onSelect={onSelect} />;
          return (
            <SpanRow
              row={r}
              total={total}
              collapsed={collapsed.has(r.spanId)}
              selected={r.spanId === selectedId}
              appName={where(r)}
              logs={logsBySpan.get(r.spanId)}
              logsOpen={openLogs.has(r.spanId)}
              onSelect={onSelect}
              onToggle={onToggle}
              onToggleLogs={onToggleLogs}
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
  logs: LogEntry[] | undefined;
  logsOpen: boolean;
  onSelect(spanId: string): void;
  onToggle(spanId: string): void;
  onToggleLogs(spanId: string): void;
}

const SpanRow = memo(function SpanRow({ row, total, collapsed, selected, appName, logs, logsOpen, onSelect, onToggle, onToggleLogs }: SpanRowProps) {
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
        {logs?.length ? (
          <button
            type="button"
            className={`wf-logs wf-logs-${worstLevel(logs)}`}
            data-testid="span-logs-toggle"
            data-log-count={logs.length}
            aria-expanded={logsOpen}
            aria-label={`${logsOpen ? 'Hide' : 'Show'} the ${logs.length} log${logs.length === 1 ? '' : 's'} of this span`}
            onClick={(e) => { e.stopPropagation(); onToggleLogs(row.spanId); }}
          >
            {logsOpen ? '▾' : '▸'} {logs.length} log{logs.length === 1 ? '' : 's'}
          </button>
        ) : null}
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

/** One log under its span: time from the trace's start, level, message on one line; a click shows it whole. */
const LogLine = memo(function LogLine({ log, row, startMs, onSelect }: { log: LogEntry; row: WaterfallRow; startMs: number; onSelect(spanId: string, logId?: string): void }) {
  const indent = (Math.min(row.depth, MAX_INDENT_DEPTH) + 1) * 14 + 18;
  const t = Date.parse(log.timestamp);
  const level = isLogLevel(log.level) ? log.level : 'info';
  return (
    <div
      className={`wf-grid wf-log tl-${level}`}
      role="treeitem"
      aria-level={row.depth + 2}
      data-testid="span-log"
      data-log-id={log.id}
      data-level={log.level}
      title={log.message}
      onClick={() => onSelect(row.spanId, log.id)}
    >
      <span className="wf-name wf-log-head" style={{ paddingLeft: indent }}>
        <span className="tl-level">{log.level}</span>
        <span className="muted">{Number.isFinite(t) ? `+${formatDuration(Math.max(0, t - startMs))}` : ''}</span>
      </span>
      <span className="wf-log-message ellipsis">{log.message}</span>
    </div>
  );
});
