import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/** Issue 19, item 7: two traces compared, aligned by service and operation, with per-span changes and spans added or missing. */
describe('console: compare two traces', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  const [fast, slow] = [randomUUID(), randomUUID()];
  const t0 = Date.now() - 10 * 60_000;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const spans = (traceId: string, base: number, shape: 'fast' | 'slow') => {
    const root = randomUUID();
    const charge = randomUUID();
    const s = (spanId: string, parentSpanId: string | null, ms: number, name: string, durationMs: number, extra: object = {}) =>
      ({ traceId, spanId, parentSpanId, timestamp: at(base + ms), requestMethod: parentSpanId ? 'service:step' : 'controller:POST', name, serviceName: 'checkout', durationMs, responseStatus: 200, ...extra });
    return shape === 'fast'
      ? [s(root, null, 0, 'POST /pay', 100), s(randomUUID(), root, 5, 'SELECT cart', 10), s(charge, root, 20, 'charge', 50), s(randomUUID(), charge, 25, 'cache get', 5)]
      : [s(root, null, 0, 'POST /pay', 420, { responseStatus: 500 }), s(randomUUID(), root, 5, 'SELECT cart', 11), s(charge, root, 20, 'charge', 390), s(randomUUID(), charge, 25, 'fraud check', 300, { serviceName: 'risk' })];
  };

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'compare');
    await ingest(server.url, account.apiKey, 'traces', [...spans(fast, 0, 'fast'), ...spans(slow, 1000, 'slow')]);
    await waitForTrace(server.url, account, fast, 4);
    await waitForTrace(server.url, account, slow, 4);
    ({ context, page } = await signedInPage(browser, server.url, account));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('aligns the spans of two traces: each pair\'s change, and the spans only one of them has', async () => {
    const problems = watchProblems(page);
    await page.goto(`/#/traces/${fast}?project=${account.projectId}`);
    await page.getByTestId('trace-compare').click();
    await page.getByTestId('compare-page').waitFor();
    // Arrived from trace A: B is what is missing, and has the focus.
    await page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset['testid'] === 'compare-b');
    await page.getByTestId('compare-b').fill('not a trace');
    await page.getByTestId('compare-go').click();
    await page.getByTestId('compare-error').waitFor();
    await page.getByTestId('compare-b').fill(slow);
    await page.getByTestId('compare-go').click();
    await page.getByTestId('compare-summary').filter({ hasText: '3 spans in both, 1 only in A, 1 only in B' }).waitFor();
    const rows = page.getByTestId('compare-row');
    await expect(rows.evaluateAll((els) => els.map((e) => [e.getAttribute('data-kind'), e.querySelector('td')!.textContent!.trim()]))).resolves.toEqual([
      ['both', 'POST /pay checkout'], ['both', 'SELECT cart checkout'], ['both', 'charge checkout'], ['only-a', 'cache get checkout'], ['only-b', 'fraud check risk'],
    ]);
    await expect(rows.nth(0).locator('td').nth(3).innerText()).resolves.toBe('+320 ms (320 %)');
    await expect(rows.nth(3).locator('td').nth(3).innerText()).resolves.toBe('missing in B');
    await expect(rows.nth(4).locator('td').nth(3).innerText()).resolves.toBe('added in B');
    expect(new URL(page.url()).hash).toContain(`a=${fast}`);
    expect(new URL(page.url()).hash).toContain(`b=${slow}`);
    await screenshot(page, 'compare-traces');

    // Only what changed: the 1 ms change of SELECT cart is left out.
    await page.getByTestId('compare-only-changes').check();
    await expect(rows.count()).resolves.toBe(4);
    // A duration is a link to that span in its trace.
    await rows.nth(0).locator('td').nth(2).locator('a').click();
    await page.locator(`[data-testid="trace-view"][data-trace-id="${slow}"]`).waitFor();
    expect(problems.list()).toEqual([]);
  });

  it('says which trace is not found', async () => {
    const missing = randomUUID();
    await page.goto(`/#/compare?a=${fast}&b=${missing}&project=${account.projectId}`);
    await page.getByTestId('compare-not-found').filter({ hasText: missing }).waitFor();
  });
});
