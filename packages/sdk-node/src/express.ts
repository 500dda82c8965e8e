import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInstrumentation } from './http.js';

/**
 * Express 4 and 5 middleware, typed against node:http only so that the library does not load Express.
 * Express's Request and Response extend IncomingMessage and ServerResponse, so `app.use()` takes these.
 */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
export type ErrorMiddleware = (error: unknown, req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** `app.use(lantern.middleware())` first: every request gets a trace and a root span `controller:<METHOD>`. */
export function expressMiddleware(requests: RequestInstrumentation): Middleware {
  return function lanternMiddleware(req, res, next) {
    requests.instrument(req, res, next);
  };
}

/**
 * `app.use(lantern.errorHandler())` after the routes (optional): puts the error's message on the root span,
 * then hands the error on to the next error handler (Express answers 500 as before).
 */
export function expressErrorHandler(requests: RequestInstrumentation): ErrorMiddleware {
  return function lanternErrorHandler(error, _req, res, next) {
    requests.markError(res, error);
    next(error);
  };
}
