// The selected project's traces, newest first, with filters kept in the hash (#/traces?range=1h&status=5xx...),
// a latency scatter of the loaded traces, and a virtualised list that loads pages of 100 as it scrolls.
//
// data-testid: traces-page, filter-* (components/TraceFilters.tsx), latency-chart, trace-table, trace-row,
// traces-empty (the project has no traces yet), traces-no-match (filters match nothing), no-project (components/NoProject.tsx),
// traces-load-more, traces-count, traces-refresh
import { useCallback, useEffect, useMemo, useRef } from 'react';
import * as client from '../api/client';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { LatencyChart } from '../components/LatencyChart';
import { CurlSnippet, OtelSnippet, SdkSnippet } from '../components/Snippets';
import { TraceFilters } from '../components/TraceFilters';
import { TraceTable } from '../components/TraceTable';
import { clampWindow, describeRange, resolveRange } from '../lib/time-range';
import { volumeOf } from '../lib/volume';
import { clearedFilters, isFiltered, onlyTyped, parseTraceParams, rootNames, toTraceFilter, traceParamsToHash, type TraceListParams, type TraceSort } from '../lib/trace-list';
import { ExportButton } from '../components/ExportButton';
import { sortTraces } from '../lib/trace-sort';
import { hrefInScope, navigateView, useRoute } from '../router';
import { useTimePrefs } from '../time-prefs';
import { useAsync } from '../use-async';
import { rememberTraceListHash, useTracePages } from '../trace-pages';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';

export function TracesPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const params = useMemo(() => parseTraceParams(route.params, ws.application?.id), [route.params, ws.application?.id]);
  // What the server reads: the filters, not the order (a sort reorders the rows loaded, it reads nothing again).
  const key = JSON.stringify({ ...traceParamsToHash(params), sort: undefined });
  const pages = useTracePages(ws.project?.id, params, key);
  // The list's whole URL (scope and order included), for a trace's "All traces" link.
  useEffect(() => rememberTraceListHash(location.hash || '#/traces'), [route.params]);

  // A filter change is a history entry (Back returns to the view before); a burst of typing is one entry.
  const apply = (next: TraceListParams) => navigateView('/traces', traceParamsToHash(next), onlyTyped(params, next) ? 'typing' : 'push');
  // The chart's bars: every request of the window, per bucket, from the metrics rollups (the dots are only the
  // traces loaded). GET /metrics reads at most 90 days: all time shows the last 90.
  const projectId = ws.project?.id;
  const window = useMemo(() => clampWindow(resolveRange(params.range, pages.since), VOLUME_MAX_MS, pages.since),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [JSON.stringify(params.range), pages.since]);
  const volume = useAsync((signal) => (projectId === undefined ? Promise.resolve(undefined)
    : client.metrics({ projectId, applicationId: params.applicationId, ...window }, signal).then(volumeOf)), [projectId, params.applicationId, window.from, window.to]);

  // Service and operation names seen on the loaded traces' roots: the filter fields suggest them.
  const names = useMemo(() => rootNames(pages.list.rows), [pages.list.rows]);
  // Stable, so the memoised chart does not draw its dots again on every render of the page.
  const paramsRef = useRef(params);
  paramsRef.current = params;
  const zoom = useCallback((from: number, to: number) => navigateView('/traces',
    traceParamsToHash({ ...paramsRef.current, range: { name: 'custom', from: new Date(from).toISOString(), to: new Date(to).toISOString() } })), []);

  const sorted = useMemo(() => sortTraces(pages.list.rows, params.sort), [pages.list.rows, params.sort]);

  if (!ws.project) return <NoProject what="Traces" />;

  const { list, loading, error, hasMore } = pages;
  const filtered = isFiltered(params);
  const nothing = !loading && !error && list.rows.length === 0;
  const everything = params.range.name === 'all' && !filtered;
  return (
    <section className="traces-page" data-testid="traces-page">
      <header className="page-head">
        <h1>Traces</h1>
        <span className="muted">{ws.project.name}</span>
        <ExportButton path="/logs/project" query={{ id: ws.project.id, ...toTraceFilter(params, pages.since) }} what="trace" />
        <button type="button" data-testid="traces-refresh" onClick={pages.reload} disabled={loading && !list.rows.length}>Refresh</button>
      </header>
      <TraceFilters
        params={params}
        applications={ws.applications}
        onChange={apply}
        onClear={filtered ? () => apply(clearedFilters(params)) : undefined}
        services={names.services}
        operations={names.operations}
        onOpenTrace={(traceId) => navigateView(`/traces/${traceId}`, {})}
      />
      <ErrorBanner error={error} onRetry={pages.retry} />
      {list.rows.length ? <LatencyChart rows={list.rows} projectId={ws.project.id} now={pages.since} onZoom={zoom} volume={volume.data} /> : null}
      {nothing ? <NoTraces projectId={ws.project.id} projectName={ws.project.name} params={params} everything={everything} onAllTime={() => apply({ ...params, range: { name: 'all' } })} /> : null}
      {list.rows.length ? (
        <TraceTable
          rows={sorted}
          applications={ws.applications}
          projectId={ws.project.id}
          now={pages.since}
          onNearEnd={hasMore && !error ? pages.loadMore : undefined}
          sort={params.sort}
          onSort={(sort) => apply({ ...params, sort })}
        />
      ) : null}
      <footer className="list-foot">
        {loading ? <Loading what={list.rows.length ? 'more traces' : 'traces'} /> : null}
        {list.rows.length ? (
          <span className="muted" data-testid="traces-count">
            {list.rows.length} trace{list.rows.length === 1 ? '' : 's'} loaded{hasMore ? '' : ', all shown'}
            {params.sort !== 'newest' ? `; sorted ${SORT_LABELS[params.sort]} among them (the list loads newest first)` : ''}
          </span>
        ) : null}
        {hasMore && !loading ? <button type="button" data-testid="traces-load-more" onClick={pages.loadMore}>Load more</button> : null}
      </footer>
    </section>
  );
}

