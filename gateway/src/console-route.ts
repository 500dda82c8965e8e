import { join } from 'node:path';
import express, { Router, type Response } from 'express';

/**
 * The console's Content-Security-Policy: scripts, styles and API calls from this origin only (Vite's build has no
 * inline script or style), images also as data: URLs, no framing. gateway/nginx.conf sends the same value.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the console's HTML (the page itself and the "not built" page). */
export const CONSOLE_HTML_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'same-origin',
};

const NOT_BUILT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Lantern: console not built</title></head>
<body>
<h1>Lantern is running, but its console has not been built</h1>
<p>Build it with <code>pnpm build</code> (or <code>pnpm --filter @lantern/console build</code>) in the checkout,
then reload this page. <code>pnpm start</code> builds it before it starts.</p>
<p>The API works without it: see <a href="/openapi.json">/openapi.json</a>.</p>
</body>
</html>
`;

function notBuilt(res: Response): void {
  res.status(404).set({ ...CONSOLE_HTML_HEADERS, 'Cache-Control': 'no-store' }).type('html').send(NOT_BUILT);
}

/**
 * The web console's static files, from `dir` (packages/console/dist): `/` and `/index.html` answer index.html
 * (revalidated on every load: `no-cache` with an ETag), `/assets/*` the hashed bundles (cached for a year,
 * immutable), `/favicon.ico` if the build has one. Files are streamed from disk, never held in memory. The console
 * routes by the URL's hash, so no other path is claimed: anything else, a missing asset and any method but GET and
 * HEAD fall through to the API's routes and its JSON 404. Without a build, `/` answers a page saying how to make one.
 */
export function consoleRouter(dir: string): Router {
  const router = Router();

  router.get(['/', '/index.html'], (_req, res, next) => {
    // `root`: only the file name is checked for dotfiles, so a checkout under a dot directory still works.
    const options = { root: dir, headers: { ...CONSOLE_HTML_HEADERS, 'Cache-Control': 'no-cache' }, cacheControl: false };
    res.sendFile('index.html', options, (err?: Error & { code?: string }) => {
      // Sent; or the client went away (mid-file, or before): nothing left to answer.
      if (!err || res.headersSent || err.code === 'ECONNABORTED' || err.code === 'ECONNRESET') return;
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') notBuilt(res);
      else next(err);
    });
  });

  const nosniff = (res: Response) => res.setHeader('X-Content-Type-Options', 'nosniff');
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), { index: false, redirect: false, fallthrough: true, immutable: true, maxAge: '365d', setHeaders: nosniff }),
  );
  router.get('/favicon.ico', express.static(dir, { index: false, redirect: false, fallthrough: true, maxAge: '1d', setHeaders: nosniff }));
  return router;
}
