/** How the library tells the application about its own problems, without ever throwing into it. */

export type Kind = 'traces' | 'logs';

export type LanternErrorCode =
  /** A request failed (connection refused, DNS, reset, timeout); the batch is retried. */
  | 'network'
  /** The service answered with an error status; `retrying` tells whether the batch is sent again. */
  | 'http_status'
  /** The service stored the batch but refused some items (`count`, `details`: its `rejected` list). */
  | 'rejected_items'
  /** A 2xx answer that is not the ingest service's: check `ingestUrl`. */
  | 'bad_response'
  /** Items were not kept (see `DropInfo`); only when no `onDrop` hook is set. */
  | 'dropped'
  /** Reading or writing the spool directory failed. */
  | 'spool'
  /** An item could not be serialised as it was; what could be kept was sent. */
  | 'serialize'
  /** An `onError`/`onDrop` hook threw, or an unexpected internal error. */
  | 'internal';

export type DropReason =
  /** The in-memory buffer held `maxQueueSize` items (and no spool could take the item). */
  | 'queue_full'
  /** The spool directory reached `spoolMaxBytes`. */
  | 'spool_full'
  /** Writing to the spool directory failed (also reported as a `spool` error). */
  | 'spool_error'
  /** Recorded after `close()` finished. */
  | 'closed'
  /** Still unsent at `close()`'s deadline, without a spool. */
  | 'close_timeout'
  /** Still unsent when the process exited, without a spool. */
  | 'exit'
  /** Larger than `maxBatchBytes` on its own: the service would refuse it. */
  | 'too_large';

export interface DropInfo {
  kind: Kind;
  count: number;
  reason: DropReason;
}

export class LanternError extends Error {
  readonly code: LanternErrorCode;
  readonly kind: Kind | undefined;
  readonly status: number | undefined;
  readonly count: number | undefined;
  /** True when the affected items are kept and sent again. */
  readonly retrying: boolean;
  readonly details: unknown;

  constructor(code: LanternErrorCode, message: string, extra: { kind?: Kind; status?: number; count?: number; retrying?: boolean; details?: unknown } = {}) {
    super(message);
    this.name = 'LanternError';
    this.code = code;
    this.kind = extra.kind;
    this.status = extra.status;
    this.count = extra.count;
    this.retrying = extra.retrying ?? false;
    this.details = extra.details;
  }
}

export interface Reporter {
  error(error: LanternError): void;
  /**
   * Drops are summed per kind and reason: the first of a quiet spell is reported at the end of the current tick,
   * the next ones together at most once every DROP_REPORT_EVERY_MS. `sync` reports at once (process exit).
   */
  drop(kind: Kind, count: number, reason: DropReason, sync?: boolean): void;
  /** Reports the drops held back now (close() before it resolves, the process exit). */
  flushDrops(): void;
}

/** At most one drop report per kind and reason in this time, whatever the number of items dropped. */
export const DROP_REPORT_EVERY_MS = 1_000;

const WARN_EVERY_MS = 30_000;

/** The default `onError`: one console.warn line at most every 30 s, with the number of lines held back. */
export function rateLimitedWarn(now: () => number = Date.now): (error: LanternError) => void {
  let last = -Infinity;
  let held = 0;
  return (error) => {
    const t = now();
    if (t - last < WARN_EVERY_MS) {
      held++;
      return;
    }
    last = t;
    const more = held > 0 ? ` (${held} similar message${held === 1 ? '' : 's'} held back)` : '';
    held = 0;
    console.warn(`[lantern] ${error.message}${more}`);
  };
}

/** Drops of one kind and reason not reported yet. */
interface Tally {
  kind: Kind;
  reason: DropReason;
  count: number;
  /** When it was last reported. */
  last: number;
  /** A report is due (at the end of the tick, or by `timer`). */
  due: boolean;
  timer: NodeJS.Timeout | undefined;
}

export function createReporter(
  hooks: { onError?: ((e: LanternError) => void) | undefined; onDrop?: ((d: DropInfo) => void) | undefined },
  now: () => number = Date.now,
): Reporter {
  const fallback = rateLimitedWarn();
  const onError = hooks.onError ?? fallback;
  const tallies: Record<Kind, Map<DropReason, Tally>> = { traces: new Map(), logs: new Map() };

  const error = (e: LanternError) => {
    try {
      onError(e);
    } catch (hookError) {
      fallback(new LanternError('internal', `onError hook threw: ${(hookError as Error)?.message ?? String(hookError)}`));
    }
  };
  const deliver = (d: DropInfo) => {
    if (!hooks.onDrop) {
      error(new LanternError('dropped', `${d.count} ${d.kind === 'traces' ? 'span' : 'log'}${d.count === 1 ? '' : 's'} dropped (${d.reason})`, { kind: d.kind, count: d.count }));
      return;
    }
    try {
      hooks.onDrop(d);
    } catch (hookError) {
      error(new LanternError('internal', `onDrop hook threw: ${(hookError as Error)?.message ?? String(hookError)}`));
    }
  };
  const report = (t: Tally) => {
    t.due = false;
    if (t.timer) clearTimeout(t.timer);
    t.timer = undefined;
    if (t.count === 0) return;
    const count = t.count;
    t.count = 0;
    t.last = now();
    deliver({ kind: t.kind, count, reason: t.reason });
  };
  const tally = (kind: Kind, reason: DropReason) => {
    let t = tallies[kind].get(reason);
    if (!t) tallies[kind].set(reason, (t = { kind, reason, count: 0, last: -Infinity, due: false, timer: undefined }));
    return t;
  };
  return {
    error,
    drop(kind, count, reason, sync = false) {
      if (count <= 0) return;
      const t = tally(kind, reason);
      t.count += count;
      if (sync) return report(t);
      if (t.due) return;
      t.due = true;
      const wait = t.last + DROP_REPORT_EVERY_MS - now();
      if (wait <= 0) return queueMicrotask(() => t.due && report(t));
      t.timer = setTimeout(() => report(t), wait);
      t.timer.unref();
    },
    flushDrops() {
      for (const byReason of Object.values(tallies)) for (const t of byReason.values()) report(t);
    },
  };
}
