import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ContextStore } from './context.js';
import { OpenSpan } from './open-span.js';
import { cleanUrl, describeError, isStatus, type SpanRecord } from './spans.js';
import { parseIncoming, type IncomingTrace } from './traceparent.js';

/** Status of a request whose connection closed before the response was complete (nginx's "client closed request"). */
export const ABORTED_STATUS = 499;

export type HttpHandler<Req extends IncomingMessage, Res extends ServerResponse> = (req: Req, res: Res) => unknown;

export interface RequestInstrumentation {
  /** Runs `next` in the request's trace (new, or continued from `traceparent`); the root span is recorded when the response ends. */
  instrument(req: IncomingMessage, res: ServerResponse, next: () => void): void;
  /** Records an error of the handler on the request's root span. */
  markError(res: ServerResponse, error: unknown): void;
  /** A node:http handler that is traced; a handler that throws or rejects answers 500 and the process keeps serving. */
  wrap<Req extends IncomingMessage, Res extends ServerResponse>(handler: HttpHandler<Req, Res>): (req: Req, res: Res) => void;
}

/** The request's trace, its root span's recorder, and the AsyncLocalStorage store of the request's context. */
class RequestTrace extends OpenSpan {
  /** What the handler threw, if anything (markError). */
  error: { value: unknown } | undefined = undefined;
  private recorded = false;

  constructor(incoming: IncomingTrace | null, url: string) {
    super(incoming?.traceId ?? randomUUID(), cleanUrl(url), incoming?.tracestate, incoming?.parentSpanId ?? null);
  }

  /**
   * Records the root span once, when the response closes (`finished`: it was complete). The request and response
   * are passed in, not kept: this object is the context of whatever the request starts, which may outlive it.
   */
  end(req: IncomingMessage, res: ServerResponse, finished: boolean, emit: (span: SpanRecord) => void, captureErrorStack: boolean): void {
    if (this.recorded) return;
    this.recorded = true;
    try {
      const failed = this.error !== undefined;
      const span = this.recordOf(rootMethod(req.method), this.path, finished ? (isStatus(res.statusCode) ? res.statusCode : 500) : failed ? 500 : ABORTED_STATUS);
      if (!finished && !failed) span.aborted = true;
      if (this.error) Object.assign(span, describeError(this.error.value, captureErrorStack));
      const r = req as { route?: { path?: unknown }; baseUrl?: unknown };
      if (typeof r.route?.path === 'string') span.route = `${typeof r.baseUrl === 'string' ? r.baseUrl : ''}${r.route.path}`;
      emit(span);
    } catch {
      // never throw from the response's events
    }
  }
}

const ROOT_METHODS = new Map(http.METHODS.map((m) => [m, `controller:${m}`]));
const rootMethod = (method: string | undefined) => (method === undefined ? 'controller:GET' : (ROOT_METHODS.get(method) ?? `controller:${method}`));

export function createRequestInstrumentation(deps: { context: ContextStore; emit: (span: SpanRecord) => void; captureErrorStack: boolean }): RequestInstrumentation {
  const { context, emit, captureErrorStack } = deps;
  /** Traced responses and their trace (markError; a request traced twice is traced once). */
  const traced = new WeakMap<ServerResponse, RequestTrace>();

  function instrument(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (traced.has(res)) return next(); // already traced (the middleware twice, or wrap() around an Express app)
    let trace: RequestTrace;
    try {
      const incoming = parseIncoming(req.headers.traceparent, req.headers.tracestate);
      trace = new RequestTrace(incoming, (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/');
    } catch {
      return next(); // a request that cannot be read is not traced
    }
    // 'close' follows a complete response too ("completed, or its underlying connection was terminated
    // prematurely"); by then a complete one is writableFinished (the socket is detached). Added before the
    // context is entered, so this listener is not bound to it.
    res.on('close', () => trace.end(req, res, res.writableFinished, emit, captureErrorStack));
    traced.set(res, trace);
    context.run(trace, next);
  }

  function markError(res: ServerResponse, error: unknown): void {
    const trace = traced.get(res);
    if (trace && !trace.error) trace.error = { value: error };
  }

  function wrap<Req extends IncomingMessage, Res extends ServerResponse>(handler: HttpHandler<Req, Res>) {
    return function tracedHandler(this: unknown, req: Req, res: Res): void {
      const fail = (error: unknown) => {
        markError(res, error);
        try {
          if (!res.headersSent) {
            res.statusCode = 500;
            res.setHeader('content-type', 'text/plain; charset=utf-8');
            res.end('Internal Server Error');
          } else if (!res.writableEnded) {
            res.destroy();
          }
        } catch {
          res.destroy();
        }
      };
      instrument(req, res, () => {
        try {
          const result = handler.call(this, req, res);
          if (result !== null && typeof result === 'object' && typeof (result as PromiseLike<unknown>).then === 'function') {
            (result as PromiseLike<unknown>).then(undefined, fail);
          }
        } catch (error) {
          fail(error);
        }
      });
    };
  }

  return { instrument, markError, wrap };
}
