import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, ingest, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * Issue 19, items 2 and 3: time the reader controls (one default window, an absolute range, drag-to-zoom, one
 * labelled time zone) and URLs that reproduce the view (organization, project, application, filters, window,
 * span; filter changes are history entries; a link opens its project for a reader looking at another).
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

const MIN = 60_000;
const span = (traceId: string, at: number, url: string, status = 200, parentSpanId: string | null = null, spanId = randomUUID()) => ({
  traceId, spanId, parentSpanId, timestamp: new Date(at).toISOString(), requestMethod: parentSpanId ? 'service:lookup' : 'controller:GET',
  requestURL: url, responseStatus: status, durationMs: parentSpanId ? 4 : 12,
});
const log = (at: number, level: string, message: string, traceId = randomUUID()) => ({
  traceId, level, type: 'app', message, timestamp: new Date(at).toISOString(), clientTimestamp: new Date(at).toISOString(),
});

/** "HH:MM:SS" (and ".mmm") of an instant in a zone, as the console shows a time of today. */
function wallTime(ms: number, timeZone: string, millis = false): string {
  const t = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(ms);
  return millis ? `${t}.${String(ms % 1000).padStart(3, '0')}` : t;
}

const hashParams = (page: Page) => new URLSearchParams(new URL(page.url()).hash.split('?')[1] ?? '');

