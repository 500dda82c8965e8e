/** An API answer other than 2xx, carrying the contract's error body: `{"error": {"code", "message", "details"?}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message a person reads for any failure: the API's own message, or what went wrong on the way. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'Lantern cannot be reached. Check that the server is running, then try again.';
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Builds the ApiError for a non-2xx answer from its body text, whatever the body is (nginx pages included). */
export function errorFromBody(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    const e = body.error;
    if (e && typeof e.message === 'string') {
      return new ApiError(status, typeof e.code === 'string' ? e.code : 'error', e.message, Array.isArray(e.details) ? e.details : undefined);
    }
  } catch {
    // not JSON: fall through
  }
  return new ApiError(status, 'http_error', `The server answered ${status}${text ? '' : ' with no body'}.`);
}
