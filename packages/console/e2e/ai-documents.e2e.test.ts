import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, type Account } from './support/api.js';
import { launchBrowser, newContext, screenshot, watchProblems, type Problems } from './support/browser.js';
import { ROOT, startServer, type LanternServer } from './support/server.js';

/** The document fixtures kept in the repository (a copy of the team's shared/fixtures/documents). */
const FIXTURES = join(ROOT, 'services/ai/test/fixtures/documents');

/** A text document whose words look like markup: the page must show them as text. */
const NOTES = 'Escalation rota: <img src=x onerror="window.lanternXss=1"> page the <b>pager</b> owner after 15 minutes.\n';

interface ApiDocument { id: string; filename: string; status: string; error?: { code: string; message: string } }

/**
 * The AI page against the built server, whose worker processes documents (as `pnpm start` runs it): uploads turn
 * ready or failed live without a reload, a failure shows its reason, pages and chunks show, the list stops being
 * read once everything settled, search shows highlighted passages with file and page, reprocess and delete work
 * (a deleted document leaves the list and the search). Screenshots go to artifacts/console/ai-*.png.
 */
describe('console AI documents', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  let problems: Problems;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'ai');
    context = await newContext(browser, {
      baseURL: server.url,
      token: account.token,
      selection: { organizationId: account.organizationId, projectId: account.projectId },
    });
    page = await context.newPage();
    problems = watchProblems(page);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  const byTestId = (id: string) => page.getByTestId(id);
  const row = (filename: string) => page.locator(`[data-testid="doc-row"][data-filename="${filename}"]`);
  /** GET /ai/docs?TenantId= as the API answers it, for comparing what the page shows. */
  const apiDocuments = async (tenantId: string): Promise<ApiDocument[]> => {
    const res = await fetch(`${server.url}/ai/docs?TenantId=${tenantId}`, { headers: { authorization: `Bearer ${account.token}` } });
    expect(res.status).toBe(200);
    return (await res.json()) as ApiDocument[];
  };
  const listReads: number[] = [];

  it('shows statuses live with failure reasons, pages and chunks; searches with highlights; reprocesses and deletes', async () => {
    page.on('request', (req) => {
      if (req.method() === 'GET' && new URL(req.url()).pathname === '/ai/docs') listReads.push(Date.now());
    });
    await page.goto('/#/ai');
    await byTestId('create-tenant-name').fill('support');
    await byTestId('create-tenant-submit').click();
    const tenantRow = byTestId('tenant-row').filter({ hasText: 'support' });
    await tenantRow.click();
    const tenantId = (await tenantRow.getAttribute('data-tenant-id'))!;
    await byTestId('tenant-docs').and(page.locator(`[data-tenant-id="${tenantId}"]`)).waitFor();

    // Every status each row shows, recorded in the page as it changes; and a mark that a reload would wipe.
    await page.evaluate(() => {
      const w = window as unknown as { seenStatuses: Record<string, string[]>; notReloaded: boolean };
      w.notReloaded = true;
      w.seenStatuses = {};
      const record = () => {
        for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-testid="doc-row"]'))) {
          const seen = (w.seenStatuses[el.dataset['filename']!] ??= []);
          if (seen.at(-1) !== el.dataset['status']) seen.push(el.dataset['status']!);
        }
      };
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
    });

    // A PDF with text, an encrypted PDF and a text file, uploaded together.
    await byTestId('doc-upload-input').setInputFiles([
      { name: 'runbook.pdf', mimeType: 'application/pdf', buffer: await readFile(join(FIXTURES, 'runbook.pdf')) },
      { name: 'encrypted.pdf', mimeType: 'application/pdf', buffer: await readFile(join(FIXTURES, 'encrypted.pdf')) },
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(NOTES) },
    ]);

    // Each turns ready or failed without a reload.
    await row('runbook.pdf').and(page.locator('[data-status="ready"]')).waitFor({ timeout: 45_000 });
    await row('notes.txt').and(page.locator('[data-status="ready"]')).waitFor({ timeout: 45_000 });
    await row('encrypted.pdf').and(page.locator('[data-status="failed"]')).waitFor({ timeout: 45_000 });
    const seen = await page.evaluate(() => (window as unknown as { seenStatuses: Record<string, string[]> }).seenStatuses);
    // runbook.pdf was listed before the worker was done with it (at least `stored` or `processing`), then ready.
    expect(seen['runbook.pdf']!.at(-1)).toBe('ready');
    expect(seen['runbook.pdf']!.slice(0, -1).length).toBeGreaterThan(0);
    expect(seen['runbook.pdf']!.slice(0, -1).every((s) => s === 'stored' || s === 'processing')).toBe(true);
    await expect(page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).resolves.toBe(true);

    // The failure's reason is the API's own; pages (PDF) and chunks of the ready ones.
    const failed = (await apiDocuments(tenantId)).find((d) => d.filename === 'encrypted.pdf')!;
    expect(failed.error?.code).toBe('encrypted');
    const reason = row('encrypted.pdf').getByTestId('doc-error');
    await expect(reason.getAttribute('data-code')).resolves.toBe('encrypted');
    await expect(reason.innerText()).resolves.toContain(failed.error!.message);
    await expect(row('runbook.pdf').getByTestId('doc-pages').innerText()).resolves.toBe('1');
    expect(Number(await row('runbook.pdf').getByTestId('doc-chunks').innerText())).toBeGreaterThanOrEqual(1);
    await expect(row('notes.txt').getByTestId('doc-chunks').innerText()).resolves.toBe('1');
    await byTestId('doc-summary').filter({ hasText: '3 documents: 2 ready, 1 failed' }).waitFor();
    await screenshot(page, 'ai-01-documents-settled');

    // Once everything settled, the list is no longer read.
    await expect(byTestId('doc-summary').getAttribute('data-polling')).resolves.toBeNull();
    const readsBefore = listReads.length;
    await page.waitForTimeout(4_500);
    expect(listReads.length).toBe(readsBefore);

    // Search: the PDF's passage, its words highlighted, with the file and the page.
    await byTestId('doc-search-input').fill('circuit breaker');
    await byTestId('doc-search-submit').click();
    const pdfResult = page.locator('[data-testid="search-result"][data-filename="runbook.pdf"]').first();
    await pdfResult.waitFor();
    await byTestId('search-summary').filter({ hasText: /^1 passage for “circuit breaker”/ }).waitFor();
    await expect(pdfResult.getByTestId('result-file').innerText()).resolves.toBe('runbook.pdf');
    await expect(pdfResult.getByTestId('result-page').innerText()).resolves.toMatch(/^page 1\b/);
    const marks = (await pdfResult.locator('mark').allInnerTexts()).map((m) => m.toLowerCase());
    expect(marks).toEqual(expect.arrayContaining(['circuit', 'breaker']));
    await expect(pdfResult.getByTestId('result-score').innerText()).resolves.toBe('score 1.00');
    await screenshot(page, 'ai-02-search');

    // Text that looks like markup stays text: the highlight is a <mark>, nothing else is an element.
    await byTestId('doc-search-input').fill('pager');
    await byTestId('doc-search-submit').click();
    const notesResult = page.locator('[data-testid="search-result"][data-filename="notes.txt"]');
    await notesResult.waitFor();
    const passage = notesResult.getByTestId('result-passage');
    await expect(passage.innerText()).resolves.toContain('<b>pager</b>');
    await expect(passage.locator('mark').allInnerTexts()).resolves.toEqual(['pager']);
    await expect(passage.locator('img, b').count()).resolves.toBe(0);
    await expect(notesResult.getByTestId('result-page').count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as unknown as { lanternXss?: number }).lanternXss)).resolves.toBeUndefined();

    // Reprocess: the API takes it back to `stored` (202), and the row comes back to ready by itself.
    const readsAtReprocess = listReads.length;
    const reprocessed = page.waitForResponse((res) => res.request().method() === 'POST' && res.url().endsWith('/reprocess'));
    await row('notes.txt').getByTestId('reprocess-doc').click();
    const answer = await reprocessed;
    expect(answer.status()).toBe(202);
    expect(((await answer.json()) as ApiDocument).status).toBe('stored');
    await row('notes.txt').and(page.locator('[data-status="ready"]')).waitFor({ timeout: 30_000 });
    await byTestId('doc-summary').and(page.locator(':not([data-polling])')).waitFor({ timeout: 30_000 });
    // The 202 said `stored`: only a later read (the reprocess's own, or a poll after it) can have said `ready`.
    expect(listReads.length).toBeGreaterThan(readsAtReprocess);
    const afterReprocess = await page.evaluate(() => (window as unknown as { seenStatuses: Record<string, string[]> }).seenStatuses['notes.txt']!);
    expect(afterReprocess.slice(-2, -1)).toEqual([expect.stringMatching(/^(stored|processing)$/)]);
    await expect(row('notes.txt').getByTestId('doc-chunks').innerText()).resolves.toBe('1');

    // Delete the PDF: gone from the list, from the results on show, and from a new search.
    await byTestId('doc-search-input').fill('circuit breaker');
    await byTestId('doc-search-submit').click();
    await pdfResult.waitFor();
    await row('runbook.pdf').getByTestId('delete-doc').click();
    await row('runbook.pdf').getByTestId('confirm-delete').click();
    await row('runbook.pdf').waitFor({ state: 'detached' });
    await pdfResult.waitFor({ state: 'detached' });
    const searched = page.waitForResponse((res) => res.request().method() === 'POST' && new URL(res.url()).pathname === '/ai/search');
    await byTestId('doc-search-submit').click();
    expect(((await (await searched).json()) as { results: unknown[] }).results).toEqual([]);
    await byTestId('no-results').waitFor();
    expect((await apiDocuments(tenantId)).map((d) => d.filename).sort()).toEqual(['encrypted.pdf', 'notes.txt']);
    await byTestId('doc-summary').filter({ hasText: '2 documents: 1 ready, 1 failed' }).waitFor();
    await screenshot(page, 'ai-03-deleted');

    expect(problems.list()).toEqual([]);
  }, 120_000);

  // Last: it stops the server.
  it('keeps the list on show with the error when reads fail, and reads less and less often', async () => {
    await page.goto('/#/ai');
    await byTestId('create-tenant-name').fill('outage');
    await byTestId('create-tenant-submit').click();
    await byTestId('tenant-row').filter({ hasText: 'outage' }).and(page.locator('[aria-current="true"]')).waitFor();
    // Some 8 MB of text: the worker is still at it when the server stops.
    const lines = Array.from({ length: 120_000 }, (_, i) => `line ${i} of the lantern outage notes, kept for the backoff test`).join('\n');
    await byTestId('doc-upload-input').setInputFiles({ name: 'outage.txt', mimeType: 'text/plain', buffer: Buffer.from(lines) });
    await row('outage.txt').and(page.locator(':is([data-status="stored"], [data-status="processing"])')).waitFor();
    await byTestId('doc-summary').and(page.locator('[data-polling="true"]')).waitFor();

    const reads: number[] = [];
    page.on('request', (req) => {
      if (req.method() === 'GET' && new URL(req.url()).pathname === '/ai/docs') reads.push(Date.now());
    });
    await server.stop();
    const stoppedAt = Date.now();
    await byTestId('tenant-docs').getByRole('alert').filter({ hasText: 'Lantern cannot be reached' }).waitFor({ timeout: 10_000 });
    await expect(row('outage.txt').count()).resolves.toBe(1);
    await screenshot(page, 'ai-04-server-gone');
    // After each failed read the wait doubles: 4 s, then 8 s (timers never fire early, so these are lower bounds).
    while (reads.filter((t) => t >= stoppedAt).length < 3 && Date.now() - stoppedAt < 30_000) await page.waitForTimeout(250);
    const failed = reads.filter((t) => t >= stoppedAt);
    expect(failed.length).toBeGreaterThanOrEqual(3);
    // The times are when this process heard of each request, which a loaded machine can delay: a margin of 0.5 s.
    expect(failed[1]! - failed[0]!).toBeGreaterThanOrEqual(3_500);
    expect(failed[2]! - failed[1]!).toBeGreaterThanOrEqual(7_500);
    problems.clear();
  }, 90_000);
});
