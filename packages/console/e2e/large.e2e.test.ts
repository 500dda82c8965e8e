import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/** Sends spans with the account's API key, in batches the ingest accepts (at most 10,000 items). */
async function ingest(server: LanternServer, account: Account, spans: object[]): Promise<void> {
  for (let i = 0; i < spans.length; i += 5_000) {
    const res = await fetch(`${server.url}/ingest/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
      body: JSON.stringify({ timestamp: new Date().toISOString(), traces: spans.slice(i, i + 5_000) }),
    });
    expect(res.status).toBe(200);
  }
}

const span = (traceId: string, at: number, extra: object = {}) => ({
  traceId,
  spanId: randomUUID(),
  parentSpanId: null,
  timestamp: new Date(at).toISOString(),
  requestMethod: 'controller:GET',
  requestURL: '/items',
  responseStatus: 200,
  durationMs: 5,
  ...extra,
});

/** What a big project looks like in the console: hundreds of traces, and one trace of 10,000 spans. */
describe('console with large data', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'large');
    ({ context, page } = await signedInPage(browser, server.url, account));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('the trace list loads pages of 100 as it scrolls, keeping only the visible rows in the DOM', async () => {
    const start = Date.now() - 1_800_000; // within the last hour, the window the list opens on
    const ids = Array.from({ length: 250 }, () => randomUUID());
    await ingest(server, account, ids.map((id, i) => span(id, start + i * 1_000, i % 10 === 0 ? { responseStatus: 503, requestURL: '/pay' } : {})));
    await waitForTrace(server.url, account, ids[0]!, 1);
    const problems = watchProblems(page);

    await page.goto('/#/traces');
    const count = page.getByTestId('traces-count');
    await count.filter({ hasText: /^\s*100\b/ }).waitFor();
    expect(await page.getByTestId('trace-row').count()).toBeLessThan(60);

    // Scrolling to the end of the list loads the next pages, until all 250 are there.
    const table = page.getByTestId('trace-table');
    for (let i = 0; i < 20 && !(await count.innerText()).match(/^\s*250\b/); i++) {
      await table.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(150);
    }
    await count.filter({ hasText: /^\s*250\b/ }).waitFor();
    expect(await page.getByTestId('trace-row').count()).toBeLessThan(60);

    // The status filter narrows on the server: 25 of the 250 failed.
    await page.getByTestId('filter-status').selectOption('5xx');
    await count.filter({ hasText: /^\s*25\b/ }).waitFor();
    const statuses = await page.getByTestId('trace-row').locator('[role="cell"]:nth-child(5)').allInnerTexts();
    expect(statuses.length).toBeGreaterThan(5);
    expect(new Set(statuses.map((s) => s.trim()))).toEqual(new Set(['503']));
    await screenshot(page, 'large-traces-5xx');
    expect(problems.list()).toEqual([]);
  });

  it('a trace of 10,000 spans opens with every span laid out and only the visible rows in the DOM', async () => {
    const traceId = randomUUID();
    const t0 = Date.now() - 60_000;
    const root = span(traceId, t0, { durationMs: 9_000, requestURL: '/big' });
    const children = Array.from({ length: 9_999 }, (_, i) =>
      span(traceId, t0 + 1 + Math.floor(i / 2), { parentSpanId: root.spanId, requestMethod: `service:step${i}`, durationMs: 1 }));
    await ingest(server, account, [root, ...children]);
    await waitForTrace(server.url, account, traceId, 10_000);

    await page.goto(`/#/traces/${traceId}?project=${account.projectId}`);
    await page.locator('[data-testid="waterfall"][data-span-count="10000"]').waitFor();
    const rows = await page.getByTestId('span-row').count();
    expect(rows).toBeGreaterThan(5);
    expect(rows).toBeLessThan(200);
    await screenshot(page, 'large-trace-10000-spans');
  });

  it('a trace that crossed two applications is one waterfall, with the callee shifted into its caller when their clocks disagree', async () => {
    // A second application of the project, with its own key.
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${account.token}` };
    const app2 = (await (await fetch(`${server.url}/applications`, { method: 'POST', headers, body: JSON.stringify({ projectId: account.projectId, name: 'payments' }) })).json()) as { id: number };
    const key2 = (await (await fetch(`${server.url}/applications/${app2.id}/api-keys`, { method: 'POST', headers, body: '{}' })).json()) as { key: string };

    const traceId = randomUUID();
    const t0 = Date.now() - 30_000;
    const root = span(traceId, t0, { durationMs: 100, requestURL: '/checkout' });
    const call = span(traceId, t0 + 10, { parentSpanId: root.spanId, requestMethod: 'external:payments', durationMs: 60 });
    // The payments service's clock is 500 ms behind: as recorded, its request starts before the call that made it.
    const callee = span(traceId, t0 + 15 - 500, { parentSpanId: call.spanId, requestMethod: 'controller:POST', requestURL: '/charge', route: '/charge', durationMs: 40 });
    await ingest(server, account, [root, call]);
    await ingest(server, { ...account, apiKey: key2.key }, [callee]);
    await waitForTrace(server.url, account, traceId, 3);

    // The page is still open from the last test: the workspace learns the new application's name by itself.
    await page.goto(`/#/traces/${traceId}?project=${account.projectId}`);
    await page.locator('[data-testid="waterfall"][data-span-count="3"]').waitFor();
    const rows = page.getByTestId('span-row');
    // Nested in one tree: the callee under the call, under the root.
    await expect(rows.evaluateAll((els) => els.map((el) => Number(el.getAttribute('data-depth'))))).resolves.toEqual([0, 1, 2]);
    // Named once the workspace has read the new application's name (it reads again on its own).
    await rows.nth(2).filter({ hasText: 'payments' }).waitFor();
    // A controller span named by its method alone carries its route (the Node library's `route`).
    await rows.nth(2).filter({ hasText: 'POST /charge' }).waitFor();
    await rows.nth(2).click();
    await page.getByTestId('span-skew-note').filter({ hasText: 'Clock skew adjusted' }).waitFor();
    await screenshot(page, 'large-trace-two-applications');
  });
});
