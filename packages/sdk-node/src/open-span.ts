import { newId } from './ids.js';
import { performance } from 'node:perf_hooks';
import { elapsedMs, isoTime } from './clock.js';
import type { TraceContext } from './context.js';
import type { SpanRecord } from './spans.js';

/**
 * A span being timed: its ids, the context its children see (the object is the AsyncLocalStorage store), and its
 * start. The request's root span (http.ts) and the helpers' spans (spans.ts) extend it; one object per span keeps
 * the per-span allocations to it and the span's JSON.
 */
export abstract class OpenSpan implements TraceContext {
  readonly spanId: string = newId();
  private readonly startedAt = Date.now();
  private readonly start = performance.now();

  constructor(
    readonly traceId: string,
    /** Path of the request it belongs to (children inherit it as requestURL); '' outside a request. */
    readonly path: string,
    readonly tracestate: string | undefined,
    private readonly parentSpanId: string | null,
  ) {}

  /** The span as sent, ended now. */
  protected recordOf(requestMethod: string, requestURL: string, responseStatus: number): SpanRecord {
    return {
      timestamp: isoTime(this.startedAt),
      requestMethod,
      requestURL,
      responseStatus,
      traceId: this.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      durationMs: elapsedMs(this.start),
    };
  }
}
