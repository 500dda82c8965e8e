import { readAll } from './api.js';
import { APPS, type AppName, type DemoAccount } from './setup.js';

/** What the demo reads back from Lantern with the JWT, once a summary. */

interface Span {
  spanId: string;
  parentSpanId?: string | null;
  requestMethod: string;
  responseStatus: number;
}

interface TraceRecord {
  applicationId: number;
  traceId: string;
  telemetry: Span[];
}

export interface StoredData {
  /** Trace records (one per request an app served) and how many of those failed (5xx), per application. */
  traces: Record<AppName, { count: number; failed: number }>;
  logs: number;
  /** More than the demo counts (`CAP`): shown with a `+`. */
  capped: boolean;
  /** A trace that crossed both apps (the newest payments record), once there is one. */
  crossServiceTraceId: string | undefined;
}

const CAP = 5000;

/** The request's own span of a record: the `controller:` span, the root of that app's part of the trace. */
const failedRequest = (record: TraceRecord) => record.telemetry.some((s) => s.requestMethod.startsWith('controller:') && s.responseStatus >= 500);

export async function readStored(base: string, account: DemoAccount, since: Date): Promise<StoredData> {
  const { token, projectId } = account;
  const from = encodeURIComponent(since.toISOString());
  const traces = await readAll<TraceRecord>(base, `/logs/project?id=${projectId}&from=${from}`, token, CAP);
  const logs = await readAll<unknown>(base, `/ingest/logs?projectId=${projectId}&from=${from}`, token, CAP);
  const counts = Object.fromEntries(APPS.map((name) => [name, { count: 0, failed: 0 }])) as StoredData['traces'];
  let crossServiceTraceId: string | undefined;
  for (const record of traces.items) {
    const name = APPS.find((n) => account.apps[n].id === record.applicationId);
    if (!name) continue;
    counts[name].count += 1;
    if (failedRequest(record)) counts[name].failed += 1;
    if (name === 'payments') crossServiceTraceId ??= record.traceId; // newest first
  }
  return { traces: counts, logs: logs.items.length, capped: traces.more || logs.more, crossServiceTraceId };
}

export function describeStored(stored: StoredData): string {
  const plus = stored.capped ? '+' : '';
  const app = (name: AppName) => {
    const { count, failed } = stored.traces[name];
    return `${name} ${count}${plus}${failed ? ` (${failed} failed)` : ''}`;
  };
  return `traces ${APPS.map(app).join(', ')} | logs ${stored.logs}${plus}`;
}

export function describeSent(sent: number, byStatus: Record<string, number>): string {
  const statuses = Object.entries(byStatus)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status}: ${n}`)
    .join(', ');
  return `sent ${sent} requests${statuses ? ` (${statuses})` : ''}`;
}
