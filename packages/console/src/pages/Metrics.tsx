// Metrics: per application of the project (or of the chosen application), the window's totals and, per bucket,
// requests, error rate and p50/p95/p99 latency, from GET /metrics; then per operation of each application, from
// GET /metrics/operations (components/OperationsTable.tsx).
//
// The page's reads go one after the other: the applications' metrics, then the operations of the same window (the
// server allows 4 reads in flight per user, and the Traces page a click leads to needs two). Auto-refresh
// (`refresh=off|30s|1m|5m` in the URL, 30 s when absent) reads both again while the window ends now and the tab is
// visible, never while the last reads are still in flight.
//
// data-testid: metrics-page (data-loading: "true" while a read is in flight), metrics-empty (no requests in the
// window), metrics-app (components/AppMetricsCard.tsx), metrics-chart (components/LineChart.tsx; data-series
// "requests", "errorRate" or "p50Ms p95Ms p99Ms"), metrics-auto-refresh (the <select> of the interval; disabled for
// a fixed window), operations (the operations section; data-loading, data-from, data-to), operations-count,
// operations-empty, operations-table and operation-row (components/OperationsTable.tsx)
import * as client from '../api/client';
import type { MetricsReport, OperationMetricsReport, Project } from '../api/types';
import { AppMetricsCard } from '../components/AppMetricsCard';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { OperationsTable } from '../components/OperationsTable';
import { TimeRangeSelect } from '../components/TimeRangeSelect';
import { useAsync, type Async } from '../use-async';
import { useAutoRefresh } from '../use-auto-refresh';
import { formatBucket, formatCount } from '../lib/format';
import { operationSortParam, parseOperationSort } from '../lib/operations';
import { METRICS_RANGES, metricsBounds, parseRefresh, readMetricsRange, refreshParam, viewWriter } from '../lib/metrics-view';
import { AutoRefreshSelect } from '../components/AutoRefreshSelect';
import { describeRange, rangeParams, type TimeRange } from '../lib/time-range';
import { viewApplicationId } from '../lib/view-scope';
import { hrefInScope, navigateView, useRoute } from '../router';
import { useTimePrefs } from '../time-prefs';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';

/** The operations listed: the busiest (GET /metrics/operations takes 1-500). */
const OPERATIONS_LIMIT = 100;


/** Request metrics of each application of the selected project (or of the selected application). */
export function MetricsPage() {
  const ws = useWorkspace();
  const { params } = useRoute();
  if (!ws.project) return <NoProject what="Metrics" />;
  return <ProjectMetrics project={ws.project} applicationId={viewApplicationId(params, ws.application?.id)} />;
}

const writeView = viewWriter('/metrics');

function writeRange(range: TimeRange): void {
  writeView(rangeParams(range));
}

/** Never settles: a read that waits for the one before it (useAsync keeps the last answer on show meanwhile). */
const later = () => new Promise<never>(() => undefined);

