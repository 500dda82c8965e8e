#!/usr/bin/env node
// bench/console: the web console's weight and speed (issue 5: "the bundle stays small; first page load under a
// second on this machine"). Not a CI test; the figures go to docs/benchmarks.md by hand.
//   1. Bundle: raw and gzipped size of each file of packages/console/dist/assets (gzip computed here with zlib level
//      9, the sum over the files of each kind; Vite's own build line shows its estimate too).
//   2. First page load: the built server started as `pnpm start` starts it; Debian's Chromium (playwright-core),
//      a fresh context (empty cache) per run, navigation to / until the sign-in form is visible. Reported: that
//      time, first contentful paint and the navigation's loadEventEnd, all in ms from the navigation's start.
//   3. A trace of 10,000 spans (sent with the API key through POST /ingest/traces, read back once stored):
//      navigation to #/traces/<traceId>, signed in, until the waterfall says it holds every span and a row shows.
// Usage: pnpm bench:console [--runs 5 --spans 10000 --timeout 60000]   (pnpm bench:console builds first)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { createAccount, ingestAndWait, makeTrace } from './setup.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'packages/console/dist');
// playwright-core is a devDependency of the console package: loaded from there.
const { chromium } = createRequire(join(ROOT, 'packages/console/package.json'))('playwright-core');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: { runs: { type: 'string', default: '5' }, spans: { type: 'string', default: '10000' }, timeout: { type: 'string', default: '60000' } },
});
const runs = Number(values.runs);
const spanCount = Number(values.spans);
const timeoutMs = Number(values.timeout);

const median = (xs) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : 'n/a');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;

function bundle() {
  if (!existsSync(join(DIST, 'index.html'))) throw new Error(`${DIST} has no build: run pnpm build (pnpm bench:console does)`);
  const rows = [];
  const totals = {};
  for (const name of readdirSync(join(DIST, 'assets')).sort()) {
    const bytes = readFileSync(join(DIST, 'assets', name));
    const gz = gzipSync(bytes, { level: 9 }).length;
    const kind = extname(name).slice(1);
    rows.push([`assets/${name}`, kb(bytes.length), kb(gz)]);
    totals[kind] = { raw: (totals[kind]?.raw ?? 0) + bytes.length, gz: (totals[kind]?.gz ?? 0) + gz };
  }
  for (const [kind, t] of Object.entries(totals)) rows.push([`all .${kind}`, kb(t.raw), kb(t.gz)]);
  return rows;
}

/** `node gateway/dist/main.js` as `pnpm start` runs it, on a free port and a fresh data directory. */
async function startServer() {
  const dataDir = await mkdtemp(join(tmpdir(), 'lantern-bench-console-'));
  const child = spawn(process.execPath, ['gateway/dist/main.js'], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /running on http:\/\/localhost:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${out}`)));
  });
  child.stdout.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One navigation in a fresh context; resolves with the in-page time (ms since navigation start) when `ready()` holds. */
async function measure(browser, url, ready, arg, storage) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...(storage ? { storageState: storage } : {}) });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'commit' });
    const readyAt = await (await page.waitForFunction(ready, arg, { polling: 'raf', timeout: timeoutMs })).jsonValue();
    // The load event and the paint entry are reported a little after the frame that showed the content.
    await page.waitForFunction(
      () => performance.getEntriesByType('navigation')[0]?.loadEventEnd > 0 && performance.getEntriesByName('first-contentful-paint').length > 0,
      undefined,
      { timeout: timeoutMs },
    );
    const timing = await page.evaluate(() => ({
      load: performance.getEntriesByType('navigation')[0].loadEventEnd,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      // What the page fetched and when: where the time to `ready` went.
      requests: performance.getEntriesByType('resource').map((e) => {
        const u = new URL(e.name);
        return { path: u.pathname + u.search, start: e.startTime, end: e.responseEnd, bytes: e.encodedBodySize };
      }),
    }));
    return { readyAt, ...timing };
  } catch (err) {
    process.stderr.write(`  run failed: ${err.message.split('\n')[0]}\n`);
    return { readyAt: NaN, load: NaN, fcp: NaN };
  } finally {
    await context.close();
  }
}

async function series(label, fn) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await fn());
  process.stderr.write(`${label}: ${results.map((r) => ms(r.readyAt)).join(', ')}\n`);
  return results;
}

const signInVisible = () => {
  const form = document.querySelector('[data-testid="signin-form"]');
  return form && form.getBoundingClientRect().height > 0 ? performance.now() : false;
};
const waterfallReady = (count) =>
  document.querySelector(`[data-testid="waterfall"][data-span-count="${count}"]`) && document.querySelector('[data-testid="span-row"]') ? performance.now() : false;

const bundleRows = bundle();
const server = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
try {
  const first = await series('first page load', () => measure(browser, `${server.url}/`, signInVisible, undefined));

  const account = await createAccount(server.url);
  const trace = makeTrace(spanCount);
  const t0 = Date.now();
  await ingestAndWait(server.url, account, trace, timeoutMs);
  process.stderr.write(`${spanCount} spans ingested and readable in ${Date.now() - t0} ms\n`);
  const storage = {
    cookies: [],
    origins: [{ origin: server.url, localStorage: [
      { name: 'lantern.token', value: account.token },
      { name: 'lantern.selection', value: JSON.stringify({ organizationId: account.organizationId, projectId: account.projectId }) },
    ] }],
  };
  const view = await series('trace view', () => measure(browser, `${server.url}/#/traces/${trace.traceId}`, waterfallReady, spanCount, storage));

  const table = [
    ['measure', 'median', `all ${runs} runs`],
    ['sign-in form visible', ms(median(first.map((r) => r.readyAt))), first.map((r) => ms(r.readyAt)).join(', ')],
    ['  first contentful paint', ms(median(first.map((r) => r.fcp))), first.map((r) => ms(r.fcp)).join(', ')],
    ['  loadEventEnd', ms(median(first.map((r) => r.load))), first.map((r) => ms(r.load)).join(', ')],
    [`trace of ${spanCount} spans: waterfall shown`, ms(median(view.map((r) => r.readyAt))), view.map((r) => ms(r.readyAt)).join(', ')],
  ];
  const print = (rows) => {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
    for (const r of rows) process.stdout.write(`| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |\n`);
  };
  process.stdout.write(`\nConsole bundle (packages/console/dist; gzip: zlib level 9, per file, summed)\n`);
  print([['file', 'raw', 'gzip'], ...bundleRows]);
  process.stdout.write(`\nChromium ${browser.version()}, ${runs} runs each, a fresh context (empty cache) per run; ms from navigation start\n`);
  print(table);
  const typical = [...view].sort((a, b) => a.readyAt - b.readyAt)[Math.floor(view.length / 2)];
  if (typical?.requests) {
    process.stdout.write(`\nRequests of the median trace-view run (ms from navigation start; ready at ${ms(typical.readyAt)})\n`);
    print([['request', 'start', 'end', 'body bytes'], ...typical.requests.map((r) => [r.path.slice(0, 60), ms(r.start), ms(r.end), r.bytes])]);
  }
} finally {
  await browser.close();
  await server.stop();
}
