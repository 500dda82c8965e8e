/** The one error body of every Lantern service: `{"error": {"code", "message", "details"?}}` (contract.md). */
export type ErrorCode =
  | 'bad_request'
  | 'invalid_json'
  | 'validation_failed'
  | 'missing_parameter'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'request_timeout'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'quota_exceeded'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'too_many_keys'
  | 'too_many_organizations'
  | 'too_many_reads'
  | 'unavailable'
  | 'read_timeout'
  | 'internal';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown[] };
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown[],
    /** Seconds for the `Retry-After` header (429 and 503). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export const errors = {
  invalidJson: (message = 'The request body is not valid JSON.') => new AppError(400, 'invalid_json', message),
  validation: (message: string, details?: unknown[]) => new AppError(400, 'validation_failed', message, details),
  missingParameter: (name: string) =>
    new AppError(400, 'missing_parameter', `The query parameter "${name}" is required.`, [{ parameter: name }]),
  unauthorized: (message = 'A valid credential is required.') => new AppError(401, 'unauthorized', message),
  forbidden: (message = 'You are not allowed to do this.') => new AppError(403, 'forbidden', message),
  notFound: (what = 'resource') => new AppError(404, 'not_found', `No such ${what}, or it is not visible to you.`),
  /** A path the API serves, with a method it does not serve there: the `Allow` header lists the ones it does. */
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    new AppError(405, 'method_not_allowed', `${method.slice(0, 20)} is not served on this path; use ${allowed.join(', ')}.`, [{ allow: [...allowed] }]),
  conflict: (message: string) => new AppError(409, 'conflict', message),
  tooLarge: (message: string) => new AppError(413, 'payload_too_large', message),
  unsupportedMedia: (message: string) => new AppError(415, 'unsupported_media_type', message),
  /** Over a rate limit; `scope` names what is limited ("this application"), `max` its allowance per window. */
  rateLimited: (retryAfter: number, scope?: string, max?: number) =>
    new AppError(
      429,
      'rate_limited',
      scope ? `Too many requests for ${scope}; retry in ${retryAfter} s.` : `Too many requests; retry in ${retryAfter} s.`,
      scope ? [{ limit: scope, ...(max !== undefined ? { max } : {}) }] : undefined,
      retryAfter,
    ),
  /** An upload that would take the organization's stored bytes past its quota (STORAGE_QUOTA_BYTES); nothing is kept. */
  quotaExceeded: (quotaBytes: number, usedBytes: number) =>
    new AppError(
      413,
      'quota_exceeded',
      `This upload would take the organization past its storage quota of ${quotaBytes} bytes (${usedBytes} in use); nothing was stored. Delete documents to make room.`,
      [{ quotaBytes, usedBytes }],
    ),
  /**
   * The application already has its most active keys (MAX_API_KEYS_PER_APPLICATION): revoking one helps, waiting
   * alone does not. Retry-After (60 s) is still set, as the contract's 429 row has it for every client that reads it.
   */
  tooManyKeys: (max: number) =>
    new AppError(429, 'too_many_keys', `This application already has ${max} active API keys, the most allowed. Revoke one before creating another.`, [{ maxActiveKeys: max }], 60),
  /** The user has created their most organizations (MAX_ORGANIZATIONS_PER_USER); deleting or leaving one does not give one back yet. */
  tooManyOrganizations: (max: number, retryAfter = 60) =>
    new AppError(
      429,
      'too_many_organizations',
      `You have already created ${max} organizations, the most allowed per user. Deleting or leaving an organization does not give one back yet.`,
      [{ maxOrganizations: max }],
      retryAfter,
    ),
  /** The caller has their most reads in flight (MAX_CONCURRENT_READS_PER_USER). */
  tooManyReads: (max: number, retryAfter = 1) =>
    new AppError(429, 'too_many_reads', `You already have ${max} reads in progress; retry in ${retryAfter} s, when one has finished.`, [{ maxConcurrentReads: max }], retryAfter),
  unavailable: (what: string, retryAfter = 5) =>
    new AppError(503, 'unavailable', `The ${what} is unavailable; nothing was written. Retry in ${retryAfter} s.`, undefined, retryAfter),
  /** An upload that waited UPLOAD_WAIT_MS for one of the process's upload slots (MAX_CONCURRENT_UPLOADS) in vain. */
  uploadsBusy: (waitedMs: number, retryAfter = 5) =>
    new AppError(
      503,
      'unavailable',
      `Every upload slot of this server stayed busy for ${waitedMs} ms; nothing was read or stored. Retry in ${retryAfter} s.`,
      [{ waitedMs }],
      retryAfter,
    ),
  /** A read that ran past its time budget (READ_BUDGET_MS, STREAM_BUDGET_MS): narrowing it is the fix, not retrying. */
  readTimeout: (budgetMs: number) =>
    new AppError(
      503,
      'read_timeout',
      `The read ran past its time budget of ${budgetMs} ms and was stopped. Narrow it (from/to, limit, filters) or page with the cursor.`,
      [{ budgetMs }],
    ),
  /** The HTTP server's own answers, before any route runs (gateway/src/http-server.ts, clientError). */
  badRequest: () => new AppError(400, 'bad_request', 'The request is not valid HTTP/1.1; the connection is closed.'),
  requestTimeout: () =>
    new AppError(408, 'request_timeout', 'The request (its headers, or with its body) did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS); the connection is closed and nothing was kept.'),
  headersTooLarge: () => new AppError(431, 'headers_too_large', 'The request\'s headers are larger than the server accepts (16 KiB, all of them together); the connection is closed.'),
  chunkExtensionsTooLarge: () => new AppError(413, 'payload_too_large', 'The chunk extensions of the request body are too large; the connection is closed.'),
  internal: () => new AppError(500, 'internal', 'An unexpected error occurred; it has been logged.'),
};

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
