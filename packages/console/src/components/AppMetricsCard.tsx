import type { ApplicationMetrics } from '../api/types';
import { formatBucket, formatCount, formatDuration, formatPercent } from '../lib/format';
import { LineChart } from './LineChart';

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

/** One application's request metrics in the window: totals, latency percentiles and three charts per bucket. */
export function AppMetricsCard({ app, name, bucketMs }: { app: ApplicationMetrics; name: string; bucketMs: number }) {
  const times = app.series.map((p) => p.timestamp);
  const per = formatBucket(bucketMs);
  const share = errorShare(app);
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
        <LineChart title={`Requests per ${per}`} kind="bar" tone="requests" integer values={app.series.map((p) => p.requests)} times={times} format={(v) => formatCount(v, true)} />
        <LineChart title={`Errors per ${per}`} kind="bar" tone="errors" integer values={app.series.map((p) => p.errors)} times={times} format={(v) => formatCount(v, true)} />
        <LineChart title={`p95 latency per ${per}`} kind="line" tone="latency" values={app.series.map((p) => p.p95Ms)} times={times} format={formatDuration} />
      </div>
    </section>
  );
}
