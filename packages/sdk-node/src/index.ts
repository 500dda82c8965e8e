import { resolve } from 'node:path';
import { createContextStore } from './context.js';
import { registerExit, unregisterExit, type ExitParticipant } from './exit.js';
import { KindExporter } from './exporter.js';
import { expressErrorHandler, expressMiddleware, type ErrorMiddleware, type Middleware } from './express.js';
import { createRequestInstrumentation, type HttpHandler } from './http.js';
import { createLogApi, type LogApi } from './logs.js';
import { resolveOptions, type LanternOptions } from './options.js';
import type { KindStats } from './outcomes.js';
import { createReporter, LanternError, type Kind } from './report.js';
import { createSpanHelpers, spanJson, type SpanHelpers, type SpanRecord } from './spans.js';
import { Spool } from './spool.js';
import { createTransport } from './transport.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

export { LanternError } from './report.js';
export type { DropInfo, DropReason, Kind, LanternErrorCode } from './report.js';
export type { LanternOptions, LogLevel } from './options.js';
export type { LogApi, LogFields } from './logs.js';
export type { CallOptions, SpanHandle, SpanHelpers, SpanRecord } from './spans.js';
export type { TraceHeaders } from './traceparent.js';
export type { KindStats } from './outcomes.js';
export type { Middleware, ErrorMiddleware } from './express.js';
export type { HttpHandler } from './http.js';
export { ABORTED_STATUS } from './http.js';

export interface LanternStats {
  traces: KindStats;
  logs: KindStats;
}

export interface CloseOptions {
  /** How long to keep sending; default `closeTimeoutMs` (10 s). What is left is spooled or reported as dropped. */
  timeoutMs?: number;
}

export interface Lantern extends SpanHelpers {
  /** Express 4/5 middleware; install it first. */
  middleware(): Middleware;
  /** Optional Express error middleware (after the routes): records the error's message on the root span. */
  errorHandler(): ErrorMiddleware;
  /** Traces a plain node:http handler (or an Express app): `http.createServer(lantern.wrap(handler))`. */
  wrap(handler: HttpHandler<IncomingMessage, ServerResponse>): (req: IncomingMessage, res: ServerResponse) => void;
  wrap<Req extends IncomingMessage, Res extends ServerResponse>(handler: HttpHandler<Req, Res>): (req: Req, res: Res) => void;
  /** The current trace and span, if any. */
  currentTrace(): { traceId: string; spanId: string } | undefined;
  log: LogApi;
  /** Sends what is buffered now; resolves when the buffers are empty or an attempt failed (it is retried). */
  flush(): Promise<void>;
  stats(): LanternStats;
  /** Stops the timers and sends what is left, retrying until the deadline; never rejects; safe to call twice. */
  close(options?: CloseOptions): Promise<LanternStats>;
}

const KINDS: Kind[] = ['traces', 'logs'];
const emptyStats = (): KindStats => ({ queued: 0, inFlight: 0, sent: 0, dropped: 0, retried: 0, failed: 0, rejected: 0, spooled: 0, spoolPending: 0 });