/** GET /metrics takes a window of at most 90 days. */
const VOLUME_MAX_MS = 90 * 86_400_000;

const SORT_LABELS: Record<TraceSort, string> = {
  newest: 'newest first', oldest: 'oldest first', slowest: 'slowest first', fastest: 'fastest first', 'most-spans': 'by span count', status: 'by status',
};

/**
 * Nothing in view: a project with no trace at all gets how to send its first one; otherwise, nothing matches the
 * window and filters (asked once: does the project have any trace?).
 */
function NoTraces({ projectId, projectName, params, everything, onAllTime }: {
  projectId: number;
  projectName: string;
  params: TraceListParams;
  everything: boolean;
  onAllTime(): void;
}) {
  const { time } = useTimePrefs();
  const any = useAsync((signal) => (everything ? Promise.resolve(false) : client.listTraces(projectId, {}, 1, undefined, signal).then((p) => p.items.length > 0)), [projectId, everything]);
  if (!everything && any.data === undefined && !any.error) return null;
  if (everything || any.data === false) return <FirstTrace />;
  return (
    <EmptyState title="No traces match">
      <p data-testid="traces-no-match">
        No trace of {projectName} {isFiltered(params) ? 'matches these filters in' : 'was received in'} {describeRange(params.range, (iso) => time(iso))}.{' '}
        {params.range.name !== 'all' ? <button type="button" className="link" data-testid="traces-all-time" onClick={onAllTime}>Show all time</button> : null}
        {isFiltered(params) ? ' Or clear the filters.' : ''}
      </p>
    </EmptyState>
  );
}

/** The empty project: how to send a first trace, with a link to create a key. */
function FirstTrace() {
  const { params } = useRoute();
  return (
    <div data-testid="traces-empty">
      <EmptyState title="Send your first trace">
        <p>
          This project has no traces yet. Instrument an application with the SDK, point an OpenTelemetry exporter here, or send one span with curl. You need an
          API key of one of the project's applications: <a href={hrefInScope('/applications', params)}>create a key on the Applications page</a>.
        </p>
        <SdkSnippet ingestUrl={location.origin} />
        <CurlSnippet ingestUrl={location.origin} />
        <OtelSnippet ingestUrl={location.origin} />
      </EmptyState>
    </div>
  );
}
