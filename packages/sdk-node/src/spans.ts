import { newId } from './ids.js';
import type { ContextStore, TraceContext } from './context.js';
import { OpenSpan } from './open-span.js';
import { truncate } from './sanitize.js';
import { outgoingHeaders, type TraceHeaders } from './traceparent.js';

/** A span as sent to `POST /ingest/traces` (the seed's Span fields, plus `error`/`stack`/`aborted`/`route`). */
export interface SpanRecord {
  timestamp: string;
  requestMethod: string;
  requestURL: string;
  responseStatus: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  durationMs: number;
  error?: string;
  stack?: string;
  aborted?: true;
  route?: string;
}

/** Handed to a helper's function: the span's ids, and its status when the default (200, 500 on throw) is wrong. */
export interface SpanHandle {
  readonly traceId: string;
  readonly spanId: string;
  setStatus(status: number): void;
}

export interface CallOptions {
  /** The URL called, recorded as requestURL (query string, fragment and credentials removed). Default: the target. */
  url?: string;
}

export interface SpanHelpers {
  service<T>(name: string, fn: (span: SpanHandle) => T): T;
  controller<T>(name: string, fn: (span: SpanHandle) => T): T;
  call<T>(target: string, fn: (headers: TraceHeaders, span: SpanHandle) => T, options?: CallOptions): T;
}

/** JSON text of span names (`<type>:<name>`, a bounded set: see spanMethod), kept once made. */
const methodJson = new Map<string, string>();
function quotedMethod(method: string): string {
  let json = methodJson.get(method);
  if (json === undefined) {
    if (methodJson.size >= 4096) methodJson.clear();
    json = JSON.stringify(method);
    if (method.length <= 1024) methodJson.set(method, json);
  }
  return json;
}

/** JSON text of the last two URLs written: a request's children carry its path, so it is written once per request. */
let url1 = '';
let json1 = '""';
let url2 = '';
let json2 = '""';
function quotedUrl(url: string): string {
  if (url === url1) return json1;
  if (url === url2) return json2;
  url2 = url1;
  json2 = json1;
  url1 = url;
  json1 = JSON.stringify(url);
  return json1;
}

/**
 * A span as JSON, written out rather than by JSON.stringify (four times faster, and this runs for every span).
 * Ids and the timestamp are made by the library (UUIDs, ISO text); every other string goes through JSON.stringify.
 */
export function spanJson(s: SpanRecord): string {
  let out = `{"timestamp":"${s.timestamp}","requestMethod":${quotedMethod(s.requestMethod)},"requestURL":${quotedUrl(s.requestURL)},"responseStatus":${s.responseStatus},"traceId":"${s.traceId}","spanId":"${s.spanId}","parentSpanId":${s.parentSpanId === null ? 'null' : `"${s.parentSpanId}"`},"durationMs":${s.durationMs}`;
  if (s.error !== undefined) out += `,"error":${JSON.stringify(s.error)}`;
  if (s.stack !== undefined) out += `,"stack":${JSON.stringify(s.stack)}`;
  if (s.aborted) out += ',"aborted":true';
  if (s.route !== undefined) out += `,"route":${JSON.stringify(s.route)}`;
  return `${out}}`;
}

export const isStatus = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599;

/** Path without query string or fragment; for a full URL also without credentials. */
export function cleanUrl(url: string): string {
  // An incoming request's URL is a path ('/…'): no scheme to look for, and two indexOf() are cheaper than a RegExp.
  if (url.charCodeAt(0) === 47) {
    const query = url.indexOf('?');
    const fragment = url.indexOf('#');
    const cut = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
    return truncate(cut === -1 ? url : url.slice(0, cut));
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    try {
      const u = new URL(url);
      return truncate(`${u.protocol}//${u.host}${u.pathname}`);
    } catch {
      // not a URL after all: cut below
    }
  }
  const cut = url.search(/[?#]/);
  return truncate(cut === -1 ? url : url.slice(0, cut));
}

/** String(value), for anything (a hostile toString included). */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '[Unprintable]';
  }
}

/**
 * A span name fit for `<type>:<name>`: one line, at most 1000 characters, never empty. The name is cut before the
 * line breaks are replaced, so the pattern never runs over more than 1000 characters of an application's string.
 */
