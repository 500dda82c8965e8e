import { AppError, errors } from '@lantern/domain';
import { MongoError, MongoNetworkError, MongoServerSelectionError } from 'mongodb';

/** The server's code for a write that would break a unique index. */
export const DUPLICATE_KEY = 11000;
/** The server's code for a query stopped by its `maxTimeMS` (MaxTimeMSExpired): a read past its budget (budget.ts). */
export const MAX_TIME_MS_EXPIRED = 50;

/**
 * Driver errors that mean "the deployment cannot answer now" (down, restarting, unreachable, no primary), as
 * opposed to a bug or a bad input. By name too, not only `instanceof`: some are not exported by the driver
 * (PoolClearedError, WaitQueueTimeoutError), and a test runner may load the driver in another realm.
 */
const UNAVAILABLE_NAMES = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoTopologyClosedError',
  'MongoNotConnectedError', 'MongoServerClosedError', 'MongoClientClosedError', 'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError', 'MongoOperationTimeoutError', 'MongoStalePrimaryError',
]);

/** Server codes of a node shutting down, stepping down or unable to reach its peers. */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

function nameOf(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { name?: unknown }).name === 'string' ? (e as { name: string }).name : '';
}

export function codeOf(e: unknown): number | undefined {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'number' ? code : undefined;
}

/**
 * A bulk write wraps the driver error that stopped it (a refused connection, a failed server selection) as
 * `errorResponse`; `cause` chains carry them too. Both are followed, a few levels at most.
 */
function wrapped(e: unknown): unknown[] {
  if (typeof e !== 'object' || e === null) return [];
  const { errorResponse, cause } = e as { errorResponse?: unknown; cause?: unknown };
  return [errorResponse, cause].filter((inner) => inner instanceof Error && inner !== e);
}

export function isUnavailable(e: unknown, depth = 0): boolean {
  if (e instanceof MongoNetworkError || e instanceof MongoServerSelectionError) return true;
  if (depth < 3 && wrapped(e).some((inner) => isUnavailable(inner, depth + 1))) return true;
  if (UNAVAILABLE_NAMES.has(nameOf(e))) return true;
  const code = codeOf(e);
  if (code !== undefined && UNAVAILABLE_CODES.has(code)) return true;
  return e instanceof MongoError && (e.hasErrorLabel('ResetPool') || e.hasErrorLabel('SystemOverloadedError'));
}

export interface ErrorMessages {
  /** Message of the 409 thrown when a write breaks a unique index (duplicate key). */
  duplicate?: string;
  /** The budget of a read (budget.ts): the server stopping one of its queries at `maxTimeMS` is its read_timeout. */
  budgetMs?: number;
}

/**
 * Translates a driver error into the port's errors: 503 when unavailable, 409 for a named duplicate, 503
 * read_timeout for a read's query stopped at its `maxTimeMS`.
 */
export function toStoreError(e: unknown, messages: ErrorMessages = {}): unknown {
  if (e instanceof AppError) return e;
  if (isUnavailable(e)) return errors.unavailable('store');
  if (messages.duplicate !== undefined && codeOf(e) === DUPLICATE_KEY) return errors.conflict(messages.duplicate);
  if (messages.budgetMs !== undefined && codeOf(e) === MAX_TIME_MS_EXPIRED) return errors.readTimeout(messages.budgetMs);
  return e;
}

/**
 * Every operation of the store goes through a guard: once the store is closed it answers 503 (as the SQLite
 * store does on a closed database) instead of letting the driver reconnect, and driver errors are translated.
 */
export interface Guard {
  run<T>(step: () => Promise<T>, messages?: ErrorMessages): Promise<T>;
  /** The same for a stream: the generator starts on the first `next()`, errors translated at every step. */
  stream<T>(source: () => AsyncGenerator<T>, messages?: ErrorMessages): AsyncIterable<T>;
  readonly closed: boolean;
  close(): void;
}

export function createGuard(): Guard {
  let closed = false;
  const check = (): void => {
    if (closed) throw errors.unavailable('store');
  };
  return {
    async run(step, messages) {
      check();
      try {
        return await step();
      } catch (e) {
        throw toStoreError(e, messages);
      }
    },
    stream(source, messages) {
      return {
        async *[Symbol.asyncIterator]() {
          check();
          try {
            yield* source();
          } catch (e) {
            throw toStoreError(e, messages);
          }
        },
      };
    },
    get closed() {
      return closed;
    },
    close() {
      closed = true;
    },
  };
}
