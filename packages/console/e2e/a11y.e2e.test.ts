import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { seriousViolations } from './support/axe.js';
import { launchBrowser, screenshot, signedInPage } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, item 9: every page passes axe-core without a serious or critical violation, in the light and the dark
 * theme, at 1280 px and on a 390 px phone; and the pages fit the phone (nothing wider than the screen). The service
 * map (item 6) is drawn with one arrow, a failing one.
 */
describe('console accessibility and small screens', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  const traceId = randomUUID();
  const mapTrace = randomUUID();
  let tenantId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'a11y');
    const t = Date.now() - 5 * 60_000;
    const root = randomUUID();
    await ingest(server.url, account.apiKey, 'traces', [
      { traceId, spanId: root, parentSpanId: null, timestamp: new Date(t).toISOString(), requestMethod: 'controller:POST', route: '/checkout/:cart', requestURL: '/checkout/42?coupon=SPRING', responseStatus: 500, durationMs: 120, error: 'card declined' },
      { traceId, spanId: randomUUID(), parentSpanId: root, timestamp: new Date(t + 5).toISOString(), requestMethod: 'external:payments', requestURL: 'https://payments.example/charge', responseStatus: 502, durationMs: 90 },
    ]);
    // The service map's one arrow: a minute earlier (the trace above stays the newest), this application calls
    // payments, an application of its own, which fails.
    const api = (path: string, body: unknown) => fetch(`${server.url}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` }, body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<{ id: number; key: string }>);
    const payments = await api('/applications', { projectId: account.projectId, name: 'payments' });
    const paymentsKey = (await api(`/applications/${payments.id}/api-keys`, { name: 'a11y' })).key;
    const [cart, toPayments] = [randomUUID(), randomUUID()];
    await ingest(server.url, account.apiKey, 'traces', [
      { traceId: mapTrace, spanId: cart, parentSpanId: null, timestamp: new Date(t - 60_000).toISOString(), requestMethod: 'controller:GET', route: '/cart', requestURL: '/cart', responseStatus: 200, durationMs: 40 },
      { traceId: mapTrace, spanId: toPayments, parentSpanId: cart, timestamp: new Date(t - 59_990).toISOString(), requestMethod: 'external:payments', requestURL: 'https://payments.example/quote', responseStatus: 503, durationMs: 20 },
    ]);
    await ingest(server.url, paymentsKey, 'traces', [
      { traceId: mapTrace, spanId: randomUUID(), parentSpanId: toPayments, timestamp: new Date(t - 59_989).toISOString(), requestMethod: 'controller:GET', route: '/quote', requestURL: '/quote', responseStatus: 503, durationMs: 18 },
    ]);
    await ingest(server.url, account.apiKey, 'logs', [
      { traceId, spanId: root, level: 'error', type: 'app', message: 'payment failed: card declined', timestamp: new Date(t + 50).toISOString(), clientTimestamp: new Date(t + 50).toISOString() },
    ]);
    await waitForTrace(server.url, account, traceId, 2);
    await waitForTrace(server.url, account, mapTrace, 3);
    // The call is counted once both of its spans are stored.
    for (let i = 0; ; i++) {
      const res = await fetch(`${server.url}/metrics/services?projectId=${account.projectId}`, { headers: { authorization: `Bearer ${account.token}` } });
      if (((await res.json()) as { edges: unknown[] }).edges.length === 1) break;
      if (i > 100) throw new Error('the service map has no call');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // A tenant with a document with a long name: the AI page's widest state.
    const tenant = (await (await fetch(`${server.url}/ai/tenant`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` },
      body: JSON.stringify({ organizationId: account.organizationId, name: 'support' }),
    })).json()) as { id: string };
    tenantId = tenant.id;
    const form = new FormData();
    form.append('file', new Blob(['Refunds are issued within five working days.\n'], { type: 'text/plain' }), 'quarterly-refund-policy-for-enterprise-customers-final-v2.txt');
    const upload = await fetch(`${server.url}/ai/docs?TenantId=${tenantId}`, { method: 'POST', headers: { authorization: `Bearer ${account.token}` }, body: form });
    expect(upload.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const PAGES: Array<[string, string, string]> = [
    ['traces', '/#/traces', 'trace-row'],
    ['trace', `/#/traces/${traceId}`, 'waterfall'],
    ['logs', '/#/logs', 'log-row'],
    // The operations table loads after the applications' charts: waiting for its rows checks both.
    ['metrics', '/#/metrics', 'operation-row'],
    ['service-map', '/#/map', 'map-edge'],
    ['applications', '/#/applications', 'applications-page'],
    ['ai', '/#/ai?tenant=TENANT', 'doc-row'],
    ['compare', `/#/compare?a=${traceId}&b=${traceId}`, 'compare-summary'],
  ];

  async function open(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = await signedInPage(browser, server.url, account);
    await page.setViewportSize(viewport);
    await page.emulateMedia({ colorScheme });
    return { context, page };
  }

  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`has no serious violation on any page at ${width} px, ${scheme} theme${width < 500 ? ', and nothing wider than the screen' : ''}`, async () => {
        const { context, page } = await open({ width, height }, scheme);
        try {
          const found: Record<string, unknown> = {};
          for (const [name, path, testid] of PAGES) {
            await page.goto(path.replace('TENANT', tenantId));
            await page.getByTestId(testid).first().waitFor();
            const violations = await seriousViolations(page);
            if (violations.length) found[name] = violations;
            if (width < 500) {
              const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
              if (overflow > 0) found[`${name} (overflow)`] = `${overflow} px wider than the screen`;
              // And no control cut off by a box that clips it (one that cannot be scrolled to it).
              const offscreen = await page.evaluate(() => Array.from(document.querySelectorAll<HTMLElement>('a, button, input, select')).filter((el) => {
                const r = el.getBoundingClientRect();
                if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') return false;
                for (let p = el.parentElement; p; p = p.parentElement) {
                  const o = getComputedStyle(p).overflowX;
                  if ((o === 'auto' || o === 'scroll') && p.scrollWidth > p.clientWidth) return false;
                }
                return r.right > window.innerWidth + 1;
              }).map((el) => el.outerHTML.slice(0, 100)));
              if (offscreen.length) found[`${name} (off screen)`] = offscreen;
              // The top bar leaves the screen to the page: three short lines at most (it took 220 px before).
              const bar = await page.locator('.topbar').boundingBox();
              if (bar && bar.height > 130) found[`${name} (top bar)`] = `${bar.height} px tall`;
            }
            await screenshot(page, `a11y-${name}-${width}-${scheme}`);
          }
          expect(found).toEqual({});
        } finally {
          await context.close();
        }
      });
    }
  }

  it('moves through the scatter, the traces and the logs from the keyboard, one tab stop each; focus lands on the trace that opens', async () => {
    const { context, page } = await open({ width: 1280, height: 800 }, 'light');
    try {
      await page.goto('/#/traces');
      await page.getByTestId('trace-row').first().waitFor();
      // One tab stop for the whole scatter: focus it, arrows pick a trace, Enter opens it.
      await page.getByTestId('latency-plot').focus();
      await page.keyboard.press('ArrowLeft');
      await page.getByTestId('latency-cursor').filter({ hasText: '120 ms' }).waitFor();
      await page.keyboard.press('Enter');
      await page.locator(`[data-testid="trace-view"][data-trace-id="${traceId}"]`).waitFor();
      // Focus lands on what opened: the waterfall, where j/k and the arrows move through spans.
      await page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'tree');
      const selected = () => page.locator('[data-testid="span-row"][aria-selected="true"]').getAttribute('data-depth');
      await page.keyboard.press('k');
      await expect(selected()).resolves.toBe('0');
      await page.keyboard.press('j');
      await expect(selected()).resolves.toBe('1');

      // The list: Tab reaches its one row; j and k move, Enter opens.
      await page.goto('/#/traces?range=all');
      await page.getByTestId('trace-row').first().waitFor();
      await expect(page.locator('[data-testid="trace-row"][tabindex="0"]').count()).resolves.toBe(1);
      await page.locator('[data-testid="trace-row"][tabindex="0"]').focus();
      await page.keyboard.press('j');
      await page.keyboard.press('k');
      await expect(page.evaluate(() => document.activeElement?.getAttribute('data-row-index'))).resolves.toBe('0');
      await page.keyboard.press('Enter');
      await page.locator(`[data-testid="trace-view"][data-trace-id="${traceId}"]`).waitFor();

      // Logs: the rows are one tab stop too; Enter opens a log's details.
      await page.goto('/#/logs');
      await page.getByTestId('log-row').first().waitFor();
      await expect(page.locator('.log-message[tabindex="0"]').count()).resolves.toBe(1);
      await page.locator('.log-message[tabindex="0"]').focus();
      await page.keyboard.press('Enter');
      await page.locator('.log-row.expanded').waitFor();
    } finally {
      await context.close();
    }
  });

  it('follows the system\'s theme, and the reader\'s choice over it, kept across a reload', async () => {
    const { context, page } = await open({ width: 1280, height: 800 }, 'dark');
    try {
      await page.goto('/#/traces');
      await page.getByTestId('trace-row').first().waitFor();
      const background = () => page.evaluate(() => getComputedStyle(document.body.parentElement!).backgroundColor);
      expect(await background()).toBe('rgb(14, 17, 22)');
      await page.getByTestId('theme-switch').selectOption('light');
      expect(await background()).toBe('rgb(247, 247, 245)');
      await page.reload();
      await page.getByTestId('trace-row').first().waitFor();
      expect(await background()).toBe('rgb(247, 247, 245)');
      await expect(page.getByTestId('theme-switch').inputValue()).resolves.toBe('light');
      await page.getByTestId('theme-switch').selectOption('system');
      expect(await background()).toBe('rgb(14, 17, 22)');
    } finally {
      await context.close();
    }
  });
});
