import { AppError, errors } from '@lantern/domain';

/** SQLite result codes that mean "the database cannot answer now", as opposed to a bug or a bad input. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|NOMEM|CORRUPT|NOTADB|PROTOCOL)/;

export function codeOf(e: unknown): string {
  return typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string'
    ? (e as { code: string }).code
    : '';
}

/** True for a closed connection or a database that is locked, full, unreadable or gone. */
export function isUnavailable(e: unknown): boolean {
  // Checked by message, not `instanceof`: the addon's TypeError may come from another realm (e.g. under jest).
  if (typeof e === 'object' && e !== null && /database connection is not open/i.test(String((e as { message?: unknown }).message))) return true;
  return UNAVAILABLE.test(codeOf(e));
}

export interface ConstraintMessages {
  /** Message of the 409 thrown when a UNIQUE constraint fails. */
  unique?: string;
  /** What does not exist (for the 404) when a FOREIGN KEY constraint fails. */
  foreignKey?: string;
}

/** Translates a driver error into the port's errors: 503 when unavailable, 409/404 for the named constraints. */
export function toStoreError(e: unknown, messages: ConstraintMessages = {}): unknown {
  if (e instanceof AppError) return e;
  if (isUnavailable(e)) return errors.unavailable('store');
  const code = codeOf(e);
  if (messages.unique && (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
    return errors.conflict(messages.unique);
  }
  if (messages.foreignKey && code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return errors.notFound(messages.foreignKey);
  return e;
}

/** Runs a synchronous database step, translating what it throws. */
export function guard<T>(step: () => T, messages?: ConstraintMessages): T {
  try {
    return step();
  } catch (e) {
    throw toStoreError(e, messages);
  }
}
