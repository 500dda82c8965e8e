import type { Logger } from '@lantern/logging';
import type { Store } from '@lantern/store';

export interface RetentionDeps {
  store: Pick<Store, 'purgeTelemetryBefore'>;
  logger: Logger;
  /** Telemetry older than this many days is deleted; 0 turns retention off. */
  days: number;
  /** How often to purge; default hourly. */
  intervalMs?: number;
  now?: () => number;
}

export interface Retention {
  /** Purges once now, then every interval (the timer does not keep the process alive). */
  start(): void;
  /** Stops the timer and waits for a purge under way. */
  stop(): Promise<void>;
  /** One purge; resolves with how many records went. */
  runOnce(): Promise<number>;
}

const DAY_MS = 86_400_000;

/**
 * RETENTION_DAYS for every store: a periodic `purgeTelemetryBefore(now - days)`. MongoDB also has TTL indexes for
 * the same cut-off; the purge is what the embedded store relies on and what bounds the data where TTL runs late.
 * Several writer processes may purge at once: the purge is idempotent, so that only costs a little work.
 */
export function createRetention({ store, logger, days, intervalMs = 3_600_000, now = Date.now }: RetentionDeps): Retention {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const runOnce = (): Promise<number> => {
    if (days <= 0) return Promise.resolve(0);
    running ??= store
      .purgeTelemetryBefore(now() - days * DAY_MS)
      .then((removed) => {
        if (removed > 0) logger.info('retention purge', { removed, days });
        return removed;
      })
      .catch((err: unknown) => {
        logger.warn('retention purge failed; retrying at the next interval', { error: err instanceof Error ? err.message : String(err) });
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    start() {
      if (days <= 0 || timer) return;
      void runOnce();
      timer = setInterval(() => void runOnce(), intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
    runOnce,
  };
}
