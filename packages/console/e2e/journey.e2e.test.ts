import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { waitForTrace, type Account } from './support/api.js';
import { launchBrowser, newContext, screenshot, watchProblems, type Problems } from './support/browser.js';
import { startSdkApp } from './support/sdk-app.js';
import { ROOT, startServer, type LanternServer } from './support/server.js';

/** The document fixtures kept in the repository (a copy of the team's shared/fixtures/documents). */
const FIXTURES = join(ROOT, 'services/ai/test/fixtures/documents');

/**
 * A newcomer's whole visit, in Debian's Chromium against the built server (as `pnpm start` runs it), with data sent
 * by an app instrumented with the real SDK: sign up, set up an organization, project and application, create a key,
 * see the app's trace arrive, open its waterfall, follow a log to its trace, read the metrics, upload a document and
 * see it listed, delete it, sign out. One test, in order: each step starts where the last one left the page.
 * A screenshot of every page goes to artifacts/console/.
 */
describe('console journey', () => {
  let server: LanternServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: Problems;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    context = await newContext(browser, { baseURL: server.url });
    page = await context.newPage();
    problems = watchProblems(page);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  const byTestId = (id: string) => page.getByTestId(id);

  it('signs up, sets up, creates a key, sees a trace arrive, follows a log to its trace, tails and searches logs, reads metrics, uploads and deletes a document, revokes the key, signs out', async () => {
    // Sign up from the sign-in page a newcomer lands on.
    await page.goto('/');
    await byTestId('goto-signup').click();
    await byTestId('signup-email').fill('newcomer@example.com');
    await byTestId('signup-password').fill('correct horse battery');
    await screenshot(page, '01-signup');
    await byTestId('signup-submit').click();

    // Setup leads from nothing to an application.
    await byTestId('setup-org-name').fill('Acme');
    await byTestId('setup-org-submit').click();
    await byTestId('setup-project-name').fill('Shop');
    await byTestId('setup-project-submit').click();
    await byTestId('setup-app-name').fill('checkout');
    await screenshot(page, '02-setup');
    await byTestId('setup-app-submit').click();

    // A key, shown once, with the SDK snippet filled in with it,
    await byTestId('create-key').click();
    const apiKey = (await byTestId('new-key-value').innerText()).trim();
    expect(apiKey.length).toBeGreaterThan(20);
    await expect(byTestId('sdk-snippet').innerText()).resolves.toContain(apiKey);
    // and the OpenTelemetry exporter's environment: the key as x-api-key, the application's name as the service's.
    const otel = await byTestId('otel-snippet').innerText();
    expect(otel).toContain(`OTEL_EXPORTER_OTLP_HEADERS='x-api-key=${apiKey}'`);
    expect(otel).toContain(`OTEL_SERVICE_NAME='checkout'`);
    await screenshot(page, '03-applications-new-key');

    // The instrumented app sends a good and a failing request with that key.
    const app = await startSdkApp({ apiKey, ingestUrl: server.url });
    const ok = await app.get('/checkout');
    const failed = await app.get('/fail');
    await app.lantern.flush();
    const token = await page.evaluate(() => localStorage.getItem('lantern.token'));
    const selection = JSON.parse((await page.evaluate(() => localStorage.getItem('lantern.selection'))) ?? '{}') as { projectId: number };
    const account = { token, projectId: selection.projectId } as Account;
    await waitForTrace(server.url, account, ok.traceId, 4);
    await waitForTrace(server.url, account, failed.traceId, 2);

    // The trace list shows both; the good one opens as a waterfall of its four spans.
    await page.goto('/#/traces');
    await page.locator(`[data-testid="trace-row"][data-trace-id="${ok.traceId}"]`).waitFor();
    await page.locator(`[data-testid="trace-row"][data-trace-id="${failed.traceId}"]`).waitFor();
    await byTestId('latency-chart').waitFor();
    await screenshot(page, '04-traces');
    await page.locator(`[data-testid="trace-row"][data-trace-id="${ok.traceId}"]`).click();
    await page.locator('[data-testid="waterfall"][data-span-count="4"]').waitFor();
    await expect(byTestId('span-row').count()).resolves.toBe(4);
    await byTestId('span-row').filter({ hasText: 'payments' }).click();
    await byTestId('span-details').filter({ hasText: 'external:payments' }).waitFor();
    await byTestId('trace-logs').filter({ hasText: 'order placed' }).waitFor();
    await screenshot(page, '05-trace-waterfall');

    // The failing request's error log links to its trace, whose logs sit beside the waterfall.
    await page.goto('/#/logs');
    const errorLog = byTestId('log-row').filter({ hasText: 'payment declined' });
    await errorLog.waitFor();
    await screenshot(page, '06-logs');

    // Live tail: a log sent while the page is open shows up without a reload.
    await byTestId('logs-live').check();
    const placed = byTestId('log-row').filter({ hasText: 'order placed' });
    await expect(placed.count()).resolves.toBe(1);
    await app.get('/checkout');
    await app.lantern.flush();
    await placed.nth(1).waitFor({ timeout: 10_000 });
    await byTestId('logs-live').uncheck();

    // Text search narrows on the server.
    await byTestId('filter-q').fill('declined');
    await page.locator('[data-testid="log-row"]:not(:has-text("payment declined"))').first().waitFor({ state: 'detached' });
    await byTestId('log-row').filter({ hasText: 'payment declined' }).waitFor();
    await expect(byTestId('log-row').count()).resolves.toBe(1);
    const stats = await app.stop();
    expect(stats.traces.dropped).toBe(0);
    expect(stats.logs.dropped).toBe(0);
    await errorLog.getByTestId('log-trace-link').click();
    await page.locator(`[data-testid="trace-view"][data-trace-id="${failed.traceId}"]`).waitFor();
    await page.locator('[data-testid="waterfall"][data-span-count="2"]').waitFor();
    await byTestId('trace-logs').filter({ hasText: 'payment declined' }).waitFor();
    await screenshot(page, '07-trace-from-log');

    // Metrics of the application: its three requests, one of them an error.
    await page.goto('/#/metrics');
    const card = byTestId('metrics-app').first();
    await card.waitFor();
    await card.filter({ hasText: /33(\.3)?\s*%/ }).waitFor();
    await screenshot(page, '08-metrics');

    // AI: a tenant, a document uploaded and listed, then deleted.
    await page.goto('/#/ai');
    await byTestId('create-tenant-name').fill('support');
    await byTestId('create-tenant-submit').click();
    await byTestId('tenant-row').filter({ hasText: 'support' }).click();
    await byTestId('doc-upload-input').setInputFiles(join(FIXTURES, 'runbook.pdf'));
    const docRow = page.locator('[data-testid="doc-row"][data-filename="runbook.pdf"]');
    await docRow.waitFor();
    // Listed with its status: `stored` at once, `processing` or `ready` once the server's worker has taken it.
    await docRow.filter({ hasText: /stored|processing|ready/ }).waitFor();
    await screenshot(page, '09-ai-document-listed');

    // Every page so far rendered without a console error, a CSP violation or a failed request.
    expect(problems.list()).toEqual([]);

    // A format the service refuses shows the API's message (the 415 in the page's console is expected).
    await byTestId('doc-upload-input').setInputFiles(join(FIXTURES, 'runbook.odt'));
    await page.locator('[data-testid="upload-item"][data-state="failed"]').waitFor();
    await byTestId('upload-error').filter({ hasText: 'an OpenDocument file (ODT, ODS, ODP), which is not a supported format' }).waitFor();
    expect(problems.list()).toEqual([expect.stringMatching(/^console error: Failed to load resource: .* 415 /)]);
    problems.clear();

    await docRow.getByTestId('delete-doc').click();
    await docRow.getByTestId('confirm-delete').click();
    await docRow.waitFor({ state: 'detached' });
    await screenshot(page, '10-ai-document-deleted');

    // Drag and drop: a file dropped on the zone uploads.
    const markdown = await readFile(join(FIXTURES, 'runbook.md'));
    const dropped = await page.evaluateHandle((text) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], 'runbook.md', { type: 'text/markdown' }));
      return transfer;
    }, markdown.toString('utf8'));
    await byTestId('doc-dropzone').dispatchEvent('dragenter', { dataTransfer: dropped });
    await byTestId('doc-dropzone').dispatchEvent('drop', { dataTransfer: dropped });
    await page.locator('[data-testid="doc-row"][data-filename="runbook.md"]').filter({ hasText: 'stored' }).waitFor();

    // The progress bar follows the upload: on a link slowed to 256 KiB/s, a 1 MiB file shows part-way progress.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    await byTestId('doc-upload-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.alloc(1024 * 1024, 'lantern notes\n') });
    await page.waitForFunction(() => {
      const bar = document.querySelector<HTMLProgressElement>('[data-testid="upload-item"][data-name="notes.txt"] [data-testid="upload-progress"]');
      return bar !== null && bar.value > 0 && bar.value < bar.max;
    }, undefined, { timeout: 10_000 });
    await screenshot(page, '10a-ai-upload-in-progress');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await page.locator('[data-testid="doc-row"][data-filename="notes.txt"]').filter({ hasText: 'stored' }).waitFor({ timeout: 20_000 });

    // A file over 10 MB is refused before anything is sent.
    const uploads: string[] = [];
    page.on('request', (req) => { if (req.method() === 'POST' && new URL(req.url()).pathname === '/ai/docs') uploads.push(req.url()); });
    await byTestId('doc-upload-input').setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(10 * 1024 * 1024 + 1, 'a') });
    await page.locator('[data-testid="upload-item"][data-state="refused"][data-name="big.txt"]').filter({ hasText: '10,485,760 bytes' }).waitFor();
    expect(uploads).toEqual([]);

    // Revoking the key stops it working for ingest.
    await page.goto('/#/applications');
    const keyRow = byTestId('key-row').first();
    await keyRow.getByTestId('revoke-key').click();
    await keyRow.getByTestId('confirm-revoke').click();
    await page.locator('[data-testid="key-row"][data-revoked="true"]').waitFor();
    let status = 0;
    for (let i = 0; i < 60 && status !== 401; i++) {
      const res = await fetch(`${server.url}/ingest/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ timestamp: new Date().toISOString(), logs: [] }),
      });
      status = res.status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(401);
    await screenshot(page, '11-applications-key-revoked');

    // Sign out: back to the sign-in page, the token gone from the browser and revoked on the server.
    const sessionToken = await page.evaluate(() => localStorage.getItem('lantern.token'));
    expect((await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${sessionToken}` } })).status).toBe(200);
    await byTestId('sign-out').click();
    await byTestId('signin-form').waitFor();
    await expect(page.evaluate(() => localStorage.getItem('lantern.token'))).resolves.toBeNull();
    expect((await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${sessionToken}` } })).status).toBe(401);
    await screenshot(page, '12-signed-out');

    expect(problems.list()).toEqual([]);
  }, 120_000);
});
