import { errors, isAppError } from '@lantern/domain';

/** Socket-level failures: the server is down, unreachable, or stopped answering (our request timeout). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EPIPE', 'ECONNABORTED']);
/**
 * S3 error codes that mean "the store cannot serve now", not "your request is wrong": overload and start-up,
 * a full disk, and a bucket or credentials that no longer work (a deployment fault the operator must fix).
 */
const UNAVAILABLE_CODES = new Set([
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'RequestTimeout',
  'XMinioServerNotInitialized',
  'XMinioStorageFull',
  'NoSuchBucket',
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
]);
/** Keys that name no object: NoSuchKey from GET, NotFound from HEAD. */
const MISSING_CODES = new Set(['NoSuchKey', 'NotFound']);

export const errorCode = (err: unknown): string | undefined => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

export const isMissingObject = (err: unknown): boolean => MISSING_CODES.has(errorCode(err) ?? '');

/**
 * The port's errors for what the minio client throws: not_found for a missing object, unavailable (503) when
 * the server cannot answer; anything else (a bug, a bad argument) is passed on as it is.
 */
export function toBlobError(err: unknown): unknown {
  if (isAppError(err)) return err;
  const code = errorCode(err);
  if (code !== undefined && MISSING_CODES.has(code)) return errors.notFound('object');
  if (code !== undefined && (NETWORK_CODES.has(code) || UNAVAILABLE_CODES.has(code))) return errors.unavailable('blob store');
  // With its retries off, the client reports a 5xx answer as a plain Error with only this text to go on.
  if (err instanceof Error && /Retryable HTTP status: 5\d\d/.test(err.message)) return errors.unavailable('blob store');
  return err;
}

/** Runs `op`, turning its failure into the port's error. */
export async function mapFailure<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw toBlobError(err);
  }
}
