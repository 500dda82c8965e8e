// Metrics: per application of the project (or of the chosen application), the window's totals and, per bucket,
// requests, error rate and p50/p95/p99 latency, from GET /metrics.
//
// data-testid: metrics-empty (no requests in the window), metrics-app (components/AppMetricsCard.tsx),
// metrics-chart (components/LineChart.tsx; data-series "requests", "errorRate" or "p50Ms p95Ms p99Ms"),
// metrics-auto-refresh (the 30 s re-read of a window ending now)
import { useEffect, useState } from 'react';
import * as client from '../api/client';
import type { Project } from '../api/types';
import { AppMetricsCard } from '../components/AppMetricsCard';
import { EmptyState, ErrorBanner, Loading } from '../components/Feedback';
import { TimeRangeSelect } from '../components/TimeRangeSelect';
import { useAsync } from '../use-async';
import { formatBucket, formatCount } from '../lib/format';
import { clampWindow, describeRange, parseRange, rangeParams, resolveRange, type RangeName, type TimeRange } from '../lib/time-range';
import { viewApplicationId } from '../lib/view-scope';
import { hrefInScope, navigateView, parseHash, useRoute } from '../router';
import { useTimePrefs } from '../time-prefs';
import { useWorkspace } from '../workspace';
import { NoProject } from '../components/NoProject';

/** How often a window that ends now is read again. */
const AUTO_REFRESH_MS = 30_000;

/** GET /metrics takes a window of at most 90 days, so "all time" is not offered. */
const MAX_WINDOW_MS = 90 * 86_400_000;
const METRICS_RANGES: readonly RangeName[] = ['15m', '1h', '6h', '24h', '7d'];

/** Request metrics of each application of the selected project (or of the selected application). */
export function MetricsPage() {
  const ws = useWorkspace();
  const { params } = useRoute();
  if (!ws.project) return <NoProject what="Metrics" />;
  return <ProjectMetrics project={ws.project} applicationId={viewApplicationId(params, ws.application?.id)} />;
}

function readRange(params: URLSearchParams): TimeRange {
  const range = parseRange(params, '1h');
  return range.name === 'all' ? { name: '1h' } : range;
}

function writeRange(range: TimeRange): void {
  const current = parseHash(location.hash);
  navigateView('/metrics', { ...Object.fromEntries(current.params), ...rangeParams(range) });
}

function ProjectMetrics({ project, applicationId }: { project: Project; applicationId: number | undefined }) {
  const ws = useWorkspace();
  const { params } = useRoute();
  const range = readRange(params);
  const report = useAsync((signal) => {
    const now = Date.now();
    // A named range ends now: at each read, Refresh included.
    const bounds = clampWindow(resolveRange(range, now), MAX_WINDOW_MS, now);
    return client.metrics({ projectId: project.id, applicationId, ...bounds }, signal);
  }, [project.id, applicationId, JSON.stringify(range)]);

  // Auto-refresh: a window ending now is read again every 30 s while the tab is visible (a fixed window never changes).
  const [auto, setAuto] = useState(true);
  const follows = range.name !== 'custom';
  const { reload } = report;
  useEffect(() => {
    if (!auto || !follows) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, AUTO_REFRESH_MS);
    return () => clearInterval(timer);
  }, [auto, follows, reload]);

  const names = new Map(ws.applications.map((a) => [a.id, a.name]));
  const data = report.data;
  const active = data?.applications.filter((a) => a.requests > 0) ?? [];
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
    <section className="metrics-page">
      <header className="page-head">
        <h1>Metrics</h1>
        <span className="muted">{project.name}{applicationId !== undefined ? ` / ${ws.applications.find((a) => a.id === applicationId)?.name ?? `application ${applicationId}`}` : ''}</span>
        <div className="filters">
          <TimeRangeSelect value={range} onChange={writeRange} names={METRICS_RANGES} />
          <button type="button" onClick={report.reload} disabled={report.loading}>Refresh</button>
          <label className="filter" title={follows ? 'Read the window again every 30 seconds' : 'A fixed window does not change'}>
            <input type="checkbox" data-testid="metrics-auto-refresh" checked={auto && follows} disabled={!follows} onChange={(e) => setAuto(e.target.checked)} />
            <span>Every 30 s</span>
          </label>
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
        </>
      ) : null}
    </section>
  );
}