export const spanName = (name: unknown) => truncate(truncate(safeString(name), 1000).replace(/[\r\n\u2028\u2029]+/g, ' '), 1000) || 'anonymous';

/** The message (and, if asked, the stack) of something thrown. */
export function describeError(error: unknown, withStack: boolean): { error: string; stack?: string } {
  const message = error instanceof Error ? safeString(error.message) || safeString(error.name) : safeString(error);
  const out: { error: string; stack?: string } = { error: truncate(message || 'Error') };
  if (withStack && error instanceof Error && typeof error.stack === 'string') out.stack = truncate(error.stack);
  return out;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** A status found on what a call returned: a fetch Response (`status`) or an http.IncomingMessage (`statusCode`). */
function statusOf(result: unknown): number | undefined {
  if (result === null || typeof result !== 'object') return undefined;
  const r = result as { status?: unknown; statusCode?: unknown };
  return isStatus(r.status) ? r.status : isStatus(r.statusCode) ? r.statusCode : undefined;
}

/** `<type>:<name>` for helper spans; names repeat, so their cleaned form is kept, per type (bounded). */
const methodNames = new Map<string, Map<string, string>>();
function spanMethod(type: string, name: unknown): string {
  if (typeof name !== 'string') return `${type}:${spanName(name)}`;
  let names = methodNames.get(type);
  if (names === undefined) methodNames.set(type, (names = new Map()));
  let method = names.get(name);
  if (method === undefined) {
    if (names.size >= 1000) names.clear();
    method = `${type}:${spanName(name)}`;
    names.set(name, method);
  }
  return method;
}

/** A helper's span while `fn` runs: the context its children see, the handle `fn` gets, and the recorder. */
class ChildSpan extends OpenSpan implements SpanHandle {
  private status: number | undefined = undefined;
  private done = false;

  constructor(
    parent: TraceContext | undefined,
    private readonly method: string,
    private readonly url: string | undefined,
    private readonly statusFromResult: boolean,
    private readonly emit: (span: SpanRecord) => void,
    private readonly captureErrorStack: boolean,
  ) {
    super(parent?.traceId ?? newId(), parent?.path ?? '', parent?.tracestate, parent?.spanId ?? null);
  }

  setStatus(s: number): void {
    if (isStatus(s)) this.status = s;
  }

  /** Records the span once; recording never changes what fn did. */
  finish(failed: boolean, outcome: unknown): void {
    if (this.done) return;
    this.done = true;
    try {
      const status = this.status ?? (failed ? 500 : (this.statusFromResult ? statusOf(outcome) : undefined) ?? 200);
      const span = this.recordOf(this.method, this.url === undefined ? this.path : cleanUrl(this.url), status);
      if (failed) Object.assign(span, describeError(outcome, this.captureErrorStack));
      this.emit(span);
    } catch {
      // never throw into the application
    }
  }
}

export function createSpanHelpers(deps: { context: ContextStore; emit: (span: SpanRecord) => void; captureErrorStack: boolean }): SpanHelpers {
  const { context, emit, captureErrorStack } = deps;

  /** Runs `fn` as a child of the current span (or as the root of a new trace), sync or async, and records it. */
  function run<T>(method: string, url: string | undefined, fn: (span: ChildSpan) => T, statusFromResult: boolean): T {
    const span = new ChildSpan(context.current(), method, url, statusFromResult, emit, captureErrorStack);
    let result: T;
    try {
      result = context.run(span, fn, span);
    } catch (error) {
      span.finish(true, error);
      throw error;
    }
    if (!isThenable(result)) {
      span.finish(false, result);
      return result;
    }
    return result.then(
      (value) => {
        span.finish(false, value);
        return value;
      },
      (error: unknown) => {
        span.finish(true, error);
        throw error;
      },
    ) as T;
  }

  return {
    service: (name, fn) => run(spanMethod('service', name), undefined, fn, false),
    controller: (name, fn) => run(spanMethod('controller', name), undefined, fn, false),
    call: (target, fn, options) =>
      run(spanMethod('external', target), options?.url ?? safeString(target), (span) => fn(outgoingHeaders(span.traceId, span.spanId, span.tracestate), span), true),
  };
}
