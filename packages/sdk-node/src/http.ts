import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { ContextStore } from './context.js';
import { newId } from './ids.js';
import { OpenSpan } from './open-span.js';
import { ResponseWatch, watchOf, watchResponse } from './response-watch.js';
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
    super(incoming?.traceId ?? newId(), cleanUrl(url), incoming?.tracestate, incoming?.parentSpanId ?? null);
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

/**
 * A traced response: the request's trace, and the request, kept here rather than in the trace (the trace is the
 * context of whatever the request starts, which may outlive it; this lives as long as the response).
 */
class TracedResponse extends ResponseWatch {
  constructor(
    owner: object,
    readonly trace: RequestTrace,
    private readonly req: IncomingMessage,
    private readonly emit: (span: SpanRecord) => void,
    private readonly captureErrorStack: boolean,
  ) {
    super(owner);
  }

  closed(res: ServerResponse): void {
    this.trace.end(this.req, res, this.finished, this.emit, this.captureErrorStack);
  }
}

export function createRequestInstrumentation(deps: { context: ContextStore; emit: (span: SpanRecord) => void; captureErrorStack: boolean }): RequestInstrumentation {
  const { context, emit, captureErrorStack } = deps;
  /** This client, as the owner of its watches (a request traced twice by one client is traced once). */
  const owner = {};

  function instrument(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (watchOf(res, owner) !== undefined) return next(); // already traced (the middleware twice, or wrap() around an Express app)
    let trace: RequestTrace;
    try {
      const incoming = parseIncoming(req.headers.traceparent, req.headers.tracestate);
      trace = new RequestTrace(incoming, (req as { originalUrl?: string }).originalUrl ?? req.url ?? '/');
    } catch {
      return next(); // a request that cannot be read is not traced
    }
    watchResponse(res, new TracedResponse(owner, trace, req, emit, captureErrorStack));
    context.run(trace, next);
  }

  function markError(res: ServerResponse, error: unknown): void {
    const trace = (watchOf(res, owner) as TracedResponse | undefined)?.trace;
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
