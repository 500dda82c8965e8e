import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, item 5: metrics per operation. Real spans of several operations (a few of them 500s) sent through the
 * ingest API; the Metrics page's table lists them with their counts, sorts by a column (in the URL, aria-sort), opens
 * a row's traces and a sparkline bucket's, from the mouse and the keyboard, and reads again on its auto-refresh
 * interval (never two reads at once, none while the tab is hidden), picking up spans written after it loaded.
 */

async function call<T>(server: LanternServer, method: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as T;
}

interface OperationRow { applicationId: number; operation: string | null; requests: number; errors: number }
interface OperationsAnswer { from: string; to: string; bucketMs: number; total: number; operations: OperationRow[] }

const MIN = 60_000;
/** An entry span (no parent) of a Lantern SDK controller: its operation is its method and route. */
const entry = (traceId: string, at: number, method: string, route: string, status: number, durationMs: number) => ({
  traceId, spanId: randomUUID(), parentSpanId: null, timestamp: new Date(at).toISOString(), requestMethod: `controller:${method}`, route,
  requestURL: route.replace(':id', '42'), responseStatus: status, durationMs,
});
const child = (traceId: string, parentSpanId: string, at: number) => ({
  traceId, spanId: randomUUID(), parentSpanId, timestamp: new Date(at + 1).toISOString(), requestMethod: 'service:load', durationMs: 2,
});

const hashParams = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