function ProjectMetrics({ project, applicationId }: { project: Project; applicationId: number | undefined }) {
  const ws = useWorkspace();
  const { params } = useRoute();
  const range = readMetricsRange(params);
  const report = useAsync((signal) => {
    const now = Date.now();
    // A named range ends now: at each read, Refresh included.
    const bounds = metricsBounds(range, now);
    return client.metrics({ projectId: project.id, applicationId, ...bounds }, signal);
  }, [project.id, applicationId, JSON.stringify(range)]);

  const data = report.data;
  const active = data?.applications.filter((a) => a.requests > 0) ?? [];
  // The operations of the window the applications' metrics were read for, once they are in (past 6 h 40 min the
  // server widens it to whole hours, said above the table); none to read when the window has no request.
  const ready = !report.loading && !report.error && data !== undefined;
  const operations = useAsync<OperationMetricsReport | undefined>((signal) => {
    if (!ready) return later();
    if (active.length === 0) return Promise.resolve(undefined);
    return client.operationMetrics({ projectId: project.id, applicationId, from: data.from, to: data.to, limit: OPERATIONS_LIMIT }, signal);
  }, [ready, data, project.id, applicationId]);

  // Auto-refresh: a window ending now is read again on the chosen interval (a fixed window never changes).
  const refresh = parseRefresh(params.get('refresh'));
  const follows = range.name !== 'custom';
  // In flight: the metrics, or the operations once they are asked for (after a failed metrics read they never
  // are, and that must not hold Refresh and the next tick back).
  const busy = report.loading || (ready && operations.loading);
  useAutoRefresh(follows ? refresh.ms : 0, busy, report.reload);

  const names = new Map(ws.applications.map((a) => [a.id, a.name]));
  const quiet = applicationId === undefined && data
    ? ws.applications.filter((a) => !active.some((m) => m.applicationId === a.id)).map((a) => a.name)
    : [];
  const total = active.reduce((n, a) => n + a.requests, 0);
  const prefs = useTimePrefs();
  const time = (iso: string) => prefs.time(iso);
  // The end with its date too when the start has one ("2026-11-16 07:40 to 2026-11-23 07:40").
  const span = (from: string, to: string) => (time(from).includes(' ') ? prefs.time(to, NaN) : time(to));
  const zoom = (from: number, to: number) => writeRange({ name: 'custom', from: new Date(from).toISOString(), to: new Date(to).toISOString() });

  return (
    <section className="metrics-page" data-testid="metrics-page" data-loading={busy}>
      <header className="page-head">
        <h1>Metrics</h1>
        <span className="muted">{project.name}{applicationId !== undefined ? ` / ${ws.applications.find((a) => a.id === applicationId)?.name ?? `application ${applicationId}`}` : ''}</span>
        <div className="filters">
          <TimeRangeSelect value={range} onChange={writeRange} names={METRICS_RANGES} />
          <button type="button" onClick={report.reload} disabled={busy}>Refresh</button>
          <AutoRefreshSelect testId="metrics-auto-refresh" follows={follows} value={refresh} onChange={(choice) => writeView({ refresh: refreshParam(choice) })} />
        </div>
      </header>
      <ErrorBanner error={report.error} onRetry={report.reload} />
      {report.loading && !data ? <Loading what="metrics" /> : null}
      {data && !report.error ? (
        <>
          <p className="muted metrics-window">
            {time(data.from)} to {span(data.from, data.to)} ({prefs.short}), per {formatBucket(data.bucketMs)} · {formatCount(total)} requests
            {active.length > 1 ? ` in ${active.length} applications` : ''}
          </p>
          {active.length === 0 ? (
            <div data-testid="metrics-empty">
              <EmptyState title={`No requests in ${describeRange(range, time)}`}>
                <p>
                  Metrics come from the requests your applications trace.{' '}
                  <a href={hrefInScope('/applications', params)}>Set up the SDK</a> in an application, or choose a longer time range.
                </p>
              </EmptyState>
            </div>
          ) : (
            <div className={`metrics-list${report.loading ? ' stale' : ''}`}>
              {active.map((app) => (
                <AppMetricsCard key={app.applicationId} app={app} name={names.get(app.applicationId) ?? `Application #${app.applicationId}`} bucketMs={data.bucketMs} onZoom={zoom}
                  onPick={(from, to, errors) => navigateView('/traces', {
                    applicationId: String(app.applicationId), from: new Date(from).toISOString(), to: new Date(to).toISOString(),
                    ...(errors ? { status: '5xx' } : {}),
                  })} />
              ))}
            </div>
          )}
          {active.length > 0 && quiet.length > 0 ? (
            <p className="muted">No requests in this range from: {quiet.join(', ')}.</p>
          ) : null}
          {active.length > 0 ? (
            <Operations operations={operations} metrics={data} appName={(id) => names.get(id) ?? `Application #${id}`}
              showApplication={applicationId === undefined && (ws.applications.length > 1 || active.length > 1)} />
          ) : null}
        </>
      ) : null}
    </section>
  );
}

/** The operations section: the table, or why there is none. */
function Operations({ operations, metrics, appName, showApplication }: {
  operations: Async<OperationMetricsReport | undefined>;
  metrics: MetricsReport;
  appName(applicationId: number): string;
  showApplication: boolean;
}) {
  const { params } = useRoute();
  const prefs = useTimePrefs();
  const sort = parseOperationSort(params.get('sort'));
  const data = operations.data;
  // Past 6 h 40 min the operations come in hour buckets, over the charts' window widened to whole hours: said.
  const widened = data !== undefined && (data.from !== metrics.from || data.to !== metrics.to);
  const listed = data?.operations.length ?? 0;
  // The applications' charts count requests written before per-operation rollups existed; the operations do not.
  const requests = metrics.applications.reduce((n, a) => n + a.requests, 0);
  return (
    <section className="operations" data-testid="operations" aria-labelledby="operations-title"
      data-loading={operations.loading} data-from={data?.from} data-to={data?.to}>
      <header className="operations-head">
        <h2 id="operations-title">Operations</h2>
        {data && listed > 0 ? (
          <span className="muted" data-testid="operations-count">
            {data.total > listed ? `showing the ${formatCount(listed)} busiest of ${formatCount(data.total)}` : `${formatCount(listed)} operation${listed === 1 ? '' : 's'}`}
            {widened ? <span data-testid="operations-window">{` · whole hours, ${prefs.time(data.from)} to ${prefs.time(data.to)}`}</span> : null}
            {' · '}a row opens its traces, a bar of its sparkline the traces of that {formatBucket(data.bucketMs)}
          </span>
        ) : null}
      </header>
      <ErrorBanner error={operations.error} onRetry={operations.reload} />
      {operations.loading && !data && !operations.error ? <Loading what="operations" /> : null}
      {data && !operations.error ? (
        listed === 0 ? (
          <div data-testid="operations-empty">
            <EmptyState title="No requests by operation in this window">
              <p>
                {requests > 0 ? `The ${formatCount(requests)} requests above were recorded without their operation. ` : ''}
                Per-operation figures start with the spans written after the upgrade that added them: requests recorded
                before it count in the charts above only. Choose a more recent window, or wait for new requests.
              </p>
            </EmptyState>
          </div>
        ) : (
          <div className={operations.loading ? 'stale' : undefined}>
            <OperationsTable report={data} appName={appName} showApplication={showApplication} sort={sort} scope={params}
              onSort={(next) => writeView({ sort: operationSortParam(next) })} />
          </div>
        )
      ) : null}
    </section>
  );
}
