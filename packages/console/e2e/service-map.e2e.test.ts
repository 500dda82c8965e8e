import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, item 6: a live service map. Three applications of a project, each with its own API key, send the spans of
 * one request path through the ingest API: shop calls payments (a quarter of them answered 503), payments calls
 * ledger (the callee's controller span's parent is a span of the caller's, same trace). The map draws 3 boxes and 2
 * arrows with the server's figures, lists them in its tables, and opens the callee's traces of its window from an
 * arrow (mouse, keyboard, table); it fits a phone in both themes, says what a call is when there is none, shows a
 * failed read, and reads again on its auto-refresh interval without moving the boxes.
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

interface ServiceMapAnswer {
  from: string;
  to: string;
  nodes: Array<{ applicationId: number; requests: number; errors: number; p99Ms: number | null }>;
  edges: Array<{ callerApplicationId: number; calleeApplicationId: number; calls: number; errors: number; p50Ms: number | null; p95Ms: number | null; p99Ms: number | null }>;
}

interface App { id: number; key: string; name: string }

const MIN = 60_000;
const span = (traceId: string, parentSpanId: string | null, at: number, requestMethod: string, extra: object = {}) => ({
  traceId, spanId: randomUUID(), parentSpanId, timestamp: new Date(at).toISOString(), requestMethod, durationMs: 2, ...extra,
});

/**
 * `n` checkouts from `start`, one a second: shop's request (its controller span) sends a client span to payments;
 * payments' controller span is that client span's child (every fourth a 503) and sends one to ledger, whose controller
 * span is its child. The spans of each application go with its own key.
 */
function checkouts(n: number, start: number, offset = 0) {
  const shop: object[] = [];
  const payments: object[] = [];
  const ledger: object[] = [];
  const traceIds: string[] = [];
  const failed: string[] = [];
  for (let i = 0; i < n; i++) {
    const traceId = randomUUID();
    const at = start + i * 1000;
    const root = span(traceId, null, at, 'controller:POST', { route: '/checkout', requestURL: '/checkout', responseStatus: 200, durationMs: 200 });
    const toPayments = span(traceId, root.spanId, at + 1, 'external:payments', { requestURL: 'http://payments/pay', durationMs: 60 });
    const fails = (i + offset) % 4 === 0;
    const pay = span(traceId, toPayments.spanId, at + 2, 'controller:POST', { route: '/pay', requestURL: '/pay', responseStatus: fails ? 503 : 201, durationMs: 20 + i });
    const toLedger = span(traceId, pay.spanId, at + 3, 'external:ledger', { requestURL: 'http://ledger/entries', durationMs: 8 });
    const entry = span(traceId, toLedger.spanId, at + 4, 'controller:PUT', { route: '/entries', requestURL: '/entries', responseStatus: 201, durationMs: 3 + (i % 3) });
    shop.push(root, toPayments);
    payments.push(pay, toLedger);
    ledger.push(entry);
    traceIds.push(traceId);
    if (fails) failed.push(traceId);
  }
  return { shop, payments, ledger, traceIds, failed };
}

const hashParams = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

describe('console service map', () => {
  let server: LanternServer;
  let browser: Browser;
  let a: Account;
  let shop: App;
  let payments: App;
  let ledger: App;
  let solo: { projectId: number };
  const first = checkouts(12, Date.now() - 12 * MIN);

  const map = (projectId: number) => {
    const to = new Date(Date.now() + MIN).toISOString();
    return call<ServiceMapAnswer>(server, 'GET', `/metrics/services?projectId=${projectId}&from=${new Date(Date.now() - 60 * MIN).toISOString()}&to=${to}`, a.token);
  };
  /** Until the server counts `calls` calls on each edge of the project, and `requests` entry spans in all. */
  async function waitForMap(projectId: number, calls: number, requests: number): Promise<ServiceMapAnswer> {
    for (let i = 0; ; i++) {
      const answer = await map(projectId);
      const counted = answer.edges.reduce((n, e) => Math.min(n, e.calls), answer.edges.length ? Infinity : 0);
      if (counted >= calls && answer.nodes.reduce((n, x) => n + x.requests, 0) >= requests) return answer;
      if (i > 300) throw new Error(`the service map of project ${projectId}: ${JSON.stringify(answer)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const app = async (projectId: number, name: string): Promise<App> => {
    const created = await call<{ id: number }>(server, 'POST', '/applications', a.token, { projectId, name });
    return { id: created.id, name, key: (await call<{ key: string }>(server, 'POST', `/applications/${created.id}/api-keys`, a.token, { name: 'e2e' })).key };
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    a = await createAccount(server.url, 'map');
    shop = await app(a.projectId, 'shop');
    payments = await app(a.projectId, 'payments');
    ledger = await app(a.projectId, 'ledger');
    // The callee's spans first for half of them: a call is counted once both ends are stored, whichever came first.
    await ingest(server.url, ledger.key, 'traces', first.ledger);
    await ingest(server.url, shop.key, 'traces', first.shop);
    await ingest(server.url, payments.key, 'traces', first.payments);
    // Another project whose one application serves requests but calls nobody.
    const p = await call<{ id: number }>(server, 'POST', '/projects', a.token, { organizationId: a.organizationId, name: 'map solo project' });
    const lone = await app(p.id, 'solo');
    solo = { projectId: p.id };
    await ingest(server.url, lone.key, 'traces', [span(randomUUID(), null, Date.now() - 5 * MIN, 'controller:GET', { route: '/', responseStatus: 200, durationMs: 4 })]);
    await waitForMap(a.projectId, 12, 36);
    await waitForMap(solo.projectId, 0, 1);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = (projectId?: number): Promise<{ context: BrowserContext; page: Page }> => signedInPage(browser, server.url, a, { projectId });
  /** Waits for the map's read to end with `edges` arrows drawn. */
  const loaded = async (page: Page, edges: number) => {
    await page.locator('[data-testid="service-map-page"][data-loading="false"]').waitFor();
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid="map-edge"]').length === k, edges);
  };
  const edge = (page: Page, caller: App, callee: App) => page.locator(`[data-testid="map-edge"][data-caller="${caller.id}"][data-callee="${callee.id}"]`);
  const node = (page: Page, x: App) => page.locator(`[data-testid="map-node"][data-application-id="${x.id}"]`);
  const traceIds = async (page: Page) => (await page.getByTestId('trace-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))).sort();
  const traces = async (page: Page, n: number) => {
    await page.getByTestId('traces-count').filter({ hasText: `${n} trace${n === 1 ? '' : 's'} loaded` }).waitFor();
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid="trace-row"]').length === k, n);
  };

  it('draws each application and each caller -> callee arrow with the server\'s figures, and lists them in its tables', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      await page.goto('/#/map?range=1h');
      await loaded(page, 2);
      // The nav names the page.
      await expect(page.locator('.topbar nav a.active').innerText()).resolves.toBe('Service map');
      const nodes = await page.getByTestId('map-node').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-application-id')), Number(e.getAttribute('data-requests')), Number(e.getAttribute('data-errors'))]));
      expect(nodes.sort((x, y) => x[0]! - y[0]!)).toEqual([[shop.id, 12, 0], [payments.id, 12, 3], [ledger.id, 12, 0]]);
      const edges = await page.getByTestId('map-edge').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-caller')), Number(e.getAttribute('data-callee')), Number(e.getAttribute('data-calls')), Number(e.getAttribute('data-errors')), e.getAttribute('data-failing')]));
      expect(edges).toEqual([[shop.id, payments.id, 12, 3, 'true'], [payments.id, ledger.id, 12, 0, 'false']]);
      // What the boxes and the labels say.
      const shown = (link: ReturnType<typeof node>) => link.locator('text').allTextContents();
      await expect(shown(node(page, payments))).resolves.toEqual(['payments', '12 req · 25% failed']);
      await expect(shown(node(page, shop))).resolves.toEqual(['shop', '12 req']);
      const [calls, p99Text] = await shown(edge(page, shop, payments));
      expect(calls).toBe('12 calls · 25% failed');
      expect(p99Text).toMatch(/^p99 \d+ ms$/);
      await expect(shown(edge(page, payments, ledger))).resolves.toEqual(['12 calls', expect.stringMatching(/^p99 \d+ ms$/)]);
      // Named by what they show, described in full words.
      await expect(node(page, payments).getAttribute('aria-label')).resolves.toBe('payments 12 req · 25% failed');
      await expect(edge(page, shop, payments).getAttribute('aria-label')).resolves.toBe(`shop calls payments: 12 calls · 25% failed ${p99Text}`);
      await expect(edge(page, shop, payments).locator('desc').textContent()).resolves.toContain('shop calls payments: 12 calls, 3 failed (25%), p50');
      // Failing calls in red (the theme's --error), the others not.
      const stroke = (caller: App, callee: App) => edge(page, caller, callee).locator('.map-edge-line').evaluate((el) => getComputedStyle(el).stroke);
      await expect(stroke(shop, payments)).resolves.toBe('rgb(220, 38, 38)');
      await expect(stroke(payments, ledger)).resolves.not.toBe('rgb(220, 38, 38)');
      // Left to right, each caller before its callee.
      const x = async (app: App) => (await node(page, app).boundingBox())!.x;
      expect(await x(shop)).toBeLessThan(await x(payments));
      expect(await x(payments)).toBeLessThan(await x(ledger));
      await expect(page.getByTestId('service-map').getAttribute('data-direction')).resolves.toBe('LR');
      await expect(page.getByTestId('service-map-summary').innerText()).resolves.toContain('3 applications · 24 calls over 2 links');

      // The tables: busiest first (a tie: by names), with the server's figures.
      const answer = await map(a.projectId);
      const rows = await page.getByTestId('map-call-row').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-caller')), Number(e.getAttribute('data-callee')), Number(e.getAttribute('data-calls')), Number(e.getAttribute('data-errors'))]));
      expect(rows).toEqual([[payments.id, ledger.id, 12, 0], [shop.id, payments.id, 12, 3]]);
      expect(answer.edges.map((e) => [e.callerApplicationId, e.calleeApplicationId, e.calls, e.errors])).toEqual([[shop.id, payments.id, 12, 3], [payments.id, ledger.id, 12, 0]]);
      const row = page.locator(`[data-testid="map-call-row"][data-caller="${shop.id}"]`);
      await expect(row.getByTestId('map-call-link').innerText()).resolves.toBe('shop → payments');
      await expect(row.getByTestId('map-call-calls').innerText()).resolves.toBe('12');
      await expect(row.getByTestId('map-call-errors').innerText()).resolves.toBe('25% (3)');
      const p99 = answer.edges[0]!.p99Ms!;
      await expect(edge(page, shop, payments).getAttribute('data-p99')).resolves.toBe(String(p99));
      await expect(row.getByTestId('map-call-p99').innerText()).resolves.toBe(`${Math.round(p99)} ms`);
      await expect(page.locator(`[data-testid="map-call-row"][data-caller="${payments.id}"]`).getByTestId('map-call-errors').innerText()).resolves.toBe('0% (0)');
      const apps = await page.getByTestId('map-app-row').evaluateAll((els) => els.map((e) => [Number(e.getAttribute('data-application-id')), Number(e.getAttribute('data-requests'))]));
      expect(apps.map(([id]) => id).sort()).toEqual([shop.id, payments.id, ledger.id].sort());
      await screenshot(page, 'service-map');

      // Hovering an arrow describes it under the map.
      await edge(page, shop, payments).getByTestId('map-edge-label').hover();
      await page.getByTestId('service-map-detail').filter({ hasText: 'shop calls payments: 12 calls, 3 failed (25%)' }).waitFor();
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an arrow opens the callee\'s traces over the map\'s window; a box its application\'s; the errors cell the failed ones', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      await page.goto('/#/map?range=1h');
      await loaded(page, 2);
      const section = page.getByTestId('service-map-page');
      const window = { from: await section.getAttribute('data-from'), to: await section.getAttribute('data-to') };

      await edge(page, shop, payments).getByTestId('map-edge-label').click();
      await page.waitForFunction(() => location.hash.startsWith('#/traces?'));
      await traces(page, 12);
      await expect(traceIds(page)).resolves.toEqual([...first.traceIds].sort());
      const p = hashParams(page);
      expect([p.get('applicationId'), p.get('from'), p.get('to'), p.get('status')]).toEqual([String(payments.id), window.from, window.to, null]);
      await expect(page.getByTestId('filter-application').inputValue()).resolves.toBe(String(payments.id));
      await screenshot(page, 'service-map-edge-traces');

      // The other arrow, from its table row.
      await page.goBack();
      await loaded(page, 2);
      await page.locator(`[data-testid="map-call-row"][data-caller="${payments.id}"]`).getByTestId('map-call-link').click();
      await page.waitForFunction((id) => new URLSearchParams(location.hash.split('?')[1]).get('applicationId') === id, String(ledger.id));
      await traces(page, 12);

      // A box: its application's traces.
      await page.goBack();
      await loaded(page, 2);
      await node(page, shop).click();
      await page.waitForFunction((id) => new URLSearchParams(location.hash.split('?')[1]).get('applicationId') === id, String(shop.id));
      await traces(page, 12);

      // The errors of a call: the callee's failed traces.
      await page.goBack();
      await loaded(page, 2);
      await page.locator(`[data-testid="map-call-row"][data-caller="${shop.id}"]`).getByTestId('map-call-errors').getByRole('link').click();
      await page.waitForFunction(() => location.hash.includes('status=5xx'));
      await traces(page, 3);
      await expect(traceIds(page)).resolves.toEqual([...first.failed].sort());
      expect(hashParams(page).get('applicationId')).toBe(String(payments.id));

      // An application's metrics, over the same window.
      await page.goBack();
      await loaded(page, 2);
      await page.locator(`[data-testid="map-app-row"][data-application-id="${ledger.id}"]`).getByTestId('map-app-metrics').click();
      await page.waitForFunction(() => location.hash.startsWith('#/metrics?'));
      await page.locator(`[data-testid="metrics-app"][data-application-id="${ledger.id}"]`).waitFor();
      expect(hashParams(page).get('from')).toBe(window.from);
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('is one tab stop: j/k and the arrows move through the boxes and arrows along the flow, Enter opens', async () => {
    const { context, page } = await open();
    try {
      await page.goto('/#/map?range=1h');
      await loaded(page, 2);
      const stops = page.locator('[data-testid="service-map"] [tabindex="0"]');
      await expect(stops.count()).resolves.toBe(1);
      // Tab from the Auto-refresh choice reaches the map, on the first box along the flow.
      await page.getByTestId('service-map-auto-refresh').focus();
      await page.keyboard.press('Tab');
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-key'));
      await expect(focused()).resolves.toBe(`n${shop.id}`);
      await page.getByTestId('service-map-detail').filter({ hasText: 'shop: 12 requests, none failed' }).waitFor();
      await page.keyboard.press('j');
      await expect(focused()).resolves.toBe(`e${shop.id}-${payments.id}`);
      await page.getByTestId('service-map-detail').filter({ hasText: 'shop calls payments: 12 calls, 3 failed (25%)' }).waitFor();
      await page.keyboard.press('ArrowRight');
      await expect(focused()).resolves.toBe(`n${payments.id}`);
      await page.keyboard.press('End');
      await expect(focused()).resolves.toBe(`n${ledger.id}`);
      await page.keyboard.press('k');
      await expect(focused()).resolves.toBe(`e${payments.id}-${ledger.id}`);
      // Still one tab stop, now the arrow in focus.
      await expect(stops.count()).resolves.toBe(1);
      await expect(stops.getAttribute('data-key')).resolves.toBe(`e${payments.id}-${ledger.id}`);
      // The focus is visible: the arrow's label gets the accent's border.
      const border = await edge(page, payments, ledger).locator('.map-edge-label rect').evaluate((el) => getComputedStyle(el).strokeWidth);
      expect(border).toBe('3px');
      await screenshot(page, 'service-map-keyboard');
      await page.keyboard.press('Enter');
      await page.waitForFunction((id) => location.hash.startsWith('#/traces?') && new URLSearchParams(location.hash.split('?')[1]).get('applicationId') === id, String(ledger.id));
      await traces(page, 12);
      // Back on the map, Home goes to the first box.
      await page.goBack();
      await loaded(page, 2);
      await page.locator('[data-testid="service-map"] [tabindex="0"]').focus();
      await page.keyboard.press('Home');
      await expect(focused()).resolves.toBe(`n${shop.id}`);
    } finally {
      await context.close();
    }
  });

  it('draws the map around the application chosen in the top bar, with a way back to every application', async () => {
    const { context, page } = await open();
    try {
      await page.goto(`/#/map?range=1h&applicationId=${ledger.id}`);
      await loaded(page, 1);
      await expect(page.getByTestId('map-node').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-application-id'))).sort())).resolves.toEqual([payments.id, ledger.id].sort());
      await expect(edge(page, payments, ledger).count()).resolves.toBe(1);
      const note = page.getByTestId('service-map-focus');
      await expect(note.innerText()).resolves.toContain('Drawn around ledger');
      await expect(note.innerText()).resolves.toContain('1 more in the project');
      await note.getByRole('link', { name: 'Show every application' }).click();
      await loaded(page, 2);
      expect(hashParams(page).get('applicationId')).toBe('all');
      await expect(page.getByTestId('map-node').count()).resolves.toBe(3);
    } finally {
      await context.close();
    }
  });

  it('fits a 390 px phone, top to bottom, in the light and the dark theme', async () => {
    const { context, page } = await open();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/#/map?range=1h');
        await loaded(page, 2);
        await expect(page.getByTestId('service-map').getAttribute('data-direction')).resolves.toBe('TB');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);
        // Every box on screen, callers above callees.
        for (const x of [shop, payments, ledger]) {
          const box = (await node(page, x).boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width).toBeLessThanOrEqual(390);
        }
        expect((await node(page, shop).boundingBox())!.y).toBeLessThan((await node(page, payments).boundingBox())!.y);
        // The tables keep the caller -> callee, calls, errors and p99.
        await expect(page.getByTestId('map-call-p50').first().isVisible()).resolves.toBe(false);
        await expect(page.getByTestId('map-call-p99').first().isVisible()).resolves.toBe(true);
        await screenshot(page, scheme === 'light' ? 'service-map-390' : 'service-map-390-dark');
      }
      // The dark theme on a wide screen too: the failing arrow in the dark palette's red.
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.reload();
      await loaded(page, 2);
      await expect(edge(page, shop, payments).locator('.map-edge-line').evaluate((el) => getComputedStyle(el).stroke)).resolves.toBe('rgb(248, 81, 73)');
      await screenshot(page, 'service-map-dark');
    } finally {
      await context.close();
    }
  });

  it('says what a call is when the window has none, and shows a failed read with Try again', async () => {
    const { context, page } = await open(solo.projectId);
    try {
      await page.goto(`/#/map?range=1h&project=${solo.projectId}`);
      const empty = page.getByTestId('service-map-empty');
      await empty.waitFor();
      const text = await empty.innerText();
      expect(text).toContain('No calls between applications in the last hour');
      expect(text).toContain('Each service needs its own application, with its own API key');
      expect(text).toContain('traceparent');
      expect(text).toContain('With requests in this window but no calls: solo');
      await expect(page.getByTestId('map-node').count()).resolves.toBe(0);
      await screenshot(page, 'service-map-empty');

      // A failed read: the API's message, with Try again.
      await page.route('**/metrics/services?**', (route) => route.fulfill({
        status: 503, contentType: 'application/json', json: { error: { code: 'unavailable', message: 'The store is busy: try again in a moment' } },
      }));
      await page.goto(`/#/map?range=1h&project=${a.projectId}`);
      const banner = page.getByRole('alert').filter({ hasText: 'The store is busy' });
      await banner.waitFor();
      await screenshot(page, 'service-map-error');
      await page.unrouteAll();
      await banner.getByRole('button', { name: 'Try again' }).click();
      await loaded(page, 2);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('reads the map again on its auto-refresh interval, one read at a time, showing new calls without moving the boxes', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      let reads = 0;
      let inFlight = 0;
      let most = 0;
      const isMap = (url: string) => new URL(url).pathname === '/metrics/services';
      page.on('request', (r) => {
        if (!isMap(r.url())) return;
        reads++;
        most = Math.max(most, ++inFlight);
      });
      const done = (r: { url(): string }) => { if (isMap(r.url())) inFlight--; };
      page.on('requestfinished', done);
      page.on('requestfailed', done);

      await page.clock.install();
      await page.goto('/#/map?range=1h');
      await loaded(page, 2);
      expect(reads).toBe(1);
      const boxes = () => page.getByTestId('map-node').evaluateAll((els) => els.map((e) => {
        const r = e.getBoundingClientRect();
        return [e.getAttribute('data-application-id'), Math.round(r.x), Math.round(r.y)];
      }));
      const before = await boxes();

      // Four more checkouts (one failed payment) after the page loaded.
      const more = checkouts(4, Date.now() - 2 * MIN, 1);
      await ingest(server.url, shop.key, 'traces', more.shop);
      await ingest(server.url, payments.key, 'traces', more.payments);
      await ingest(server.url, ledger.key, 'traces', more.ledger);
      await waitForMap(a.projectId, 16, 48);
      await expect(edge(page, shop, payments).getAttribute('data-calls')).resolves.toBe('12');
      await page.clock.fastForward(31_000);
      await page.locator(`[data-testid="map-edge"][data-caller="${shop.id}"][data-calls="16"][data-errors="4"]`).waitFor();
      await page.locator('[data-testid="service-map-page"][data-loading="false"]').waitFor();
      expect(reads).toBe(2);
      expect(most).toBe(1);
      expect(await boxes()).toEqual(before);
      await expect(node(page, payments).locator('text').allTextContents()).resolves.toEqual(['payments', '16 req · 25% failed']);

      // A fixed window never changes: nothing to refresh.
      await page.goto(`/#/map?from=${new Date(Date.now() - 60 * MIN).toISOString()}&to=${new Date().toISOString()}`);
      await loaded(page, 2);
      await expect(page.getByTestId('service-map-auto-refresh').isDisabled()).resolves.toBe(true);
      const fixed = reads;
      await page.clock.fastForward(61_000);
      await page.waitForTimeout(300);
      expect(reads).toBe(fixed);
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
