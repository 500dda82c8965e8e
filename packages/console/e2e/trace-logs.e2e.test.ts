import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, item 4: logs inside the trace. Each span's logs sit under it in the waterfall, expandable, and in
 * its details with "Open in Logs"; a failed trace opens on the span where the failure began, its cause on top.
 */

async function waitForLogs(server: LanternServer, account: Account, traceId: string, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${server.url}/ingest/logs?projectId=${account.projectId}&traceId=${traceId}&limit=1000`, { headers: { authorization: `Bearer ${account.token}` } });
    const items = (await res.json()) as unknown[];
    if (items.length >= count) return;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} has ${items.length} of ${count} logs`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('console: logs inside the trace', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  const traceId = randomUUID();
  const root = randomUUID();
  const call = randomUUID();
  const query = randomUUID();
  const t0 = Date.now() - 60_000;
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  const log = (ms: number, level: string, message: string, spanId?: string) => ({
    traceId, level, type: 'app', message, timestamp: at(ms), clientTimestamp: at(ms), ...(spanId ? { spanId } : {}),
  });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'tracelogs');
    await ingest(server.url, account.apiKey, 'traces', [
      { traceId, spanId: root, parentSpanId: null, timestamp: at(0), requestMethod: 'controller:POST', requestURL: '/checkout', responseStatus: 500, durationMs: 80 },
      { traceId, spanId: call, parentSpanId: root, timestamp: at(10), requestMethod: 'external:payments', requestURL: 'http://payments/charge', responseStatus: 502, durationMs: 50 },
      { traceId, spanId: query, parentSpanId: call, timestamp: at(20), requestMethod: 'service:chargeCard', durationMs: 20, error: 'connection refused by card-db:5432', stack: 'Error: connection refused by card-db:5432\n    at connect (db.js:10:5)' },
    ]);
    await ingest(server.url, account.apiKey, 'logs', [
      log(1, 'info', 'checkout started', root),
      log(21, 'warn', 'card-db slow to answer', query),
      log(39, 'error', 'charge failed: connection refused', query),
      log(70, 'info', 'request finished without a span'),
    ]);
    await waitForTrace(server.url, account, traceId, 3);
    await waitForLogs(server, account, traceId, 4);
    ({ context, page } = await signedInPage(browser, server.url, account));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('a failed trace opens on the span where it failed: its cause on top, its logs under it and in its details', async () => {
    const problems = watchProblems(page);
    await page.goto(`/#/traces/${traceId}?project=${account.projectId}`);
    const details = page.locator(`[data-testid="span-details"][data-span-id="${query}"]`);
    await details.waitFor();
    // The URL names the span it opened on.
    await page.waitForFunction((s) => location.hash.includes(`span=${s}`), query);
    await expect(details.getByTestId('span-error-message').innerText()).resolves.toBe('connection refused by card-db:5432');
    // The stack trace is behind a disclosure: its text is there, folded.
    await expect(details.getByTestId('span-error-cause').locator('pre').textContent()).resolves.toContain('at connect (db.js:10:5)');
    await details.locator('[data-testid="span-logs"][data-log-count="2"]').waitFor();
    await expect(details.getByTestId('span-log-entry').allInnerTexts()).resolves.toEqual([
      expect.stringContaining('card-db slow to answer'), expect.stringContaining('charge failed: connection refused'),
    ]);

    // In the waterfall, the failing span's logs are open right under it; the root's (its own, and the one of no
    // span) wait behind its badge.
    const order = async () => page.locator('[data-testid="span-row"], [data-testid="span-log"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-span-id') ?? `log:${e.textContent}`));
    const queryToggle = page.locator(`[data-testid="span-row"][data-span-id="${query}"] [data-testid="span-logs-toggle"]`);
    await expect(queryToggle.getAttribute('aria-expanded')).resolves.toBe('true');
    const rootToggle = page.locator(`[data-testid="span-row"][data-span-id="${root}"] [data-testid="span-logs-toggle"]`);
    await expect(rootToggle.getAttribute('data-log-count')).resolves.toBe('2');
    await expect(rootToggle.getAttribute('aria-expanded')).resolves.toBe('false');
    let rows = await order();
    expect(rows.slice(0, 3)).toEqual([root, call, query]);
    expect(rows.slice(3).map((r) => r.replace(/^log:/, ''))).toEqual([expect.stringContaining('card-db slow'), expect.stringContaining('charge failed')]);
    await screenshot(page, 'trace-logs-failing-span');

    await rootToggle.click();
    rows = await order();
    expect(rows[0]).toBe(root);
    expect(rows[1]).toContain('checkout started');
    expect(rows[2]).toContain('request finished without a span');
    expect(rows[3]).toBe(call);
    // A log row opens its span with the log marked.
    await page.getByTestId('span-log').filter({ hasText: 'checkout started' }).click();
    const rootDetails = page.locator(`[data-testid="span-details"][data-span-id="${root}"]`);
    await rootDetails.locator('[data-testid="span-log-entry"].highlight').filter({ hasText: 'checkout started' }).waitFor();
    expect(problems.list()).toEqual([]);
  });

  it('"Open in Logs" shows a log among its application\'s logs of that minute, and the trace\'s logs all together', async () => {
    const problems = watchProblems(page);
    await page.goto(`/#/traces/${traceId}?project=${account.projectId}&span=${query}`);
    const entry = page.locator(`[data-testid="span-details"][data-span-id="${query}"] [data-testid="span-log-entry"]`).filter({ hasText: 'charge failed' });
    await entry.getByTestId('log-open').click();
    await page.getByTestId('log-row').filter({ hasText: 'charge failed: connection refused' }).waitFor();
    const params = new URLSearchParams(new URL(page.url()).hash.split('?')[1]);
    expect(params.get('applicationId')).toBe(String(account.applicationId));
    expect(Date.parse(params.get('to')!) - Date.parse(params.get('from')!)).toBe(120_000);
    expect(params.get('traceId')).toBeNull();

    await page.goBack();
    await page.getByTestId('trace-logs-open').click();
    await page.getByTestId('log-row').nth(3).waitFor();
    await expect(page.getByTestId('log-row').count()).resolves.toBe(4);
    expect(new URL(page.url()).hash).toContain(`traceId=${traceId}`);
    expect(problems.list()).toEqual([]);
  });

  it('reads every log of a trace, past one page', async () => {
    const busy = randomUUID();
    const spanId = randomUUID();
    await ingest(server.url, account.apiKey, 'traces', [{ traceId: busy, spanId, parentSpanId: null, timestamp: at(0), requestMethod: 'controller:GET', requestURL: '/busy', responseStatus: 200, durationMs: 900 }]);
    await ingest(server.url, account.apiKey, 'logs', Array.from({ length: 620 }, (_, i) => ({
      traceId: busy, spanId, level: 'info', type: 'app', message: `step ${i}`, timestamp: at(1 + i), clientTimestamp: at(1 + i),
    })));
    await waitForTrace(server.url, account, busy, 1);
    await waitForLogs(server, account, busy, 620);
    await page.goto(`/#/traces/${busy}?project=${account.projectId}`);
    await page.locator('[data-testid="trace-logs"][data-log-count="620"]').waitFor();
    await expect(page.locator(`[data-testid="span-row"][data-span-id="${spanId}"] [data-testid="span-logs-toggle"]`).getAttribute('data-log-count')).resolves.toBe('620');
    // A trace without errors opens on no span.
    await expect(page.getByTestId('span-details').count()).resolves.toBe(0);
  });
});