/** The client. Invalid options throw a TypeError naming the option; nothing after creation throws into the host. */
export function createLantern(options: LanternOptions = {}): Lantern {
  const opts = resolveOptions(options);
  const reporter = createReporter(opts);
  const context = createContextStore();
  let state: 'open' | 'closing' | 'closed' = 'open';

  let spool: Spool | undefined;
  if (opts.enabled && opts.spoolDir) {
    try {
      spool = new Spool(resolve(opts.spoolDir), opts.spoolMaxBytes);
    } catch (error) {
      throw new TypeError(`@lantern/sdk-node: option "spoolDir" must be a writable directory (${(error as Error).message})`);
    }
  }
  const transport = opts.enabled ? createTransport(opts) : undefined;
  const exporters = transport ? Object.fromEntries(KINDS.map((k) => [k, new KindExporter(k, transport, reporter, spool, opts)])) as Record<Kind, KindExporter> : undefined;

  const internal = (what: string, error: unknown) => reporter.error(new LanternError('internal', `${what}: ${(error as Error)?.message ?? String(error)}`));
  const record = (kind: Kind, json: string) => {
    if (!exporters) return;
    if (state === 'closed') exporters[kind].drop(1, 'closed');
    else exporters[kind].record(json);
  };
  const emitSpan = (span: SpanRecord) => {
    try {
      if (exporters) record('traces', spanJson(span));
    } catch (error) {
      internal('a span could not be recorded', error);
    }
  };

  const helpers = createSpanHelpers({ context, emit: emitSpan, captureErrorStack: opts.captureErrorStack });
  const requests = createRequestInstrumentation({ context, emit: emitSpan, captureErrorStack: opts.captureErrorStack });
  const log = createLogApi({
    context,
    minLevel: opts.logLevel,
    captureErrorStack: opts.captureErrorStack,
    accepting: () => exporters !== undefined,
    record: (json) => record('logs', json),
    sendNow: (json) => (!exporters ? Promise.resolve() : state === 'closed' ? (exporters.logs.drop(1, 'closed'), Promise.resolve()) : exporters.logs.sendNow(json)),
    onSerializeError: (error) => reporter.error(new LanternError('serialize', `a log could not be recorded: ${(error as Error)?.message ?? String(error)}`, { kind: 'logs' })),
  });

  const timer = exporters ? setInterval(() => KINDS.forEach((k) => exporters[k].kick()), opts.flushIntervalMs) : undefined;
  timer?.unref();
  if (exporters && spool && (spool.pending('traces') > 0 || spool.pending('logs') > 0)) KINDS.forEach((k) => exporters[k].kick());

  const stats = (): LanternStats => ({ traces: exporters?.traces.stats() ?? emptyStats(), logs: exporters?.logs.stats() ?? emptyStats() });

  let closing: Promise<LanternStats> | undefined;
  const close = (closeOptions: CloseOptions = {}): Promise<LanternStats> => {
    if (closing) return closing;
    state = 'closing';
    const t = closeOptions?.timeoutMs;
    const timeoutMs = typeof t === 'number' && Number.isFinite(t) && t >= 0 ? Math.min(t, 2_000_000_000) : opts.closeTimeoutMs;
    closing = (async () => {
      if (timer) clearInterval(timer);
      // The drain's own timers do not hold the process; this one does, until the drain ends.
      const hold = setTimeout(() => undefined, timeoutMs + 1000);
      try {
        if (exporters) {
          const deadline = Date.now() + timeoutMs;
          await Promise.all(KINDS.map((k) => exporters[k].drain(deadline)));
        }
      } catch (error) {
        internal('close failed', error);
      } finally {
        clearTimeout(hold);
        reporter.flushDrops();
        state = 'closed';
        context.dispose();
        transport?.close();
        unregisterExit(participant);
      }
      return stats();
    })();
    return closing;
  };

  const participant: ExitParticipant = {
    beforeExit() {
      if (opts.flushOnExit && state === 'open' && exporters && KINDS.some((k) => exporters[k].busy)) void close();
    },
    exit() {
      if (exporters && state !== 'closed') KINDS.forEach((k) => exporters[k].exitNow());
      reporter.flushDrops();
    },
  };
  if (exporters) registerExit(participant);

  return {
    middleware: () => expressMiddleware(requests),
    errorHandler: () => expressErrorHandler(requests),
    wrap: requests.wrap,
    service: helpers.service,
    controller: helpers.controller,
    call: helpers.call,
    currentTrace() {
      const c = context.current();
      return c ? { traceId: c.traceId, spanId: c.spanId } : undefined;
    },
    log,
    async flush() {
      if (exporters && state !== 'closed') await Promise.all(KINDS.map((k) => exporters[k].flush()));
    },
    stats,
    close,
  };
}