describe('console time and links', () => {
  let server: LanternServer;
  let browser: Browser;
  let a: Account;
  let appA2: { id: number; key: string };
  let projectB: { id: number; appKey: string };
  const now = Date.now();
  // Timestamps on whole seconds plus a known millisecond part, so the times shown can be computed here.
  const recentAt = Math.floor((now - 10 * MIN) / 1000) * 1000 + 123;
  const otherAt = Math.floor((now - 5 * MIN) / 1000) * 1000 + 456;
  const oldAt = Math.floor((now - 180 * MIN) / 1000) * 1000 + 789;
  const recent = randomUUID();
  const recentChild = randomUUID();
  const other = randomUUID();
  const old = randomUUID();
  const oldB = randomUUID();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    a = await createAccount(server.url, 'view');
    const app2 = await call<{ id: number }>(server, 'POST', '/applications', a.token, { projectId: a.projectId, name: 'view second app' });
    appA2 = { id: app2.id, key: (await call<{ key: string }>(server, 'POST', `/applications/${app2.id}/api-keys`, a.token, { name: 'e2e' })).key };
    const pB = await call<{ id: number }>(server, 'POST', '/projects', a.token, { organizationId: a.organizationId, name: 'view project b' });
    const appB = await call<{ id: number }>(server, 'POST', '/applications', a.token, { projectId: pB.id, name: 'view b app' });
    projectB = { id: pB.id, appKey: (await call<{ key: string }>(server, 'POST', `/applications/${appB.id}/api-keys`, a.token, { name: 'e2e' })).key };

    const root = randomUUID();
    await ingest(server.url, a.apiKey, 'traces', [
      span(recent, recentAt, '/recent', 200, null, root),
      span(recent, recentAt + 2, '/recent', 200, root, recentChild),
      span(old, oldAt, '/old'),
    ]);
    await ingest(server.url, appA2.key, 'traces', [span(other, otherAt, '/other', 503)]);
    await ingest(server.url, projectB.appKey, 'traces', [span(oldB, oldAt, '/old-b')]);
    await ingest(server.url, a.apiKey, 'logs', [{ ...log(recentAt, 'error', 'recent log of the first app', recent), chargeId: 'ch_42' }, log(oldAt, 'error', 'old log of the first app', old)]);
    await ingest(server.url, appA2.key, 'logs', [{ ...log(otherAt, 'info', 'recent log of the second app', other), chargeId: 'ch_7' }]);
    for (const id of [recent, old, other]) await waitForTrace(server.url, a, id, 1);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const open = (options: { project?: number; timezoneId?: string } = {}): Promise<{ context: BrowserContext; page: Page }> =>
    signedInPage(browser, server.url, a, { projectId: options.project, timezoneId: options.timezoneId });

  const rows = (page: Page) => page.getByTestId('trace-row');
  const traceIds = async (page: Page) => (await rows(page).evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')))).sort();

  it('every page opens on the last hour; an empty window offers all time', async () => {
    const { context, page } = await open();
    const problems = watchProblems(page);
    try {
      await page.goto('/#/traces');
      await page.getByTestId('traces-count').filter({ hasText: '2 traces' }).waitFor();
      await expect(page.getByTestId('filter-range').inputValue()).resolves.toBe('1h');
      await expect(traceIds(page)).resolves.toEqual([recent, other].sort());
      await page.getByTestId('filter-range').selectOption('all');
      await page.getByTestId('traces-count').filter({ hasText: '3 traces' }).waitFor();

      await page.goto('/#/logs');
      await page.getByTestId('log-row').first().waitFor();
      await expect(page.getByTestId('filter-range').inputValue()).resolves.toBe('1h');
      await expect(page.getByTestId('log-row').count()).resolves.toBe(2);

      await page.goto('/#/metrics');
      await expect(page.getByTestId('filter-range').inputValue()).resolves.toBe('1h');

      // Project B's only trace is three hours old: the last hour is empty, and says so, with a way to all time.
      await page.goto(`/#/traces?project=${projectB.id}`);
      await page.getByTestId('traces-no-match').filter({ hasText: 'was received in the last hour' }).waitFor();
      await screenshot(page, 'view-empty-window');
      await page.getByTestId('traces-all-time').click();
      await page.locator(`[data-testid="trace-row"][data-trace-id="${oldB}"]`).waitFor();
      expect(hashParams(page).get('range')).toBe('all');
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('one time zone, labelled, used by the list, the trace and its spans; UTC is kept across a reload', async () => {
    const { context, page } = await open({ timezoneId: 'Asia/Kolkata' });
    try {
      await page.goto('/#/traces');
      const row = page.locator(`[data-testid="trace-row"][data-trace-id="${recent}"]`);
      await row.waitFor();
      await expect(page.getByTestId('zone-switch').innerText()).resolves.toBe('Local (UTC+05:30)');
      await expect(page.getByTestId('trace-time-heading').innerText()).resolves.toContain('UTC+05:30');
      await expect(row.locator('[role="cell"]').first().innerText()).resolves.toBe(wallTime(recentAt, 'Asia/Kolkata'));

      await page.getByTestId('zone-switch').click();
      await page.getByTestId('zone-switch').filter({ hasText: /^UTC$/ }).waitFor();
      await expect(page.getByTestId('trace-time-heading').innerText()).resolves.toContain('(UTC)');
      await expect(row.locator('[role="cell"]').first().innerText()).resolves.toBe(wallTime(recentAt, 'UTC'));
      await screenshot(page, 'view-utc-list');

      await page.reload();
      await page.getByTestId('zone-switch').filter({ hasText: /^UTC$/ }).waitFor();
      await row.click();
      const summary = page.getByTestId('trace-summary');
      await summary.filter({ hasText: `${wallTime(recentAt, 'UTC', true)} UTC` }).waitFor();
      await page.locator(`[data-testid="span-row"][data-span-id="${recentChild}"]`).click();
      const start = page.getByTestId('span-start');
      // The span's own time in the same zone as the header, its ISO form on hover: no second zone on the page.
      await expect(start.innerText()).resolves.toContain(`${wallTime(recentAt + 2, 'UTC', true)} UTC`);
      await expect(start.getAttribute('title')).resolves.toBe(new Date(recentAt + 2).toISOString());
      await screenshot(page, 'view-utc-trace');
    } finally {
      await context.close();
    }
  });

  it('an absolute range, entered in the zone shown, selects exactly its window and lives in the URL', async () => {
    const { context, page } = await open({ timezoneId: 'Asia/Kolkata' });
    try {
      await page.goto('/#/traces');
      await rows(page).first().waitFor();
      await page.getByTestId('filter-range').selectOption('custom');
      const toField = (ms: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Kolkata', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' }).format(ms).replace(' ', 'T');
      await page.getByTestId('range-from').fill(toField(oldAt + MIN));
      await page.getByTestId('range-to').fill(toField(oldAt - MIN));
      await page.getByTestId('range-apply').click();
      await page.getByTestId('range-error').filter({ hasText: 'before the end' }).waitFor();

      const from = Math.floor((oldAt - MIN) / MIN) * MIN;
      const to = Math.floor((oldAt + 2 * MIN) / MIN) * MIN;
      await page.getByTestId('range-from').fill(toField(from));
      await page.getByTestId('range-to').fill(toField(to));
      await page.getByTestId('range-apply').click();
      await page.getByTestId('traces-count').filter({ hasText: '1 trace' }).waitFor();
      await expect(traceIds(page)).resolves.toEqual([old]);
      expect(hashParams(page).get('from')).toBe(new Date(from).toISOString());
      expect(hashParams(page).get('to')).toBe(new Date(to).toISOString());
      await screenshot(page, 'view-absolute-range');

      // The same URL opened afresh shows the same window.
      const link = page.url();
      const again = await context.newPage();
      await again.goto(link);
      await again.getByTestId('traces-count').filter({ hasText: '1 trace' }).waitFor();
      await expect(again.getByTestId('range-from').inputValue()).resolves.toBe(toField(from));
    } finally {
      await context.close();
    }
  });

  it('a drag across the latency chart or a metrics chart zooms the window to it', async () => {
    const { context, page } = await open();
    try {
      // Six hours: the old trace in the middle of the axis (the window's, from the server's buckets), the recent at its end.
      await page.goto('/#/traces?range=6h');
      await page.getByTestId('traces-count').filter({ hasText: '3 traces' }).waitFor();
      await page.locator('[data-testid="latency-volume"][data-total="3"]').waitFor();
      const svg = page.locator('[data-testid="latency-chart"] svg');
      const box = (await svg.boundingBox())!;
      // The old trace sits in the middle, the two recent ones at the right end: drag over the right tenth.
      await page.mouse.move(box.x + box.width * 0.88, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.95, box.y + box.height / 2, { steps: 5 });
      await page.getByTestId('zoom-band').waitFor();
      await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.getByTestId('traces-count').filter({ hasText: '2 traces' }).waitFor();
      await expect(traceIds(page)).resolves.toEqual([recent, other].sort());
      expect(hashParams(page).get('from')).toBeTruthy();
      await expect(page.getByTestId('filter-range').inputValue()).resolves.toBe('custom');
      // Back returns to the six hours.
      await page.goBack();
      await page.getByTestId('traces-count').filter({ hasText: '3 traces' }).waitFor();

      await page.goto('/#/metrics?range=6h');
      const chart = page.locator('[data-testid="metrics-chart"] svg.zoomable').first();
      await chart.waitFor();
      const c = (await chart.boundingBox())!;
      await page.mouse.move(c.x + c.width * 0.5, c.y + c.height / 2);
      await page.mouse.down();
      await page.mouse.move(c.x + c.width * 0.98, c.y + c.height / 2, { steps: 8 });
      await page.mouse.up();
      await page.waitForFunction(() => location.hash.includes('from='));
      const p = hashParams(page);
      const window = Date.parse(p.get('to')!) - Date.parse(p.get('from')!);
      expect(window).toBeGreaterThan(0);
      expect(window).toBeLessThan(6 * 60 * MIN);
      await page.getByTestId('metrics-app').first().waitFor();
      await screenshot(page, 'view-metrics-zoomed');
    } finally {
      await context.close();
    }
  });

  it('keeps several log levels at once, in the URL', async () => {
    const { context, page } = await open();
    try {
      await page.goto('/#/logs?range=all');
      await page.getByTestId('log-row').nth(2).waitFor();
      // The window's volume and facets come from the server's counts: 2 errors, 1 info, over every application.
      await page.locator('[data-testid="log-histogram"][data-total="3"]').waitFor();
      await expect(page.getByTestId('facet-level-error').innerText()).resolves.toBe('2');
      await expect(page.getByTestId('facet-level-info').innerText()).resolves.toBe('1');
      await expect(page.getByTestId('facet-level-fatal').innerText()).resolves.toBe('0');
      await page.getByTestId('filter-level-error').check();
      await page.locator('[data-testid="log-histogram"][data-total="2"]').waitFor();
      await page.waitForFunction(() => location.hash.includes('level=error'));
      // The list reads again: the info log goes.
      await page.getByTestId('log-row').nth(2).waitFor({ state: 'detached' });
      await expect(page.getByTestId('log-row').count()).resolves.toBe(2);
      await page.getByTestId('filter-level-info').check();
      await page.waitForFunction(() => location.hash.includes('level=info%2Cerror'));
      await page.getByTestId('log-row').nth(2).waitFor();
      await expect(page.getByTestId('log-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-level')))).resolves.toEqual(['info', 'error', 'error']);
      await screenshot(page, 'view-log-levels');
      await page.getByTestId('filter-level-error').uncheck();
      await page.waitForFunction(() => /level=info(&|$)/.test(location.hash));
      await page.getByTestId('log-row').nth(1).waitFor({ state: 'detached' });
      await expect(page.getByTestId('log-row').count()).resolves.toBe(1);
    } finally {
      await context.close();
    }
  });

  it('finds logs by an attribute: chips kept in the URL, "Find logs with" a field of an opened log, and a field\'s top values', async () => {
    const { context, page } = await open();
    const messages = () => page.getByTestId('log-row').evaluateAll((els) => els.map((e) => e.querySelector('.log-message')!.textContent));
    // The list empties while it reads again: wait for the count the filters leave before reading it.
    const rows = (n: number) => page.waitForFunction((k) => document.querySelectorAll('[data-testid="log-row"]').length === k, n);
    try {
      await page.goto('/#/logs?range=all');
      await page.getByTestId('log-row').nth(2).waitFor();
      await page.getByTestId('filter-attr').fill('chargeId=ch_42');
      await page.getByTestId('filter-attr').press('Enter');
      await page.getByTestId('log-row').nth(1).waitFor({ state: 'detached' });
      await rows(1);
      await expect(messages()).resolves.toEqual(['recent log of the first app']);
      expect(hashParams(page).getAll('attr')).toEqual(['chargeId=ch_42']);
      // A key alone: every log that has it.
      await page.getByTestId('attr-remove').click();
      await page.getByTestId('log-row').nth(2).waitFor();
      await page.getByTestId('filter-attr').fill('chargeId');
      await page.getByTestId('filter-attr').press('Enter');
      await page.getByTestId('log-row').nth(2).waitFor({ state: 'detached' });
      await rows(2);
      await expect(messages()).resolves.toEqual(['recent log of the second app', 'recent log of the first app']);
      await screenshot(page, 'view-log-attributes');
      // From an opened log: its field added as a term.
      await page.getByTestId('log-row').first().locator('.log-message').click();
      await page.locator('[data-testid="log-find-term"][data-term="chargeId=ch_7"]').click();
      await page.getByTestId('log-row').nth(1).waitFor({ state: 'detached' });
      await rows(1);
      await expect(messages()).resolves.toEqual(['recent log of the second app']);
      expect(hashParams(page).getAll('attr')).toEqual(['chargeId', 'chargeId=ch_7']);

      // Top values: a field counted over the logs that match, whose value narrows to its logs.
      await page.goto('/#/logs?range=all');
      await page.locator('[data-testid="log-facets"][data-sampled="3"][data-complete="true"]').waitFor();
      await page.getByTestId('facet-add').fill('chargeId');
      await page.getByTestId('facet-add').press('Enter');
      const charge = page.locator('[data-testid="facet"][data-key="chargeId"]');
      await charge.getByTestId('facet-value').nth(1).waitFor();
      await expect(charge.getByTestId('facet-value').evaluateAll((els) => els.map((e) => e.getAttribute('data-term')))).resolves.toEqual(['chargeId=ch_42', 'chargeId=ch_7']);
      expect(hashParams(page).getAll('facet')).toEqual(['chargeId']);
      await screenshot(page, 'view-log-facets');
      await charge.locator('[data-term="chargeId=ch_42"]').click();
      await page.getByTestId('log-row').nth(1).waitFor({ state: 'detached' });
      await rows(1);
      await expect(messages()).resolves.toEqual(['recent log of the first app']);
      expect(hashParams(page).getAll('facet')).toEqual(['chargeId']);
      await page.locator('[data-testid="log-facets"][data-sampled="1"]').waitFor();
    } finally {
      await context.close();
    }
  });

  it('opens the traces behind a spike: a click on a bucket of the error rate shows its failed traces', async () => {
    const { context, page } = await open();
    try {
      await page.goto('/#/metrics?range=1h');
      const errors = page.locator(`[data-testid="metrics-app"][data-application-id="${appA2.id}"] figure[data-series="errorRate"] rect[data-testid="chart-bucket"]`)
        .filter({ hasText: '100%' });
      await errors.first().click();
      await page.waitForFunction(() => location.hash.startsWith('#/traces?') && location.hash.includes('status=5xx'));
      await page.getByTestId('traces-count').filter({ hasText: '1 trace' }).waitFor();
      await expect(traceIds(page)).resolves.toEqual([other]);
      const p = hashParams(page);
      expect(p.get('applicationId')).toBe(String(appA2.id));
      expect(Date.parse(p.get('to')!) - Date.parse(p.get('from')!)).toBe(60_000);
    } finally {
      await context.close();
    }
  });

  it('reads the metrics of a window ending now again every 30 s, and not a fixed window', async () => {
    const { context, page } = await open();
    try {
      const reads: string[] = [];
      page.on('request', (r) => { if (new URL(r.url()).pathname === '/metrics') reads.push(r.url()); });
      await page.clock.install();
      await page.goto('/#/metrics?range=1h');
      await page.getByTestId('metrics-app').first().waitFor();
      // Every read of the page in (the operations follow the applications' metrics): a tick never fires beside one.
      await page.locator('[data-testid="metrics-page"][data-loading="false"]').waitFor();
      await expect(page.getByTestId('metrics-auto-refresh').inputValue()).resolves.toBe('30s');
      const before = reads.length;
      await page.clock.fastForward(31_000);
      for (let i = 0; i < 100 && reads.length < before + 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(reads.length).toBe(before + 1);
      // A fixed window: the choice is off and disabled, nothing is read again.
      await page.goto(`/#/metrics?from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date().toISOString()}`);
      await page.getByTestId('metrics-app').first().waitFor();
      await expect(page.getByTestId('metrics-auto-refresh').isDisabled()).resolves.toBe(true);
      await expect(page.getByTestId('metrics-auto-refresh').inputValue()).resolves.toBe('off');
      const fixed = reads.length;
      await page.clock.fastForward(61_000);
      await page.waitForTimeout(200);
      expect(reads.length).toBe(fixed);
    } finally {
      await context.close();
    }
  });

  it('the URL is the view: a link opens its project and application for a reader on another, and filters are history', async () => {
    const { context, page } = await open({ project: projectB.id });
    const problems = watchProblems(page);
    try {
      // A colleague's link to the second application's logs, opened while project B is selected.
      await page.goto(`/#/logs?project=${a.projectId}&applicationId=${appA2.id}`);
      await page.getByTestId('log-row').filter({ hasText: 'recent log of the second app' }).waitFor();
      await expect(page.getByTestId('log-row').count()).resolves.toBe(1);
      await expect(page.getByTestId('project-switcher').inputValue()).resolves.toBe(String(a.projectId));
      // The top bar follows once the project's applications are read.
      await page.getByTestId('app-switcher').filter({ has: page.locator(`option[value="${appA2.id}"]:checked`) }).waitFor();
      await page.waitForFunction((org) => location.hash.includes(`org=${org}`), a.organizationId);

      // The application filter on the page is a history entry.
      await page.getByTestId('filter-application').selectOption('');
      await page.getByTestId('log-row').nth(1).waitFor();
      await page.waitForFunction(() => location.hash.includes('applicationId=all'));
      await page.goBack();
      await page.waitForFunction((id) => location.hash.includes(`applicationId=${id}`), appA2.id);
      await page.getByTestId('app-switcher').filter({ has: page.locator(`option[value="${appA2.id}"]:checked`) }).waitFor();
      // The list reads again for the application the URL names: the other application's log goes.
      await page.getByTestId('log-row').nth(1).waitFor({ state: 'detached' });
      await expect(page.getByTestId('log-row').count()).resolves.toBe(1);

      // A page opened without a scope gets the workspace's written in.
      await page.goto('/#/traces');
      await page.waitForFunction(() => /project=\d+/.test(location.hash) && /org=\d+/.test(location.hash));
      expect(hashParams(page).get('project')).toBe(String(a.projectId));

      // A filter change pushes; a burst of typing is one entry.
      await page.getByTestId('filter-application').selectOption('');
      await rows(page).nth(1).waitFor();
      await page.getByTestId('filter-status').selectOption('5xx');
      await page.getByTestId('traces-count').filter({ hasText: '1 trace' }).waitFor();
      await page.getByTestId('filter-url').pressSequentially('/oth', { delay: 450 });
      await page.waitForFunction(() => location.hash.includes('url=%2Foth'));
      await page.goBack();
      await page.waitForFunction(() => !location.hash.includes('url=') && location.hash.includes('status=5xx'));
      await page.goBack();
      await page.waitForFunction(() => !location.hash.includes('status='));

      // Selecting a span keeps the project in the URL.
      await page.goto(`/#/traces/${recent}?project=${a.projectId}`);
      await page.locator(`[data-testid="span-row"][data-span-id="${recentChild}"]`).click();
      await page.waitForFunction((s) => location.hash.includes(`span=${s}`), recentChild);
      expect(hashParams(page).get('project')).toBe(String(a.projectId));

      // The top bar's project switch is a history entry too: Back returns to the project before.
      await page.goto('/#/logs');
      await page.waitForFunction((id) => location.hash.includes(`project=${id}`), a.projectId);
      await page.getByTestId('project-switcher').selectOption(String(projectB.id));
      await page.waitForFunction((id) => location.hash.includes(`project=${id}`), projectB.id);
      await page.getByTestId('logs-empty').waitFor();
      await page.goBack();
      await page.waitForFunction((id) => location.hash.includes(`project=${id}`), a.projectId);
      await page.getByTestId('project-switcher').filter({ has: page.locator(`option[value="${a.projectId}"]:checked`) }).waitFor();
      await screenshot(page, 'view-link-project');
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
