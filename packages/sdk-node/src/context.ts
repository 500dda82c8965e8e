import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import http from 'node:http';

/** What the current async context knows about its trace. */
export interface TraceContext {
  traceId: string;
  /** The current span: children made here get it as parent. */
  spanId: string;
  /** Path of the incoming request (children inherit it as requestURL); '' outside a request. */
  path: string;
  /** Other vendors' tracestate members from the incoming request, passed on by call(). */
  tracestate: string | undefined;
}

/** One AsyncLocalStorage per client: two clients in one process (two instrumented apps) never mix traces. */
export function createContextStore() {
  const als = new AsyncLocalStorage<TraceContext>();
  return {
    current: (): TraceContext | undefined => als.getStore(),
    run: <A extends unknown[], R>(ctx: TraceContext, fn: (...args: A) => R, ...args: A): R => als.run(ctx, fn, ...args),
  };
}
export type ContextStore = ReturnType<typeof createContextStore>;

/**
 * The traced requests and their responses (set by the request instrumentation), each with that request's state.
 * A WeakMap rather than a property on the objects: Express re-prototypes req and res, and a property added to such
 * an object makes V8 copy its hidden class (measured ~7 us per request against <1 us for the WeakMap).
 */
export const traced = new WeakMap<object, object>();
/** Each patched method, and the original it registers through (`once` variants add a self-removing wrapper). */
const METHODS = [
  { name: 'on', via: 'on', once: false },
  { name: 'addListener', via: 'addListener', once: false },
  { name: 'prependListener', via: 'prependListener', once: false },
  { name: 'once', via: 'on', once: true },
  { name: 'prependOnceListener', via: 'prependListener', once: true },
] as const;
type Listener = ((...args: unknown[]) => unknown) & { listener?: unknown };
type Method = (this: { removeListener(event: string | symbol, l: Listener): unknown }, event: string | symbol, listener: Listener) => unknown;
let patched = false;

/**
 * Once per process, on the prototypes of incoming requests and server responses (Express's inherit from them):
 * a listener added to a traced request or response runs in the context it was added in (the request's), not in
 * the socket's that emits it. Other objects are untouched. Patching the prototypes once, and binding only when a
 * listener is added, costs far less per request than shadowing the methods on every object.
 *
 * The wrapper carries the listener as `.listener`, as Node's own `once` wrapper does, so `removeListener(fn)`,
 * `listenerCount(event, fn)` and `listeners()` see the application's function. `once` and `prependOnceListener`
 * build their own self-removing wrapper and register it through the unpatched `on`/`prependListener`: going
 * through the patched `on` would wrap twice and hide the listener one level too deep for `removeListener`
 * (Readable.pipe's cleanup relies on it).
 */
function patchPrototypes(): void {
  if (patched) return;
  patched = true;
  for (const proto of [http.IncomingMessage.prototype, http.ServerResponse.prototype] as unknown as Array<Record<string, Method>>) {
    const originals = Object.fromEntries(METHODS.map((m) => [m.name, proto[m.name]!])) as Record<string, Method>;
    for (const { name, via, once } of METHODS) {
      proto[name] = function (event, listener) {
        if (typeof listener !== 'function' || !traced.has(this)) return originals[name]!.call(this, event, listener);
        const scope = new AsyncResource('lantern.listener');
        let fired = false;
        const emitter = this;
        const bound: Listener = function (this: unknown, ...args: unknown[]) {
          if (once) {
            if (fired) return undefined;
            fired = true;
            emitter.removeListener(event, bound);
          }
          return scope.runInAsyncScope(listener, this, ...args);
        };
        bound.listener = listener;
        return originals[via]!.call(this, event, bound);
      };
    }
  }
}

/**
 * Makes the listeners that the application adds to traced requests and responses (those in `traced`) run in
 * the request's context: events such as `req.on('data')` are emitted from the socket, outside it.
 */
export const bindTracedEmitters: () => void = patchPrototypes;
