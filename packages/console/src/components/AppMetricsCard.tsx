// One application's card on the Metrics page.
//
// data-testid: metrics-app (the card; data-application-id), metrics-chart (each chart; data-series "requests",
// "errorRate", "p50Ms p95Ms p99Ms": see components/LineChart.tsx)
import type { ApplicationMetrics } from '../api/types';
import { ratios } from '../lib/chart';
import { formatBucket, formatCount, formatDuration, formatPercent } from '../lib/format';
import { LineChart, type ChartSeries } from './LineChart';

/** The error share shown: from the counts when there are requests (the API's errorRate is rounded to 0.01). */
function errorShare(app: ApplicationMetrics): number {
  return app.requests > 0 ? app.errors / app.requests : app.errorRate;
}

function Stat({ label, value, tone }: { label: string; value: string; tone?: string }) {
  return (
    <div className={`stat${tone ? ` stat-${tone}` : ''}`}>
      <span className="stat-label">{label}</span>
      <span className="stat-value">{value}</span>
    </div>
  );
}

/** One application's request metrics in the window: totals, then per bucket requests, error rate and latency. */
export function AppMetricsCard({ app, name, bucketMs, onZoom, onPick }: {
  app: ApplicationMetrics;
  name: string;
  bucketMs: number;
  /** A drag across a chart chose this window (epoch ms). */
  onZoom?(from: number, to: number): void;
  /** A click on a bucket: the application's traces of it (`errors`: its failed ones). */
  onPick?(from: number, to: number, errors: boolean): void;
}) {
  const { series } = app;
  const times = series.map((p) => p.timestamp);
  const per = formatBucket(bucketMs);
  const share = errorShare(app);
  const requests: ChartSeries = { key: 'requests', label: 'requests', tone: 'requests', values: series.map((p) => p.requests) };
  // Exact, from the counts: the API's per-bucket errorRate is rounded to 0.01. A bucket without requests is a gap.
  const errorRate: ChartSeries = { key: 'errorRate', label: 'error rate', tone: 'errors', values: ratios(series.map((p) => p.errors), series.map((p) => p.requests)) };
  const latency: ChartSeries[] = [
    { key: 'p50Ms', label: 'p50', tone: 'requests', values: series.map((p) => p.p50Ms) },
    { key: 'p95Ms', label: 'p95', tone: 'latency', values: series.map((p) => p.p95Ms) },
    { key: 'p99Ms', label: 'p99', tone: 'p99', values: series.map((p) => p.p99Ms), dashed: true },
  ];
  const errorsOf = (i: number) => {
    const p = series[i];
    return p && p.requests > 0 ? `${formatCount(p.errors)} of ${formatCount(p.requests)} requests` : undefined;
  };
  return (
    <section className="metrics-card" data-testid="metrics-app" data-application-id={app.applicationId}>
      <header>
        <h2>{name}</h2>
      </header>
      <div className="stats">
        <Stat label="Requests" value={formatCount(app.requests)} />
        <Stat label="Errors (5xx)" value={formatCount(app.errors)} tone={app.errors > 0 ? 'bad' : undefined} />
        <Stat label="Error rate" value={formatPercent(share)} tone={share >= 0.01 ? 'bad' : undefined} />
        <Stat label="p50" value={formatDuration(app.p50Ms)} />
        <Stat label="p95" value={formatDuration(app.p95Ms)} />
        <Stat label="p99" value={formatDuration(app.p99Ms)} />
      </div>
      <div className="charts">
        <LineChart title={`Requests per ${per}`} kind="bar" integer series={[requests]} times={times} format={(v) => formatCount(v, true)} bucketMs={bucketMs} onZoom={onZoom}
          onPick={onPick && ((from, to) => onPick(from, to, false))} />
        <LineChart title={`Error rate (5xx) per ${per}`} series={[errorRate]} times={times} format={formatPercent} detail={errorsOf} bucketMs={bucketMs} onZoom={onZoom}
          onPick={onPick && ((from, to) => onPick(from, to, true))} />
        <LineChart title={`Latency per ${per}`} series={latency} times={times} format={formatDuration} bucketMs={bucketMs} onZoom={onZoom}
          onPick={onPick && ((from, to) => onPick(from, to, false))} />
      </div>
    </section>
  );
}
