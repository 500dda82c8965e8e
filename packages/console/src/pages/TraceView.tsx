// One trace, `#/traces/<traceId>` (`?span=<spanId>` selects a span): every application's record of the trace
// joined into one waterfall, the selected span's details, and the logs written during the trace, each under the
// span that wrote it. A trace that failed opens on the span where the failure began, its cause and logs shown.
//
// data-testid: trace-view (data-trace-id), trace-summary, trace-services (its OpenTelemetry services), trace-back,
// trace-not-found, trace-expand-all, trace-collapse-all; waterfall, span-row, span-details (components/Waterfall.tsx,
// SpanDetails.tsx); trace-logs, trace-log (components/TraceLogs.tsx)
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import * as client from '../api/client';
import type { LogEntry } from '../api/types';
import { ApiError } from '../api/errors';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { SpanDetails } from '../components/SpanDetails';
import { TraceLogs } from '../components/TraceLogs';
import { Waterfall } from '../components/Waterfall';
import { useAsync } from '../use-async';
import { applicationName } from '../lib/applications';
import { formatDuration, spanName } from '../lib/format';
import { spanService } from '../lib/otel-span';
import { parseTraceId } from '../lib/trace-id';
import { failingSpan } from '../lib/trace-failure';
import { groupLogsBySpan, withLogRows, type SpanLogs } from '../lib/trace-logs';
import { allCollapsible, layoutTrace, visibleRows, type WaterfallLayout } from '../lib/waterfall';
import { hrefInScope, navigateView, useRoute } from '../router';
import { MAX_TRACE_LOGS, useTraceLogs } from '../trace-logs-feed';
import { traceListHash } from '../trace-pages';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';
import { useTimePrefs } from '../time-prefs';

export function TraceViewPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const segment = route.path.slice('/traces/'.length);
  const traceId = parseTraceId(segment);
  // Not a trace id (`#/traces/`, a typo, a cut link): nothing to ask the API for. Asked without a traceId, it
  // would list every trace of the project.
  if (traceId === undefined) return <TraceNotFound shownId={shownSegment(segment)} malformed />;
  if (!ws.project) return <NoProject what="Traces" />;
  // A new trace or project starts from a clean view (nothing collapsed, no stale answer shown meanwhile).
  return <TraceScreen key={`${ws.project.id}/${traceId}`} projectId={ws.project.id} traceId={traceId} selectedId={route.params.get('span')?.toLowerCase()} />;
}

