// Service map: the applications of the selected project and the calls between them in the window, from
// GET /metrics/services (counted as spans are written, like the metrics rollups: no batch job). A call is an entry
// span of one application whose parent is a span of another application of the project: the request the caller sent
// reached the callee. Drawn by components/ServiceMapGraph.tsx (dagre's layout), listed by
// components/ServiceMapTables.tsx. An application chosen in the top bar (or the URL) draws the map around it: it, its
// callers and its callees.
//
// One read per view (and per auto-refresh tick, `refresh=off|30s|1m|5m` in the URL, 30 s when absent, skipped while
// the read is in flight or the tab is hidden): the server allows 4 reads in flight per user.
//
// data-testid: service-map-page (data-loading: "true" while the read is in flight; data-from, data-to: the window
// read), service-map-summary, service-map-focus (the note of a map drawn around one application), service-map-empty
// (no call in the window), service-map-auto-refresh (the <select> of the interval; disabled for a fixed window); the
// drawing's and the tables' in their components
import { useMemo } from 'react';
import * as client from '../api/client';
import type { Project } from '../api/types';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { NoProject } from '../components/NoProject';
import { ServiceMapGraph } from '../components/ServiceMapGraph';
import { ServiceMapTables } from '../components/ServiceMapTables';
import { TimeRangeSelect } from '../components/TimeRangeSelect';
import { formatCount } from '../lib/format';
import { METRICS_RANGES, metricsBounds, parseRefresh, readMetricsRange, refreshParam, viewWriter } from '../lib/metrics-view';
import { AutoRefreshSelect } from '../components/AutoRefreshSelect';
import { buildGraph } from '../lib/service-map';
import { describeRange, rangeParams, type TimeRange } from '../lib/time-range';
import { viewApplicationId } from '../lib/view-scope';
import { hrefInScope, useRoute } from '../router';
import { useTimePrefs } from '../time-prefs';
import { useAsync } from '../use-async';
import { useAutoRefresh } from '../use-auto-refresh';
import { useWorkspace } from '../workspace';


export function ServiceMapPage() {
  const ws = useWorkspace();
  const { params } = useRoute();
  if (!ws.project) return <NoProject what="Service maps" />;
  return <ProjectMap project={ws.project} focus={viewApplicationId(params, ws.application?.id)} />;
}

const writeView = viewWriter('/map');

