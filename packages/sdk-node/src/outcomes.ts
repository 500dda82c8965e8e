import { LanternError, type Kind, type Reporter } from './report.js';
import type { SendResult } from './transport.js';

/** Counters of one kind; `stats()` adds the gauges. */
export interface Counts {
  /** Items the service accepted. */
  sent: number;
  /** Items not kept: buffer full without spool, spool full, too large, left at close or exit. */
  dropped: number;
  /** Attempts that failed and were retried (network errors, 408, 429, 5xx). */
  retried: number;
  /** Items of batches the service refused for good (4xx other than 408/429, 3xx). */
  failed: number;
  /** Items of a stored batch that the service refused one by one (listed in its `rejected`). */
  rejected: number;
  /** Items written to the spool directory. */
  spooled: number;
}

export interface KindStats extends Counts {
  /** Items in memory waiting to be sent (a batch put back after a failure, and overflow bound for the spool, included). */
  queued: number;
  /** Items in requests being sent. */
  inFlight: number;
  /** Items on disk waiting to be sent. */
  spoolPending: number;
}

const items = (n: number, kind: Kind) => `${n} ${kind === 'traces' ? 'span' : 'log'}${n === 1 ? '' : 's'}`;

/** Reports a failed attempt: retried (network, 408, 429, 5xx) or given up (any other status). */
export function reportFailure(reporter: Reporter, kind: Kind, result: Exclude<SendResult, { outcome: 'ok' }>, n: number, retrying: boolean): void {
  const code = result.status === undefined ? 'network' : 'http_status';
  const message = `POST /ingest/${kind} failed, ${items(n, kind)} ${retrying ? 'kept for a retry' : 'not sent'}: ${result.message}`;
  const extra = { kind, count: n, retrying, ...(result.status === undefined ? {} : { status: result.status }) };
  reporter.error(new LanternError(code, message, extra));
}

/** Counts a final outcome (delivered or refused for good) and reports what the application should know. */
export function accountOutcome(reporter: Reporter, kind: Kind, counts: Counts, result: SendResult, n: number): void {
  if (result.outcome === 'fail') {
    counts.failed += n;
    return reportFailure(reporter, kind, result, n, false);
  }
  if (result.outcome !== 'ok') return;
  const rejected = Math.min(result.rejected.length, n);
  counts.sent += n - rejected;
  counts.rejected += rejected;
  if (rejected > 0) {
    const first = result.rejected[0]?.errors;
    const why = Array.isArray(first) ? first.join('; ') : '';
    const message = `the ingest service refused ${rejected} of ${items(n, kind)}${why ? ` (first: ${why})` : ''}`;
    reporter.error(new LanternError('rejected_items', message, { kind, count: rejected, status: result.status, details: result.rejected }));
  }
  if (!result.recognised) {
    const message = `POST /ingest/${kind} answered ${result.status} with a body that is not the ingest service's answer (check ingestUrl); ${items(n, kind)} counted as sent`;
    reporter.error(new LanternError('bad_response', message, { kind, count: n, status: result.status }));
  }
}
