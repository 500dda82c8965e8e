import { logCounterFailures, rateLimit, userIdOf } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { LimitsStore } from '@lantern/store';
import type { RequestHandler } from 'express';

/** The accounts service's rate limits (docs/api.md, "Limits"): one allowance, RATE_LIMIT_AUTH_PER_MINUTE, three counts. */
export interface AccountThrottles {
  /** Register and login, per client address (password guessing). */
  perAddress: RequestHandler;
  /** Password changes, per user. */
  perUser: RequestHandler;
  /** Invitations sent, per inviting user. */
  invitations: RequestHandler;
}

/**
 * Counted in the store's windows (`countHit`), like ingest's and uploads' limits, so that N accounts processes
 * behind the gateway allow the limit once, not N times (MongoDB: one document per key and minute; SQLite: the one
 * process's memory). A counter that fails or is late lets the request through and is logged (rate-limit.ts).
 */
export function accountThrottles({ store, rateLimit: limit, logger }: {
  store: Pick<LimitsStore, 'countHit'>;
  rateLimit?: { enabled: boolean; perMinute: number };
  logger: Logger;
}): AccountThrottles {
  const onCounterError = logCounterFailures(logger);
  const throttle = (prefix: string, scope: string, key: Parameters<typeof rateLimit>[0]['key']) =>
    rateLimit({
      enabled: limit?.enabled ?? false,
      max: limit?.perMinute ?? 1,
      scope,
      counter: store,
      onCounterError,
      key: (req, res) => {
        const id = key(req, res);
        return id === undefined ? undefined : `${prefix}:${id}`;
      },
    });
  return {
    perAddress: throttle('auth-address', 'your address', (req) => req.ip ?? 'unknown'),
    perUser: throttle('auth-user', 'your account', (_req, res) => userIdOf(res)),
    invitations: throttle('invite-user', 'your invitations', (_req, res) => userIdOf(res)),
  };
}
