/**
 * What failed in a trace: the span the trace view opens on, and the cause it shows at the top of that span's
 * details. Pure: unit-tested in packages/console/test/trace-failure.test.ts.
 */
import type { Span } from '../api/types';
import { otelView, valueText } from './otel-span';
import type { WaterfallRow } from './waterfall';

/**
 * The span where the failure began: the first error span (pre-order) with no error span below it. An error
 * bubbles up (a 500 controller over a failed query), so the deepest error of the first failing branch is its
 * origin. Undefined for a trace without errors. O(n): `rows` is `layout.rows`, pre-order with `subtreeEnd`.
 */
export function failingSpan(rows: readonly WaterfallRow[]): WaterfallRow | undefined {
  // errorsBefore[i]: error rows among rows[0..i).
  const errorsBefore = new Array<number>(rows.length + 1);
  errorsBefore[0] = 0;
  for (let i = 0; i < rows.length; i++) errorsBefore[i + 1] = errorsBefore[i]! + (rows[i]!.error ? 1 : 0);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const end = Math.min(Math.max(r.subtreeEnd, i + 1), rows.length);
    if (r.error && errorsBefore[end]! - errorsBefore[i + 1]! === 0) return r;
  }
  return undefined;
}

/** Why a span failed, as the details show it first: a title, the message, and a stack trace when there is one. */
export interface ErrorCause {
  /** "Error", the exception's type ("TypeError"), or "HTTP 503". */
  title: string;
  message?: string;
  stack?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * The cause of a failed span, from what the client recorded, most specific first:
 * - an OpenTelemetry `exception` event (type, message, stacktrace), else the ERROR status's message, with the
 *   `error.type` or `exception.*` attributes;
 * - Lantern's own `error` field (the Node library puts the thrown error's message there) and `stack`;
 * - else the HTTP status alone.
 * Undefined when the span did not fail by any of these.
 */
export function errorCause(span: Span): ErrorCause | undefined {
  const otel = otelView(span);
  const exception = otel.events?.find((e) => e.exception)?.exception;
  const attr = (key: string) => str(otel.attributes?.find((a) => a.key === key)?.value);
  if (exception && (exception.type || exception.message)) {
    return { title: exception.type ?? 'Exception', ...(exception.message ? { message: exception.message } : {}), ...(exception.stacktrace ? { stack: exception.stacktrace } : {}) };
  }
  if (otel.status?.code === 'error') {
    const type = attr('exception.type') ?? attr('error.type');
    const message = otel.status.message ?? attr('exception.message');
    const stack = attr('exception.stacktrace');
    return { title: type ?? 'Error', ...(message ? { message } : {}), ...(stack ? { stack } : {}) };
  }
  const error = span['error'];
  if (error !== undefined && error !== null && error !== false && error !== '') {
    const stack = str(span['stack']);
    return { title: 'Error', message: typeof error === 'string' ? error : valueText(error), ...(stack ? { stack } : {}) };
  }
  const status = span.responseStatus;
  if (typeof status === 'number' && status >= 500) return { title: `HTTP ${status}` };
  return undefined;
}
