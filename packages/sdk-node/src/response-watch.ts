import http, { type ServerResponse } from 'node:http';

/**
 * How a traced request learns that its response was complete and closed, without a listener per response.
 *
 * A `res.on('close', …)` per request costs more than it seems: under Express 5 every request and response ends up
 * with a map (hidden class) of its own (seen with `%DebugPrint`; for a response, `res.locals = Object.create(null)`
 * after `Object.setPrototypeOf` is enough), so every property that EventEmitter's `on` reads and writes on the
 * response (`_events`, `_eventsCount`) misses V8's inline caches and is looked up again in the runtime, and so
 * does `res.writableFinished` when it closes. Instead,
 * `ServerResponse.prototype.emit` is wrapped once per process: on `finish` and `close` it looks the response up
 * in a WeakMap of watched responses, then emits as before. Responses nobody watches cost one comparison per event.
 * Other response objects (HTTP/2's compatibility API, test doubles) get a `close` listener.
 *
 * `finish` means the response was complete (handed to the operating system); `close` follows it, or comes alone
 * when the connection was closed first ("completed, or its underlying connection was terminated prematurely").
 */
export abstract class ResponseWatch {
  /** `finish` was emitted: the response was complete. */
  finished = false;
  /** Another client's watch on the same response (two instrumented apps, or one app under two clients). */
  next: ResponseWatch | undefined = undefined;

  constructor(readonly owner: object) {}

  /** The response closed; `finished` tells whether it was complete. Must not throw. */
  abstract closed(res: ServerResponse): void;
}

const watches = new WeakMap<ServerResponse, ResponseWatch>();

/** Starts watching `res` for `watch.owner`. */
export function watchResponse(res: ServerResponse, watch: ResponseWatch): void {
  patchEmit();
  const first = watches.get(res);
  watch.next = first;
  watches.set(res, watch);
  if (first === undefined && !((res as object) instanceof http.ServerResponse)) {
    // Not a node:http response (an HTTP/2 compatibility response, a test double): its emit is not the wrapped one,
    // so it gets one 'close' listener for all its watches. HTTP/2's emits 'finish' before 'close' even when the
    // stream was reset, and its `writableFinished` is then true as well: complete means `end()` was called too.
    res.on('close', () => {
      const complete = res.writableEnded === true && res.writableFinished === true;
      for (let w = watches.get(res); w !== undefined; w = w.next) w.finished = complete;
      noted(res, 'close');
    });
  }
}

/** `owner`'s watch on `res`, until the response closed. */
export function watchOf(res: ServerResponse, owner: object): ResponseWatch | undefined {
  for (let w = watches.get(res); w !== undefined; w = w.next) if (w.owner === owner) return w;
  return undefined;
}

function noted(res: ServerResponse, event: string | symbol): void {
  const first = watches.get(res);
  if (first === undefined) return;
  if (event === 'finish') {
    for (let w: ResponseWatch | undefined = first; w !== undefined; w = w.next) w.finished = true;
    return;
  }
  watches.delete(res);
  for (let w: ResponseWatch | undefined = first; w !== undefined; w = w.next) {
    try {
      w.closed(res);
    } catch {
      // never throw into the emitter
    }
  }
}

let patched = false;

function patchEmit(): void {
  if (patched) return;
  patched = true;
  const proto = http.ServerResponse.prototype as unknown as { emit: (this: ServerResponse, event: string | symbol, ...args: unknown[]) => boolean };
  const original = proto.emit;
  proto.emit = function emit(this: ServerResponse, event: string | symbol, a?: unknown, b?: unknown): boolean {
    if (event === 'close' || event === 'finish') noted(this, event);
    // The arguments passed on exactly as given (listeners may look at how many there are); the common counts with
    // `call`, the rest with `apply`.
    switch (arguments.length) {
      case 1:
        return original.call(this, event);
      case 2:
        return original.call(this, event, a);
      case 3:
        return original.call(this, event, a, b);
      default:
        return Reflect.apply(original, this, arguments) as boolean;
    }
  };
}
