// The selected project's traces, newest first, with filters kept in the hash (#/traces?range=1h&status=5xx...),
// a latency scatter of the loaded traces, and a virtualised list that loads pages of 100 as it scrolls.
//
// data-testid: traces-page, filter-* (components/TraceFilters.tsx), latency-chart, trace-table, trace-row,
// traces-empty (the project has no traces yet), traces-no-match (filters match nothing), no-project (components/NoProject.tsx),
// traces-load-more, traces-count, traces-refresh
import { useEffect, useMemo, useRef } from 'react';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { LatencyChart } from '../components/LatencyChart';
import { CurlSnippet, OtelSnippet, SdkSnippet } from '../components/Snippets';
import { TraceFilters } from '../components/TraceFilters';
import { TraceTable } from '../components/TraceTable';
import { describeRange } from '../lib/time-range';
import { isFiltered, parseTraceParams, traceParamsToHash, type TraceListParams } from '../lib/trace-list';
import { href, navigate, useRoute } from '../router';
import { rememberTraceListHash, useTracePages } from '../trace-pages';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';

export function TracesPage() {
  const ws = useWorkspace();
  const route = useRoute();
  const params = useMemo(() => parseTraceParams(route.params, ws.application?.id), [route.params, ws.application?.id]);
  const key = JSON.stringify(traceParamsToHash(params));
  const pages = useTracePages(ws.project?.id, params, key);
  useEffect(() => rememberTraceListHash(location.hash || '#/traces'), [key]);

  const apply = (next: TraceListParams) => {
    navigate('/traces', traceParamsToHash(next), true);
    if (next.applicationId !== params.applicationId) ws.selectApplication(next.applicationId);
  };

  // The top bar's application switcher moves the list's application filter too.
  const wsApp = ws.application?.id;
  const lastWsApp = useRef(wsApp);
  useEffect(() => {
    if (lastWsApp.current === wsApp) return;
    lastWsApp.current = wsApp;
    if (params.applicationId !== wsApp) navigate('/traces', traceParamsToHash({ ...params, applicationId: wsApp }), true);
  }, [wsApp, params]);

  if (!ws.project) return <NoProject what="Traces" />;

  const { list, loading, error, hasMore } = pages;
  const filtered = isFiltered(params);
  const nothing = !loading && !error && list.rows.length === 0;
  return (
    <section className="traces-page" data-testid="traces-page">
      <header className="page-head">
        <h1>Traces</h1>
        <span className="muted">{ws.project.name}</span>
        <button type="button" data-testid="traces-refresh" onClick={pages.reload} disabled={loading && !list.rows.length}>Refresh</button>
      </header>
      <TraceFilters
        params={params}
        applications={ws.applications}
        onChange={apply}
        onClear={filtered ? () => apply({ range: { name: 'all' }, applicationId: undefined, status: '', minDurationMs: undefined, url: '' }) : undefined}
      />
      <ErrorBanner error={error} onRetry={pages.retry} />
      {list.rows.length ? <LatencyChart rows={list.rows} projectId={ws.project.id} now={pages.since} /> : null}
      {nothing && !filtered ? <FirstTrace /> : null}
      {nothing && filtered ? (
        <EmptyState title="No traces match">
          <p data-testid="traces-no-match">
            No trace of {ws.project.name} matches these filters in {describeRange(params.range)}. Widen the time range or clear the filters.
          </p>
        </EmptyState>
      ) : null}
      {list.rows.length ? <TraceTable rows={list.rows} applications={ws.applications} projectId={ws.project.id} now={pages.since} onNearEnd={hasMore && !error ? pages.loadMore : undefined} /> : null}
      <footer className="list-foot">
        {loading ? <Loading what={list.rows.length ? 'more traces' : 'traces'} /> : null}
        {list.rows.length ? (
          <span className="muted" data-testid="traces-count">
            {list.rows.length} trace{list.rows.length === 1 ? '' : 's'} loaded{hasMore ? '' : ', all shown'}
          </span>
        ) : null}
        {hasMore && !loading ? <button type="button" data-testid="traces-load-more" onClick={pages.loadMore}>Load more</button> : null}
      </footer>
    </section>
  );
}

/** The empty project: how to send a first trace, with a link to create a key. */
function FirstTrace() {
  return (
    <div data-testid="traces-empty">
      <EmptyState title="Send your first trace">
        <p>
          This project has no traces yet. Instrument an application with the SDK, point an OpenTelemetry exporter here, or send one span with curl. You need an
          API key of one of the project's applications: <a href={href('/applications')}>create a key on the Applications page</a>.
        </p>
        <SdkSnippet ingestUrl={location.origin} />
        <CurlSnippet ingestUrl={location.origin} />
        <OtelSnippet ingestUrl={location.origin} />
      </EmptyState>
    </div>
  );
}
