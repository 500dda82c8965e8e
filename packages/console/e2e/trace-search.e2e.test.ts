import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, item 1 (traces): search by service, operation, maximum duration and exact status, indexed on the
 * server; sortable columns; a trace id box. The traces carry OpenTelemetry's fields (service.name as `serviceName`,
 * `name`, `kind`, `http.route`) and the Node library's (`controller:` method and `route`).
 */
describe('console: trace search', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  const t0 = Date.now() - 20 * 60_000;
  const at = (s: number) => new Date(t0 + s * 1000).toISOString();
  const ids = { pay: randomUUID(), cart: randomUUID(), billing: randomUUID(), items: randomUUID(), slow: randomUUID() };
  const root = (traceId: string, s: number, extra: object) => ({ traceId, spanId: randomUUID(), parentSpanId: null, timestamp: at(s), requestMethod: 'controller:GET', responseStatus: 200, durationMs: 10, ...extra });

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'search');
    await ingest(server.url, account.apiKey, 'traces', [
      root(ids.pay, 1, { serviceName: 'checkout', name: 'POST /pay', kind: 'server', responseStatus: 502, durationMs: 300, attributes: [{ key: 'user.id', value: 'u-7' }, { key: 'cart.items', value: 3 }] }),
      root(ids.cart, 2, { serviceName: 'checkout', name: 'GET', kind: 'server', attributes: [{ key: 'http.route', value: '/cart' }, { key: 'user.id', value: 'u-7' }], durationMs: 20 }),
      root(ids.billing, 3, { serviceName: 'billing', name: 'POST /pay', kind: 'server', durationMs: 40 }),
      root(ids.items, 4, { route: '/items/:id', durationMs: 7, orderId: 'o-42' }),
      root(ids.slow, 5, { serviceName: 'billing', name: 'GET /invoices', kind: 'server', responseStatus: 504, durationMs: 2500 }),
    ]);
    for (const id of Object.values(ids)) await waitForTrace(server.url, account, id, 1);
    ({ context, page } = await signedInPage(browser, server.url, account));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  const shown = async () => (await page.getByTestId('trace-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))) as string[];
  const count = (n: number) => page.getByTestId('traces-count').filter({ hasText: new RegExp(`^\\s*${n} traces? loaded`) }).waitFor();
  const hash = () => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

  it('narrows by service, operation, duration and exact status, on the server, and keeps each in the URL', async () => {
    const problems = watchProblems(page);
    await page.goto('/#/traces');
    await count(5);
    // The fields suggest the names of the loaded roots.
    await expect(page.locator('datalist option').evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value)))
      .resolves.toEqual(expect.arrayContaining(['checkout', 'billing', 'POST /pay', 'GET /cart', 'GET /items/:id']));

    await page.getByTestId('filter-service').fill('checkout');
    await page.getByTestId('filter-service').press('Enter');
    await count(2);
    expect((await shown()).sort()).toEqual([ids.pay, ids.cart].sort());
    expect(hash().get('service')).toBe('checkout');

    await page.getByTestId('filter-service').fill('');
    await page.getByTestId('filter-operation').fill('POST /pay');
    await page.getByTestId('filter-operation').press('Enter');
    await count(2);
    expect(await shown()).toEqual([ids.billing, ids.pay]);

    await page.getByTestId('filter-max-duration').fill('100');
    await page.getByTestId('filter-max-duration').press('Enter');
    await count(1);
    expect(await shown()).toEqual([ids.billing]);
    await screenshot(page, 'trace-search-operation');

    await page.getByTestId('filter-clear').click();
    await count(5);
    await page.getByTestId('filter-status').selectOption('502');
    await count(1);
    expect(await shown()).toEqual([ids.pay]);
    await page.getByTestId('filter-status').selectOption('5xx');
    await count(2);
    expect(problems.list()).toEqual([]);
  });

  it('narrows by attributes (key=value or a key alone, all holding) shown as chips, kept in the URL, and finds a span\'s attribute from its details', async () => {
    const problems = watchProblems(page);
    await page.goto('/#/traces?range=1h');
    await count(5);
    const attr = page.getByTestId('filter-attr');
    await attr.fill('user.id=u-7');
    await attr.press('Enter');
    await count(2);
    expect((await shown()).sort()).toEqual([ids.pay, ids.cart].sort());
    await attr.fill('cart.items');
    await attr.press('Enter');
    await count(1);
    expect(await shown()).toEqual([ids.pay]);
    expect(hash().getAll('attr')).toEqual(['user.id=u-7', 'cart.items']);
    await expect(page.getByTestId('attr-chip').evaluateAll((els) => els.map((e) => e.getAttribute('data-term')))).resolves.toEqual(['user.id=u-7', 'cart.items']);
    await screenshot(page, 'trace-search-attributes');
    // A term the API would refuse is said, not sent.
    await attr.fill('=nokey');
    await attr.press('Enter');
    await page.getByTestId('filter-attr-error').waitFor();
    expect(hash().getAll('attr')).toHaveLength(2);
    // Removing a chip widens the list again; Back brings it back.
    await page.getByTestId('attr-chip').filter({ hasText: 'cart.items' }).getByTestId('attr-remove').click();
    await count(2);
    await page.goBack();
    await count(1);
    // A Lantern span's own field, from the span's details: the traces with it.
    await page.goto(`/#/traces/${ids.items}?project=${account.projectId}`);
    await page.getByTestId('span-row').first().click();
    const field = page.locator('[data-testid="span-field"][data-field="orderId"]');
    await field.getByTestId('find-traces').click();
    await count(1);
    expect(await shown()).toEqual([ids.items]);
    expect(hash().getAll('attr')).toEqual(['orderId=o-42']);
    expect(problems.list()).toEqual([]);
  });

  it('sorts the loaded traces by a column, said in aria-sort and kept in the URL', async () => {
    await page.goto('/#/traces?range=1h');
    await count(5);
    await page.getByTestId('sort-duration').click();
    await page.waitForFunction(() => location.hash.includes('sort=slowest'));
    expect(await shown()).toEqual([ids.slow, ids.pay, ids.billing, ids.cart, ids.items]);
    await expect(page.locator('[role="columnheader"][aria-sort="descending"]').innerText()).resolves.toContain('Duration');
    await page.getByTestId('sort-duration').click();
    await page.waitForFunction(() => location.hash.includes('sort=fastest'));
    expect(await shown()).toEqual([ids.items, ids.cart, ids.billing, ids.pay, ids.slow]);
    // Time's first direction is the list's own, newest first (no `sort` in the URL); then oldest first.
    await page.getByTestId('sort-time').click();
    await page.waitForFunction(() => !location.hash.includes('sort='));
    expect(await shown()).toEqual([ids.slow, ids.items, ids.billing, ids.cart, ids.pay]);
    await page.getByTestId('sort-time').click();
    await page.waitForFunction(() => location.hash.includes('sort=oldest'));
    expect(await shown()).toEqual([ids.pay, ids.cart, ids.billing, ids.items, ids.slow]);
    await screenshot(page, 'trace-search-sorted');
  });

  it('exports every trace the filters match as CSV or NDJSON, from the list', async () => {
    await page.goto('/#/traces?service=checkout');
    await count(2);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-format').selectOption('csv')]);
    expect(csv.suggestedFilename()).toMatch(/^lantern-traces-project-\d+-.+\.csv$/);
    const rows = (await readFile((await csv.path())!, 'utf8')).trim().split('\r\n');
    expect(rows[0]).toContain('service,operation');
    expect(rows.slice(1).map((r) => r.split(',')[1]).sort()).toEqual([ids.pay, ids.cart].sort());
    await page.getByTestId('export-status').filter({ hasText: 'Saved' }).waitFor();
    const [nd] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-format').selectOption('ndjson')]);
    const records = (await readFile((await nd.path())!, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { traceId: string });
    expect(records.map((r) => r.traceId).sort()).toEqual([ids.pay, ids.cart].sort());
  });

  it('opens a trace by its id from the id box, and says so when the text is no trace id', async () => {
    await page.goto('/#/traces');
    await count(5);
    await page.getByTestId('trace-id-box').fill('not-an-id');
    await page.getByTestId('trace-id-box').press('Enter');
    await page.getByTestId('trace-id-error').waitFor();
    await page.getByTestId('trace-id-box').fill(` ${ids.cart.toUpperCase()} `);
    await page.getByTestId('trace-id-box').press('Enter');
    await page.locator(`[data-testid="trace-view"][data-trace-id="${ids.cart}"]`).waitFor();
    await page.locator('[data-testid="waterfall"][data-span-count="1"]').waitFor();
    expect(hash().get('project')).toBe(String(account.projectId));
  });
});
