import { AsyncLocalStorage } from 'node:async_hooks';
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

/** The context of every client alive in the process (usually one); the emitter patch binds listeners to theirs. */
const live = new Set<AsyncLocalStorage<TraceContext>>();

/** One AsyncLocalStorage per client: two clients in one process (two instrumented apps) never mix traces. */
export function createContextStore() {
  const als = new AsyncLocalStorage<TraceContext>();
  live.add(als);
  patchPrototypes();
  return {
    current: (): TraceContext | undefined => als.getStore(),
    run: <A extends unknown[], R>(ctx: TraceContext, fn: (...args: A) => R, ...args: A): R => als.run(ctx, fn, ...args),
    /** The client closed: listeners added from now on are no longer bound to its context. */
    dispose: () => {
      live.delete(als);
    },
  };
}
export type ContextStore = ReturnType<typeof createContextStore>;

type Listener = ((...args: unknown[]) => unknown) & { listener?: unknown };
type Method = (this: { removeListener(event: string | symbol, l: Listener): unknown }, event: string | symbol, listener: Listener) => unknown;

/** Runs `listener` with `self` and `args` in the contexts captured when it was added (innermost last). */
function callIn(captured: Array<[AsyncLocalStorage<TraceContext>, TraceContext]>, i: number, listener: Listener, self: unknown, args: unknown[]): unknown {
  if (i === captured.length) return Reflect.apply(listener, self, args);
  const [als, ctx] = captured[i]!;
  return als.run(ctx, callIn, captured, i + 1, listener, self, args);
}

/**
 * A listener that runs in the Lantern context(s) current now, or undefined when there is none. Only Lantern's
 * stores are restored (an `als.run`, not an AsyncResource): other libraries' async context behaves as without
 * Lantern, and no async resource is made per listener.
 */
function bindToCurrent(listener: Listener): Listener | undefined {
  let single: [AsyncLocalStorage<TraceContext>, TraceContext] | undefined;
  let many: Array<[AsyncLocalStorage<TraceContext>, TraceContext]> | undefined;
  for (const als of live) {
    const ctx = als.getStore();
    if (ctx === undefined) continue;
    if (single === undefined) single = [als, ctx];
    else (many ??= [single]).push([als, ctx]);
  }
  if (single === undefined) return undefined;
  if (many !== undefined) {
    const captured = many;
    return function (this: unknown, ...args: unknown[]) {
      return callIn(captured, 0, listener, this, args);
    };
  }
  const [als, ctx] = single;
  return function (this: unknown, ...args: unknown[]) {
    return als.run(ctx, Reflect.apply, listener, this, args);
  };
}

/** Each patched method, and the original it registers through (`once` variants add a self-removing wrapper). */
const METHODS = [
  { name: 'on', via: 'on', once: false },
  { name: 'addListener', via: 'addListener', once: false },
  { name: 'prependListener', via: 'prependListener', once: false },
  { name: 'once', via: 'on', once: true },
  { name: 'prependOnceListener', via: 'prependListener', once: true },
] as const;
let patched = false;

/**
 * Once per process, on the prototypes of incoming messages (server requests, client responses) and server
 * responses (Express's inherit from them): a listener added while a Lantern context is current runs in that
 * context, not in the one of the socket that emits it (`req.on('data')` is emitted from the socket; a kept-alive
 * socket may come from another request). Listeners added outside a trace, and other objects, are untouched.
 * Patching the prototypes once costs far less per request than shadowing the methods on every object.
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
        const inContext = typeof listener === 'function' ? bindToCurrent(listener) : undefined;
        if (inContext === undefined) return originals[name]!.call(this, event, listener);
        let bound: Listener = inContext;
        if (once) {
          let fired = false;
          const emitter = this;
          bound = function (this: unknown, ...args: unknown[]) {
            if (fired) return undefined;
            fired = true;
            emitter.removeListener(event, bound);
            return Reflect.apply(inContext, this, args);
          };
        }
        bound.listener = listener;
        return originals[via]!.call(this, event, bound);
      };
    }
  }
}
