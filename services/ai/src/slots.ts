import { errors } from '@lantern/domain';
import { userIdOf } from '@lantern/http';
import type { RequestHandler } from 'express';

/** Slots one user holds at most at once, whatever MAX_CONCURRENT_UPLOADS is (docs/deploy.md). */
export const UPLOAD_SLOTS_PER_USER = 2;
/** Retry-After of an upload that waited its longest for a slot. */
const BUSY_RETRY_AFTER_S = 5;

export interface UploadSlotOptions {
  /** Uploads this process receives at once (MAX_CONCURRENT_UPLOADS). */
  max: number;
  /** Uploads one user has received at once (default UPLOAD_SLOTS_PER_USER). */
  perUser?: number;
  /** The longest an upload waits for a slot before 503 `unavailable` (UPLOAD_WAIT_MS). */
  maxWaitMs: number;
}

interface Waiter {
  user: string;
  /** Its client went away (its own 'close' listener removes it too: this is the check on leaving the queue). */
  gone(): boolean;
  take(): void;
}

/**
 * At most `max` uploads of this process are received at once, at most `perUser` of them one user's; the others
 * wait their turn, their bodies unread (TCP holds them back). When a slot frees, the first waiter whose user holds
 * fewer than `perUser` takes it, so one member trickling uploads cannot hold every slot. A waiter is answered 503
 * `unavailable` with Retry-After after `maxWaitMs`, well before the server's request timeout (which counts the
 * waiting too) would cut it with a 408. Each chunk of an upload is parsed, hashed and written on the event loop:
 * 100 uploads received at once put 100 chunks in every turn of the loop and /healthz behind them waits hundreds of
 * milliseconds; a few at a time take about as long in all (bench/abuse, docs/benchmarks.md "Abusive clients").
 * A slot is freed when the response is closed: answered, cut by the server's request timeout, or abandoned by the
 * client. A request whose client went away before this middleware ran (during auth or the store's checks) takes
 * no slot at all: its 'close' has already been emitted, so a listener added now would never run.
 * Runs after requireUser (the user is known).
 */
export function uploadSlots({ max, perUser = UPLOAD_SLOTS_PER_USER, maxWaitMs }: UploadSlotOptions): RequestHandler {
  let busy = 0;
  const held = new Map<string, number>();
  const waiting: Waiter[] = [];
  const mayTake = (user: string) => busy < max && (held.get(user) ?? 0) < perUser;
  const dispatch = () => {
    for (let i = 0; i < waiting.length && busy < max; ) {
      const w = waiting[i]!;
      if (w.gone()) {
        waiting.splice(i, 1);
        continue;
      }
      if (!mayTake(w.user)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      w.take();
    }
  };
  return (req, res, next) => {
    if (res.closed || req.destroyed) return;
    const user = String(userIdOf(res));
    let holding = false;
    let timer: NodeJS.Timeout | undefined;
    const waiter: Waiter = {
      user,
      gone: () => res.closed || req.destroyed,
      take: () => {
        clearTimeout(timer);
        busy++;
        held.set(user, (held.get(user) ?? 0) + 1);
        holding = true;
        next();
      },
    };
    const leaveQueue = () => {
      const i = waiting.indexOf(waiter);
      if (i >= 0) waiting.splice(i, 1);
    };
    res.once('close', () => {
      clearTimeout(timer);
      if (!holding) return leaveQueue();
      holding = false;
      busy--;
      const n = (held.get(user) ?? 1) - 1;
      if (n > 0) held.set(user, n);
      else held.delete(user);
      dispatch();
    });
    // No waiter could take a free slot (each release hands it on), so one that is free is this request's.
    if (mayTake(user)) return waiter.take();
    waiting.push(waiter);
    timer = setTimeout(() => {
      leaveQueue();
      // The body was never read: the connection cannot carry another request.
      res.setHeader('Connection', 'close');
      next(errors.uploadsBusy(maxWaitMs, BUSY_RETRY_AFTER_S));
    }, maxWaitMs);
  };
}
