import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { bindTracedEmitters, traced, type ContextStore, type TraceContext } from './context.js';
import { cleanUrl, describeError, elapsedMs, isStatus, type SpanRecord } from './spans.js';
import { parseIncoming } from './traceparent.js';

interface RequestState {
  error?: { value: unknown };
}

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

export function createRequestInstrumentation(deps: { context: ContextStore; emit: (span: SpanRecord) => void; captureErrorStack: boolean }): RequestInstrumentation {
  const { context, emit, captureErrorStack } = deps;
  bindTracedEmitters();

  /** The request's trace and the recorder of its root span; undefined if the request cannot be read (it is then not traced). */
  function begin(req: IncomingMessage, res: ServerResponse, state: RequestState): { ctx: TraceContext; end: (finished: boolean) => void } | undefined {
    try {
      const incoming = parseIncoming(req.headers.traceparent, req.headers.tracestate);
      const ctx: TraceContext = {
        traceId: incoming?.traceId ?? randomUUID(),
        spanId: randomUUID(),
        path: cleanUrl((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/'),
        tracestate: incoming?.tracestate,
      };
      const startedAt = Date.now();
      const start = performance.now();
      const end = (finished: boolean) => {
        const failed = state.error !== undefined;
        const span: SpanRecord = {
          timestamp: new Date(startedAt).toISOString(),
          requestMethod: `controller:${req.method ?? 'GET'}`,
          requestURL: ctx.path,
          responseStatus: finished ? (isStatus(res.statusCode) ? res.statusCode : 500) : failed ? 500 : ABORTED_STATUS,
          traceId: ctx.traceId,
          spanId: ctx.spanId,
          parentSpanId: incoming?.parentSpanId ?? null,
          durationMs: elapsedMs(start),
        };
        if (!finished && !failed) span.aborted = true;
        if (state.error) Object.assign(span, describeError(state.error.value, captureErrorStack));
        const r = req as { route?: { path?: unknown }; baseUrl?: unknown };
        if (typeof r.route?.path === 'string') span.route = `${typeof r.baseUrl === 'string' ? r.baseUrl : ''}${r.route.path}`;
        emit(span);
      };
      return { ctx, end };
    } catch {
      return undefined;
    }
  }

  function instrument(req: IncomingMessage, res: ServerResponse, next: () => void): void {
    if (traced.has(req)) return next(); // already traced (the middleware twice, or wrap() around an Express app)
    const state: RequestState = {};
    const trace = begin(req, res, state);
    if (!trace) return next();
    let recorded = false;
    const record = (finished: boolean) => {
      if (recorded) return;
      recorded = true;
      try {
        trace.end(finished);
      } catch {
        // never throw from the response's events
      }
    };
    // 'close' follows a complete response too ("completed, or its underlying connection was terminated
    // prematurely"); by then a complete one is writableFinished (the socket is detached).
    res.on('close', () => record(res.writableFinished));
    // Marked after our own listeners: listeners added from now on run in the request's context.
    traced.set(req, state);
    traced.set(res, state);
    context.run(trace.ctx, next);
  }

  function markError(res: ServerResponse, error: unknown): void {
    const state = traced.get(res) as RequestState | undefined;
    if (state && !state.error) state.error = { value: error };
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