describe('console metrics per operation', () => {
  let server: LanternServer;
  let browser: Browser;
  let a: Account;
  let appB: { id: number; key: string };
  let busy: { projectId: number; applicationId: number; key: string };
  const now = Date.now();
  // Mid-minute, so each group of requests sits in one bucket of a minute.
  const minuteAt = (ago: number) => Math.floor((now - ago * MIN) / MIN) * MIN + 20_000;
  const early = minuteAt(20);
  const late = minuteAt(5);
  const items = { ok: [randomUUID(), randomUUID(), randomUUID(), randomUUID()], failed: [randomUUID(), randomUUID()] };
  const cart = [randomUUID(), randomUUID(), randomUUID()];
  const health = randomUUID();
  const search = [randomUUID(), randomUUID()];

  /** GET /metrics/operations of a project over the last hour, as the server answers it. */
  const operations = (projectId: number) => {
    const to = new Date(Date.now() + MIN).toISOString();
    return call<OperationsAnswer>(server, 'GET', `/metrics/operations?limit=500&projectId=${projectId}&from=${new Date(Date.now() - 60 * MIN).toISOString()}&to=${to}`, a.token);
  };
  /** Until the server's rollups count `requests` entry spans in the project. */
  async function waitForRequests(projectId: number, requests: number): Promise<OperationsAnswer> {
    for (let i = 0; ; i++) {
      const answer = await operations(projectId);
      if (answer.operations.reduce((n, o) => n + o.requests, 0) >= requests) return answer;
      if (i > 200) throw new Error(`the operations of project ${projectId} count fewer than ${requests} requests: ${JSON.stringify(answer.operations.map((o) => [o.operation, o.requests]))}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    a = await createAccount(server.url, 'ops');
    const b = await call<{ id: number }>(server, 'POST', '/applications', a.token, { projectId: a.projectId, name: 'ops search app' });
    appB = { id: b.id, key: (await call<{ key: string }>(server, 'POST', `/applications/${b.id}/api-keys`, a.token, { name: 'e2e' })).key };

    const spans: object[] = [];
    items.ok.forEach((t, i) => spans.push(entry(t, early + i * 100, 'GET', '/items/:id', 200, 20 + i * 5)));
    items.failed.forEach((t, i) => spans.push(entry(t, late + i * 100, 'GET', '/items/:id', 500, 40 + i)));
    cart.forEach((t, i) => {
      const root = entry(t, minuteAt(8) + i * 100, 'POST', '/cart', 200, 300 + i * 100);
      spans.push(root, child(t, root.spanId, minuteAt(8) + i * 100));
    });
    spans.push(entry(health, minuteAt(3), 'GET', '/health', 200, 1));
    await ingest(server.url, a.apiKey, 'traces', spans);
    await ingest(server.url, appB.key, 'traces', [entry(search[0]!, minuteAt(10), 'GET', '/search', 200, 60), entry(search[1]!, minuteAt(10) + 100, 'GET', '/search', 503, 70)]);

    // A second project whose application has more operations in an hour than it keeps names for (200): the rest
    // count under "Other operations", and the table lists the 100 busiest.
    const p = await call<{ id: number }>(server, 'POST', '/projects', a.token, { organizationId: a.organizationId, name: 'ops busy project' });
    const c = await call<{ id: number }>(server, 'POST', '/applications', a.token, { projectId: p.id, name: 'ops busy app' });
    busy = { projectId: p.id, applicationId: c.id, key: (await call<{ key: string }>(server, 'POST', `/applications/${c.id}/api-keys`, a.token, { name: 'e2e' })).key };
    await ingest(server.url, busy.key, 'traces', Array.from({ length: 205 }, (_, i) => entry(randomUUID(), minuteAt(2) + i, 'GET', `/route-${i}`, 200, 5)));

    for (const id of [...items.failed, cart[2]!, health]) await waitForTrace(server.url, a, id, 1);
    await waitForRequests(a.projectId, 12);
    await waitForRequests(busy.projectId, 205);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = (projectId?: number): Promise<{ context: BrowserContext; page: Page }> => signedInPage(browser, server.url, a, { projectId });
  const rows = (page: Page) => page.getByTestId('operation-row');
  /** Waits for `n` rows, read (the table may still show the last answer while it reads again). */
  const loaded = async (page: Page, n: number) => {
    await page.locator('[data-testid="operations"][data-loading="false"]').waitFor();
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid="operation-row"]').length === k, n);
  };
  const names = (page: Page) => rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-operation')));
  const row = (page: Page, operation: string) => page.locator(`[data-testid="operation-row"][data-operation="${operation}"]`);
  const traceIds = async (page: Page) => (await page.getByTestId('trace-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))).sort();
  const traces = async (page: Page, n: number) => {
    await page.getByTestId('traces-count').filter({ hasText: `${n} trace${n === 1 ? '' : 's'} loaded` }).waitFor();
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid="trace-row"]').length === k, n);
  };

  it('lists each operation with its counts, busiest first, and sorts by a column heading (mouse or keyboard), kept in the URL', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      await page.goto('/#/metrics?range=1h');
      await loaded(page, 4);
      // Busiest first. A child span is not a request.
      await expect(names(page)).resolves.toEqual(['GET /items/:id', 'POST /cart', 'GET /search', 'GET /health']);
      const counts = await rows(page).evaluateAll((els) => els.map((e) => [e.getAttribute('data-operation'), Number(e.getAttribute('data-requests')), Number(e.getAttribute('data-errors'))]));
      expect(counts).toEqual([['GET /items/:id', 6, 2], ['POST /cart', 3, 0], ['GET /search', 2, 1], ['GET /health', 1, 0]]);
      await expect(row(page, 'GET /items/:id').getByTestId('operation-errors').innerText()).resolves.toBe('33.3% (2)');
      await expect(row(page, 'GET /search').getByTestId('operation-errors').innerText()).resolves.toBe('50% (1)');
      await expect(row(page, 'POST /cart').getByTestId('operation-p50').innerText()).resolves.toMatch(/^\d+ ms$/);
      // Several applications: each row names its own.
      await expect(row(page, 'GET /search').locator('.operation-app').innerText()).resolves.toBe('ops search app');
      await expect(row(page, 'GET /health').locator('.operation-app').innerText()).resolves.toBe('ops app');
      await expect(page.getByTestId('operations-count').innerText()).resolves.toContain('4 operations');
      // The figures are the server's.
      const answer = await operations(a.projectId);
      expect(answer.operations.map((o) => [o.operation, o.requests, o.errors])).toEqual(counts);
      await screenshot(page, 'metrics-operations');

      // p95, highest first; then the other way.
      const p95 = page.locator('th', { has: page.getByTestId('sort-p95') });
      await expect(p95.getAttribute('aria-sort')).resolves.toBe('none');
      await expect(page.locator('th', { has: page.getByTestId('sort-rate') }).getAttribute('aria-sort')).resolves.toBe('descending');
      await page.getByTestId('sort-p95').click();
      await page.waitForFunction(() => location.hash.includes('sort=p95-desc'));
      await expect(p95.getAttribute('aria-sort')).resolves.toBe('descending');
      await expect(page.locator('th', { has: page.getByTestId('sort-rate') }).getAttribute('aria-sort')).resolves.toBe('none');
      await expect(names(page)).resolves.toEqual(['POST /cart', 'GET /search', 'GET /items/:id', 'GET /health']);
      await page.getByTestId('sort-p95').click();
      await page.waitForFunction(() => location.hash.includes('sort=p95-asc'));
      await expect(p95.getAttribute('aria-sort')).resolves.toBe('ascending');
      await expect(names(page)).resolves.toEqual(['GET /health', 'GET /items/:id', 'GET /search', 'POST /cart']);
      // The URL is the view: a reload keeps the order.
      await page.reload();
      await loaded(page, 4);
      await expect(names(page)).resolves.toEqual(['GET /health', 'GET /items/:id', 'GET /search', 'POST /cart']);
      // From the keyboard: a heading is a button.
      await page.getByTestId('sort-errors').focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => location.hash.includes('sort=errors-desc'));
      await expect(page.locator('th', { has: page.getByTestId('sort-errors') }).getAttribute('aria-sort')).resolves.toBe('descending');
      await expect(names(page)).resolves.toEqual(['GET /search', 'GET /items/:id', 'POST /cart', 'GET /health']);
      // Back returns to the order before.
      await page.goBack();
      await page.waitForFunction(() => location.hash.includes('sort=p95-asc'));
      await expect(names(page)).resolves.toEqual(['GET /health', 'GET /items/:id', 'GET /search', 'POST /cart']);

      // A longer window: the operations come in buckets of an hour (the applications' charts in 10 minutes), and the
      // table's window and bucket are the operations' own.
      await page.goto('/#/metrics?range=24h');
      await loaded(page, 4);
      await expect(rows(page).evaluateAll((els) => els.map((e) => [e.getAttribute('data-operation'), Number(e.getAttribute('data-requests'))])))
        .resolves.toEqual([['GET /items/:id', 6], ['POST /cart', 3], ['GET /search', 2], ['GET /health', 1]]);
      const day = page.getByTestId('operations');
      expect(Date.parse((await day.getAttribute('data-to'))!) - Date.parse((await day.getAttribute('data-from'))!)).toBeGreaterThanOrEqual(24 * 60 * MIN);
      await expect(page.getByTestId('operations-count').innerText()).resolves.toContain('traces of that 1 h');
      await row(page, 'POST /cart').getByTestId('operation-link').click();
      await traces(page, 3);
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a row opens its operation\'s traces of the window; a sparkline bucket opens that bucket\'s (its failed ones when it had errors)', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      await page.goto('/#/metrics?range=1h');
      await loaded(page, 4);
      const section = page.getByTestId('operations');
      const window = { from: await section.getAttribute('data-from'), to: await section.getAttribute('data-to') };

      // The row's link: the application, the operation and the table's window.
      await row(page, 'GET /items/:id').getByTestId('operation-link').click();
      await page.waitForFunction(() => location.hash.startsWith('#/traces?'));
      await traces(page, 6);
      await expect(traceIds(page)).resolves.toEqual([...items.ok, ...items.failed].sort());
      let p = hashParams(page);
      expect([p.get('applicationId'), p.get('operation'), p.get('from'), p.get('to'), p.get('status')]).toEqual([String(a.applicationId), 'GET /items/:id', window.from, window.to, null]);
      await expect(page.getByTestId('filter-operation').inputValue()).resolves.toBe('GET /items/:id');

      // A click elsewhere on a row opens it too.
      await page.goBack();
      await loaded(page, 4);
      await row(page, 'POST /cart').getByTestId('operation-rate').click();
      await page.waitForFunction(() => location.hash.includes('operation=POST'));
      await traces(page, 3);
      await expect(traceIds(page)).resolves.toEqual([...cart].sort());

      // A bucket with errors: the failed traces of that minute.
      await page.goBack();
      await loaded(page, 4);
      const spark = row(page, 'GET /items/:id').getByTestId('operation-spark');
      await spark.hover();
      await spark.locator('[data-testid="spark-bucket"]:not([data-errors="0"])').click();
      await page.waitForFunction(() => location.hash.includes('status=5xx'));
      await traces(page, 2);
      await expect(traceIds(page)).resolves.toEqual([...items.failed].sort());
      p = hashParams(page);
      expect(p.get('from')).toBe(new Date(late - 20_000).toISOString());
      expect(Date.parse(p.get('to')!) - Date.parse(p.get('from')!)).toBe(MIN);
      expect(p.get('operation')).toBe('GET /items/:id');
      await screenshot(page, 'metrics-operations-spike-traces');

      // A bucket without errors: every trace of that minute.
      await page.goBack();
      await loaded(page, 4);
      await spark.hover();
      await spark.locator('[data-testid="spark-bucket"][data-errors="0"]').click();
      await page.waitForFunction((from) => location.hash.includes(`from=${encodeURIComponent(from)}`), new Date(early - 20_000).toISOString());
      await traces(page, 4);
      await expect(traceIds(page)).resolves.toEqual([...items.ok].sort());
      expect(hashParams(page).get('status')).toBeNull();
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('moves through the rows and their buckets from the keyboard: j/k and the arrows, Left/Right over the sparkline, Enter opens', async () => {
    const { context, page } = await open();
    try {
      await page.goto('/#/metrics?range=1h');
      await loaded(page, 4);
      // One tab stop: the first row's link; the others are reached with the keys.
      await expect(page.getByTestId('operation-link').evaluateAll((els) => els.map((e) => e.getAttribute('tabindex')))).resolves.toEqual(['0', '-1', '-1', '-1']);
      await page.getByTestId('operation-link').first().focus();
      const focused = () => page.evaluate(() => document.activeElement?.closest('[data-testid="operation-row"]')?.getAttribute('data-operation'));
      await page.keyboard.press('j');
      await expect(focused()).resolves.toBe('POST /cart');
      await page.keyboard.press('ArrowDown');
      await expect(focused()).resolves.toBe('GET /search');
      await page.keyboard.press('k');
      await expect(focused()).resolves.toBe('POST /cart');
      await page.keyboard.press('Home');
      await expect(focused()).resolves.toBe('GET /items/:id');
      // The focus is visible.
      await expect(page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).resolves.toBe('solid');
      // Right: the first bucket with requests (the four good ones); Right again: the one with the two failures.
      await page.keyboard.press('ArrowRight');
      await page.getByTestId('operation-cursor').filter({ hasText: '4 requests' }).waitFor();
      await page.keyboard.press('ArrowRight');
      await page.getByTestId('operation-cursor').filter({ hasText: '2 requests, 2 failed' }).waitFor();
      await screenshot(page, 'metrics-operations-keyboard');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => location.hash.includes('status=5xx'));
      await traces(page, 2);
      await expect(traceIds(page)).resolves.toEqual([...items.failed].sort());
      // Enter without a bucket: the row's traces.
      await page.goBack();
      await loaded(page, 4);
      await page.getByTestId('operation-link').first().focus();
      await page.keyboard.press('End');
      await expect(focused()).resolves.toBe('GET /health');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => location.hash.includes('operation=GET+%2Fhealth') || location.hash.includes('operation=GET%20%2Fhealth'));
      await traces(page, 1);
      await expect(traceIds(page)).resolves.toEqual([health]);
    } finally {
      await context.close();
    }
  });

  it('an application past its 200 names an hour: "Other operations", which opens the application\'s traces; showing the 100 busiest of all', async () => {
    const { context, page } = await open(busy.projectId);
    try {
      await page.goto(`/#/metrics?range=1h&project=${busy.projectId}`);
      await loaded(page, 100);
      await expect(page.getByTestId('operations-count').innerText()).resolves.toContain('showing the 100 busiest of 201');
      // The 5 requests past the 200 names: the busiest row, with no name to filter by.
      const other = rows(page).first();
      await expect(other.getAttribute('data-operation')).resolves.toBeNull();
      await expect(other.getAttribute('data-requests')).resolves.toBe('5');
      await expect(other.getByTestId('operation-link').innerText()).resolves.toBe('Other operations');
      await other.getByTestId('operation-link').click();
      await page.waitForFunction(() => location.hash.startsWith('#/traces?'));
      await page.getByTestId('traces-count').filter({ hasText: '100 traces loaded' }).waitFor();
      const p = hashParams(page);
      expect(p.get('applicationId')).toBe(String(busy.applicationId));
      expect(p.get('operation')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('reads the metrics and the operations again on the chosen interval, one read at a time, not while the tab is hidden, and shows new spans', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      const reads = { metrics: 0, operations: 0 };
      let inFlight = 0;
      let most = 0;
      const path = (url: string) => new URL(url).pathname;
      page.on('request', (r) => {
        const p = path(r.url());
        if (p !== '/metrics' && p !== '/metrics/operations') return;
        reads[p === '/metrics' ? 'metrics' : 'operations']++;
        most = Math.max(most, ++inFlight);
      });
      const done = (r: { url(): string }) => { if (['/metrics', '/metrics/operations'].includes(path(r.url()))) inFlight--; };
      page.on('requestfinished', done);
      page.on('requestfailed', done);
      const idle = () => page.locator('[data-testid="metrics-page"][data-loading="false"]').waitFor();
      const until = async (ok: () => boolean) => {
        for (let i = 0; i < 200 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      };
      const settle = async () => {
        await page.waitForTimeout(300);
        await idle();
      };

      await page.clock.install();
      await page.goto('/#/metrics?range=1h&refresh=off');
      await loaded(page, 4);
      await idle();
      expect(reads).toEqual({ metrics: 1, operations: 1 });
      // Off: nothing is read again.
      await page.clock.fastForward(5 * MIN + 1000);
      await settle();
      expect(reads).toEqual({ metrics: 1, operations: 1 });

      // The shortest interval, chosen on the page: 30 s, the default, so the URL drops it.
      await page.getByTestId('metrics-auto-refresh').selectOption('30s');
      await page.waitForFunction(() => !location.hash.includes('refresh='));
      // Spans written after the page loaded: a new operation, and one more request of a listed one.
      const del = [randomUUID(), randomUUID()];
      await ingest(server.url, a.apiKey, 'traces', [
        entry(del[0]!, Date.now() - 1000, 'DELETE', '/items/:id', 200, 15), entry(del[1]!, Date.now() - 900, 'DELETE', '/items/:id', 500, 16),
        entry(randomUUID(), Date.now() - 800, 'GET', '/items/:id', 200, 22),
      ]);
      await waitForRequests(a.projectId, 15);
      await expect(page.locator('[data-testid="operation-row"][data-operation="DELETE /items/:id"]').count()).resolves.toBe(0);
      await page.clock.fastForward(31_000);
      await page.locator('[data-testid="operation-row"][data-operation="DELETE /items/:id"][data-requests="2"][data-errors="1"]').waitFor();
      await row(page, 'GET /items/:id').and(page.locator('[data-requests="7"]')).waitFor();
      await idle();
      expect(reads).toEqual({ metrics: 2, operations: 2 });
      await page.locator('[data-testid="metrics-app"][data-application-id="' + a.applicationId + '"]').waitFor();

      // Hidden: the ticks pass without a read; shown again, one read makes up for them.
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await page.clock.fastForward(95_000);
      await settle();
      expect(reads).toEqual({ metrics: 2, operations: 2 });
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
        document.dispatchEvent(new Event('visibilitychange'));
      });
      await until(() => reads.operations === 3);
      await settle();
      expect(reads).toEqual({ metrics: 3, operations: 3 });
      // One read of the page at a time: the operations follow the applications' metrics, never beside them.
      expect(most).toBe(1);

      // A fixed window never changes: nothing to refresh.
      await page.goto(`/#/metrics?from=${new Date(Date.now() - 60 * MIN).toISOString()}&to=${new Date().toISOString()}`);
      await loaded(page, 5);
      await expect(page.getByTestId('metrics-auto-refresh').isDisabled()).resolves.toBe(true);
      await expect(page.getByTestId('metrics-auto-refresh').inputValue()).resolves.toBe('off');
      const fixed = { ...reads };
      await page.clock.fastForward(61_000);
      await settle();
      expect(reads).toEqual(fixed);
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a 390 px phone, in the dark theme too: the table scrolls in its own box, p50 and p99 hidden', async () => {
    const { context, page } = await open();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/#/metrics?range=1h');
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="operation-row"]').length >= 4);
        await page.locator('[data-testid="operations"][data-loading="false"]').waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        await expect(page.getByTestId('operation-p50').first().isVisible()).resolves.toBe(false);
        await expect(page.getByTestId('operation-p95').first().isVisible()).resolves.toBe(true);
        // The columns kept fit the phone: the sparkline is on screen, not scrolled to.
        const box = (await page.getByTestId('operation-spark').first().boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
        await page.getByTestId('operations').scrollIntoViewIfNeeded();
        await screenshot(page, scheme === 'light' ? 'metrics-operations-390' : 'metrics-operations-390-dark');
      }
    } finally {
      await context.close();
    }
  });

  it('says why there is no operation in a window with requests, and shows a failed read with Try again', async () => {
    const { context, page } = await open();
    try {
      // Requests recorded before the upgrade that added per-operation rollups: the charts count them, the
      // operations do not (the server's answer stands in for such a window).
      await page.route('**/metrics/operations?**', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as OperationsAnswer;
        await route.fulfill({ response, json: { ...body, total: 0, operations: [] } });
      });
      await page.goto('/#/metrics?range=1h');
      await page.getByTestId('operations-empty').filter({ hasText: 'after the upgrade' }).waitFor();
      await expect(page.getByTestId('operations-empty').innerText()).resolves.toContain('No requests by operation in this window');
      await screenshot(page, 'metrics-operations-empty');
      await page.unrouteAll();

      // A failed read: the API's message, in the operations section, with Try again; the charts stay.
      await page.route('**/metrics/operations?**', (route) => route.fulfill({
        status: 503, contentType: 'application/json', json: { error: { code: 'unavailable', message: 'The store is busy: try again in a moment' } },
      }));
      await page.reload();
      const banner = page.getByTestId('operations').getByRole('alert');
      await banner.filter({ hasText: 'The store is busy' }).waitFor();
      await expect(page.getByTestId('metrics-app').count()).resolves.toBeGreaterThan(0);
      await screenshot(page, 'metrics-operations-error');
      await page.unrouteAll();
      await banner.getByRole('button', { name: 'Try again' }).click();
      await page.getByTestId('operation-row').first().waitFor();
      await expect(banner.count()).resolves.toBe(0);

      // A failed read of the applications' metrics: the operations wait for it, but are not left in flight, so
      // Refresh (and auto-refresh's next tick) can read again.
      await page.route((url) => url.pathname === '/metrics', (route) => route.fulfill({
        status: 503, contentType: 'application/json', json: { error: { code: 'unavailable', message: 'Metrics are busy: try again in a moment' } },
      }));
      await page.reload();
      await page.getByRole('alert').filter({ hasText: 'Metrics are busy' }).waitFor();
      await page.locator('[data-testid="metrics-page"][data-loading="false"]').waitFor();
      await page.unrouteAll();
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      await page.getByTestId('operation-row').first().waitFor();
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });
});
