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
  /** Drops are summed per kind and reason and reported once per tick; `sync` reports at once (process exit). */
  drop(kind: Kind, count: number, reason: DropReason, sync?: boolean): void;
}

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

export function createReporter(hooks: { onError?: ((e: LanternError) => void) | undefined; onDrop?: ((d: DropInfo) => void) | undefined }): Reporter {
  const fallback = rateLimitedWarn();
  const onError = hooks.onError ?? fallback;
  const pending = new Map<string, DropInfo>();
  let scheduled = false;

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
  const flushDrops = () => {
    scheduled = false;
    const drops = [...pending.values()];
    pending.clear();
    for (const d of drops) deliver(d);
  };
  return {
    error,
    drop(kind, count, reason, sync = false) {
      if (count <= 0) return;
      if (sync) return deliver({ kind, count, reason });
      const key = `${kind}:${reason}`;
      const prev = pending.get(key);
      if (prev) prev.count += count;
      else pending.set(key, { kind, count, reason });
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flushDrops);
      }
    },
  };
}