function ProjectMap({ project, focus }: { project: Project; focus: number | undefined }) {
  const ws = useWorkspace();
  const { params } = useRoute();
  const range = readMetricsRange(params);
  const report = useAsync((signal) => {
    const now = Date.now();
    // A named range ends now: at each read, Refresh and auto-refresh included.
    const bounds = metricsBounds(range, now);
    return client.serviceMap({ projectId: project.id, ...bounds }, signal);
  }, [project.id, JSON.stringify(range)]);

  const refresh = parseRefresh(params.get('refresh'));
  const follows = range.name !== 'custom';
  useAutoRefresh(follows ? refresh.ms : 0, report.loading, report.reload);

  const data = report.data;
  const graph = useMemo(() => {
    if (!data) return undefined;
    const names = new Map(ws.applications.map((a) => [a.id, a.name]));
    return buildGraph(data, (id) => names.get(id) ?? `Application #${id}`, focus);
  }, [data, ws.applications, focus]);

  const prefs = useTimePrefs();
  const time = (iso: string) => prefs.time(iso);
  // The end with its date too when the start has one.
  const span = (from: string, to: string) => (time(from).includes(' ') ? prefs.time(to, NaN) : time(to));
  const focusName = focus === undefined ? undefined : ws.applications.find((a) => a.id === focus)?.name ?? `Application #${focus}`;
  const calls = graph?.edges.reduce((n, e) => n + e.calls, 0) ?? 0;
  const window = data ? { from: data.from, to: data.to } : undefined;

  return (
    <section className="service-map-page" data-testid="service-map-page" data-loading={report.loading} data-from={data?.from} data-to={data?.to}>
      <header className="page-head">
        <h1>Service map</h1>
        <span className="muted">{project.name}{focusName !== undefined ? ` / ${focusName}` : ''}</span>
        <div className="filters">
          <TimeRangeSelect value={range} onChange={(r) => writeView(rangeParams(r))} names={METRICS_RANGES} />
          <button type="button" onClick={report.reload} disabled={report.loading}>Refresh</button>
          <AutoRefreshSelect testId="service-map-auto-refresh" follows={follows} value={refresh} onChange={(choice) => writeView({ refresh: refreshParam(choice) })} />
        </div>
      </header>
      <ErrorBanner error={report.error} onRetry={report.reload} />
      {report.loading && !data ? <Loading what="the service map" /> : null}
      {data && graph && window && !report.error ? (
        <>
          <p className="muted metrics-window" data-testid="service-map-summary">
            {time(data.from)} to {span(data.from, data.to)} ({prefs.short}) · {graph.nodes.length} application{graph.nodes.length === 1 ? '' : 's'}
            {graph.edges.length > 0 ? ` · ${formatCount(calls)} call${calls === 1 ? '' : 's'} over ${graph.edges.length} link${graph.edges.length === 1 ? '' : 's'}` : ''}
          </p>
          {graph.focus !== undefined ? (
            <p className="map-focus" data-testid="service-map-focus">
              Drawn around <strong>{focusName}</strong>: the applications it calls and those that call it
              {graph.hidden > 0 ? ` (${graph.hidden} more in the project's map)` : ''}.{' '}
              <a href={hrefInScope('/map', params, { applicationId: 'all' })}>Show every application</a>
            </p>
          ) : null}
          {graph.edges.length === 0 ? (
            <NoCalls range={range} time={time} focusName={focusName} quiet={graph.nodes.map((n) => n.name)} scope={params} />
          ) : (
            <div className={report.loading ? 'stale' : undefined}>
              <ServiceMapGraph graph={graph} window={window} scope={params} />
              <MapLegend />
              <ServiceMapTables graph={graph} window={window} scope={params} />
            </div>
          )}
        </>
      ) : null}
    </section>
  );
}

/** What the colours and widths mean. */
function MapLegend() {
  return (
    <ul className="map-legend muted" aria-label="Legend">
      <li><span className="swatch box" aria-hidden="true" /> an application: its own requests, and the share that failed (5xx)</li>
      <li><span className="swatch line" aria-hidden="true" /> caller → callee: calls, failures, p99 of the callee&apos;s answers; thicker, more calls</li>
      <li><span className="swatch line failing" aria-hidden="true" /> some calls failed (5xx)</li>
    </ul>
  );
}

/** No call in the window: what a call is, and what it takes for one to be drawn. */
function NoCalls({ range, time, focusName, quiet, scope }: {
  range: TimeRange;
  time(iso: string): string;
  focusName: string | undefined;
  /** The applications that had requests in the window all the same. */
  quiet: string[];
  scope: URLSearchParams;
}) {
  const when = describeRange(range, time);
  return (
    <div data-testid="service-map-empty">
      <EmptyState title={focusName !== undefined ? `No calls to or from ${focusName} in ${when}` : `No calls between applications in ${when}`}>
        <p>
          A <strong>call</strong> is a request one of your applications sends to another one of this project, both traced by
          Lantern: the called application&apos;s entry span (its controller span, or an OpenTelemetry SERVER span) has for
          parent a span of the caller, in the same trace. Lantern&apos;s SDKs and OpenTelemetry pass the trace on in the
          {' '}<code>traceparent</code> header, so this holds once both services send their spans.
        </p>
        <p>
          <strong>Each service needs its own application, with its own API key.</strong> Services that send their spans
          under one key are one application here, and their calls to each other are not drawn; nor are calls to systems
          that send no spans (a database, a third-party API).{' '}
          <a href={hrefInScope('/applications', scope)}>Create an application and its key</a> for each service, or choose a longer time range.
        </p>
        {quiet.length > 0 ? <p className="muted">With requests in this window but no calls: {quiet.join(', ')}.</p> : null}
      </EmptyState>
    </div>
  );
}