function TraceScreen({ projectId, traceId, selectedId }: { projectId: number; traceId: string; selectedId: string | undefined }) {
  const ws = useWorkspace();
  const trace = useAsync((signal) => client.traceRecords(projectId, traceId, signal), [projectId, traceId]);
  const logs = useTraceLogs(projectId, traceId);
  const { params } = useRoute();
  const layout = useMemo(() => (trace.data?.length ? layoutTrace(trace.data) : undefined), [trace.data]);
  // An application created since the workspace was read (another tab, the CLI): read the names again, once.
  const unknownApp = trace.data?.some((r) => !ws.applications.some((a) => a.id === r.applicationId)) ?? false;
  const { refresh } = ws;
  useEffect(() => {
    if (unknownApp) void refresh().catch(() => undefined);
    // Once per trace: refresh changes with the workspace, and a record of an application deleted since stays unknown.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [unknownApp, traceId]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const rows = useMemo(() => (layout ? visibleRows(layout, collapsed) : []), [layout, collapsed]);
  // Each log under the span that wrote it; a log of no span of the trace under the root.
  const spanLogs = useMemo<SpanLogs>(() => (layout
    ? groupLogsBySpan(logs.logs, new Set(layout.rows.map((r) => r.spanId)), layout.rows[0]?.spanId)
    : { bySpan: new Map(), unplaced: 0 }), [layout, logs.logs]);
  const [openLogs, setOpenLogs] = useState<ReadonlySet<string>>(() => new Set());
  const items = useMemo(() => withLogRows(rows, spanLogs.bySpan, openLogs), [rows, spanLogs, openLogs]);
  const [highlightLogId, setHighlightLogId] = useState<string>();

  // In place: stepping through spans with the arrow keys is not a history of views. The URL keeps its scope.
  const select = useCallback((spanId: string | undefined, logId?: string) => {
    setHighlightLogId(logId);
    navigateView(`/traces/${traceId}`, { span: spanId }, 'replace');
  }, [traceId]);
  // A log of the side panel opens its span, the log marked. Stable, so the memoised panel does not redraw its logs.
  const spanLogsRef = useRef(spanLogs);
  spanLogsRef.current = spanLogs;
  const openLog = useCallback((log: LogEntry) => {
    for (const [spanId, list] of spanLogsRef.current.bySpan) {
      if (list.some((l) => l.id === log.id)) return select(spanId, log.id);
    }
  }, [select]);
  const toggleLogs = useCallback((spanId: string) => setOpenLogs((s) => {
    const next = new Set(s);
    if (!next.delete(spanId)) next.add(spanId);
    return next;
  }), []);

  // Focus lands on what opened: the waterfall (its arrow keys and j/k move through the spans), once laid out.
  const focused = useRef(false);
  useEffect(() => {
    if (!layout || focused.current) return;
    focused.current = true;
    document.querySelector<HTMLElement>('[data-waterfall-keys]')?.focus({ preventScroll: true });
  }, [layout]);

  // A trace that failed opens on the span where the failure began (once, if no span is chosen), its logs open.
  const failing = useMemo(() => (layout ? failingSpan(layout.rows) : undefined), [layout]);
  const opened = useRef(false);
  useEffect(() => {
    if (!layout || opened.current) return;
    opened.current = true;
    if (!failing) return;
    setOpenLogs((s) => new Set(s).add(failing.spanId));
    if (!selectedId) select(failing.spanId);
  }, [layout, failing, selectedId, select]);
  const toggle = useCallback((spanId: string) => setCollapsed((s) => {
    const next = new Set(s);
    if (!next.delete(spanId)) next.add(spanId);
    return next;
  }), []);

  const back = <BackLink />;
  const notFound = (trace.error instanceof ApiError && trace.error.status === 404) || (trace.data && !trace.data.length);
  if (notFound) return <TraceNotFound shownId={traceId} projectName={ws.project?.name} onLookAgain={trace.reload} />;

  const selected = layout && selectedId ? layout.rows.find((r) => r.spanId === selectedId) : undefined;
  const parentApp = selected?.parentSpanId ? layout?.rows.find((r) => r.spanId === selected.parentSpanId)?.applicationId : undefined;
  return (
    <section className="trace-view" data-testid="trace-view" data-trace-id={traceId}>
      {back}
      <ErrorBanner error={trace.error} onRetry={trace.reload} />
      {trace.loading && !layout ? <Loading what="the trace" /> : null}
      {layout ? (
        <>
          <TraceSummary layout={layout} traceId={traceId} />
          <div className="trace-body">
            <div className="trace-main">
              <div className="toolbar">
                <button type="button" data-testid="trace-expand-all" disabled={!collapsed.size} onClick={() => setCollapsed(new Set())}>Expand all</button>
                <button type="button" data-testid="trace-collapse-all" onClick={() => setCollapsed(allCollapsible(layout))}>Collapse all</button>
                <span className="muted">{rows.length === layout.spanCount ? `${layout.spanCount} spans` : `${rows.length} of ${layout.spanCount} spans shown`}</span>
              </div>
              <Waterfall
                layout={layout}
                items={items}
                collapsed={collapsed}
                selectedId={selected?.spanId}
                applications={ws.applications}
                logsBySpan={spanLogs.bySpan}
                openLogs={openLogs}
                onSelect={select}
                onToggle={toggle}
                onToggleLogs={toggleLogs}
              />
            </div>
            <aside className="trace-side">
              {selected ? (
                <SpanDetails
                  row={selected}
                  applicationName={applicationName(ws.applications, selected.applicationId)}
                  parentApplicationName={parentApp === undefined ? undefined : applicationName(ws.applications, parentApp)}
                  projectId={projectId}
                  logs={spanLogs.bySpan.get(selected.spanId)}
                  highlightLogId={highlightLogId}
                  traceStartMs={layout.startMs}
                  onClose={() => select(undefined)}
                />
              ) : <p className="muted hint">Select a span to see all its fields.</p>}
              <TraceLogs
                logs={logs.logs}
                loading={logs.loading}
                error={logs.error}
                onRetry={logs.reload}
                applications={ws.applications}
                traceStartMs={layout.startMs}
                truncated={logs.truncated}
                limit={MAX_TRACE_LOGS}
                allHref={hrefInScope('/logs', params, { traceId, range: 'all' })}
                onOpen={openLog}
              />
            </aside>
          </div>
        </>
      ) : null}
    </section>
  );
}

function BackLink() {
  return <a className="back" data-testid="trace-back" href={traceListHash()}>← All traces</a>;
}

/** The path segment as the reader typed it (decoded when it can be), cut short: it is shown, never looked up. */
function shownSegment(segment: string): string {
  let s = segment;
  try {
    s = decodeURIComponent(s);
  } catch {
    // shown as written
  }
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}

/** A trace the project does not hold, or (`malformed`) a link whose id is no trace id at all. */
function TraceNotFound({ shownId, malformed, projectName, onLookAgain }: { shownId: string; malformed?: boolean; projectName?: string; onLookAgain?: () => void }) {
  return (
    <section className="trace-view" data-testid="trace-view" data-trace-id={shownId}>
      <BackLink />
      <div data-testid="trace-not-found">
        <EmptyState title="Trace not found">
          {malformed ? (
            <p>{shownId.trim() ? <><code>{shownId}</code> is not a trace id.</> : 'This link names no trace.'} A trace id is a UUID, like <code>6f1c2b0e-6d1a-4a55-8f4e-2b8d2f6b1c11</code>.</p>
          ) : (
            <p>No trace <code>{shownId}</code> in {projectName ?? 'this project'}. It may belong to another project, or its spans have not arrived yet.</p>
          )}
          {onLookAgain ? <button type="button" onClick={onLookAgain}>Look again</button> : null}
        </EmptyState>
      </div>
    </section>
  );
}

function TraceSummary({ layout, traceId }: { layout: WaterfallLayout; traceId: string }) {
  const { time, short } = useTimePrefs();
  const { params } = useRoute();
  const ws = useWorkspace();
  const root = layout.rows.find((r) => r.depth === 0 && !r.orphan && !r.cycle) ?? layout.rows[0];
  const apps = [...new Set(layout.rows.map((r) => r.applicationId))].map((id) => applicationName(ws.applications, id));
  // OpenTelemetry spans name their service (service.name); Lantern SDK spans do not.
  const services = useMemo(() => [...new Set(layout.rows.map((r) => spanService(r.span)).filter((s): s is string => s !== undefined))], [layout]);
  const errors = layout.rows.reduce((n, r) => n + (r.error ? 1 : 0), 0);
  const notes = [
    layout.skewedCount ? `clock skew adjusted on ${layout.skewedCount} span${layout.skewedCount === 1 ? '' : 's'}` : '',
    layout.orphanCount ? `${layout.orphanCount} span${layout.orphanCount === 1 ? '' : 's'} whose parent is missing` : '',
    layout.cycleCount ? `${layout.cycleCount} parent-link cycle${layout.cycleCount === 1 ? '' : 's'} broken` : '',
    layout.duplicateCount ? `${layout.duplicateCount} repeated span id${layout.duplicateCount === 1 ? '' : 's'} shown once` : '',
  ].filter(Boolean);
  return (
    <header className="trace-summary" data-testid="trace-summary">
      <h1 className="ellipsis">
        {root ? <>{spanName(root.span.requestMethod ?? '')} <span className="url">{root.span.requestURL ?? ''}</span></> : traceId}
      </h1>
      <p className="facts-line">
        <span title={new Date(layout.startMs).toISOString()}>{time(new Date(layout.startMs).toISOString(), Date.now(), { ms: true })} <span className="muted">{short}</span></span>
        <span>{formatDuration(layout.totalMs)}</span>
        <span>{layout.spanCount} span{layout.spanCount === 1 ? '' : 's'}</span>
        {root?.span.responseStatus !== undefined ? <span className={root.error ? 'error-text' : undefined}>status {root.span.responseStatus}</span> : null}
        {errors ? <span className="error-text">{errors} error span{errors === 1 ? '' : 's'}</span> : null}
        <span>{apps.join(', ')}</span>
        {services.length ? <span data-testid="trace-services">{services.length === 1 ? 'service' : 'services'} {services.join(', ')}</span> : null}
        <code className="muted" title="Trace id">{traceId}</code>
        <a data-testid="trace-compare" href={hrefInScope('/compare', params, { a: traceId })}>Compare with another trace</a>
      </p>
      {notes.length ? <p className="note">Drawn with {notes.join('; ')}.</p> : null}
    </header>
  );
}
