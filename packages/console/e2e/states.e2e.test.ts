import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, newContext, screenshot, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/**
 * What the console shows when there is nothing to show or something fails: empty states that say what to do next,
 * and the message of the API's error body (or of the failure on the way), never a blank page.
 */
describe('console empty and error states', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'states');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function signedIn(target: LanternServer, who: Account): Promise<{ context: BrowserContext; page: Page }> {
    const context = await newContext(browser, {
      baseURL: target.url,
      token: who.token,
      selection: { organizationId: who.organizationId, projectId: who.projectId },
    });
    return { context, page: await context.newPage() };
  }

  it('a project without data: traces, logs and metrics say how to send data, with the SDK snippet and the curl command', async () => {
    const { context, page } = await signedIn(server, account);
    const problems = watchProblems(page);
    try {
      await page.goto('/#/traces');
      const empty = page.getByTestId('traces-empty');
      await empty.waitFor();
      await expect(empty.getByTestId('sdk-snippet').innerText()).resolves.toContain('createLantern');
      await expect(empty.getByTestId('curl-snippet').innerText()).resolves.toContain('/ingest/traces');
      await expect(empty.getByTestId('otel-snippet').innerText()).resolves.toContain(`OTEL_EXPORTER_OTLP_ENDPOINT='${server.url}'`);
      await expect(empty.locator('a[href^="#/applications?"]').count()).resolves.toBeGreaterThan(0);
      await screenshot(page, 'empty-traces');

      await page.goto('/#/logs');
      await page.getByTestId('logs-empty').waitFor();
      await page.goto('/#/metrics');
      await page.getByTestId('metrics-empty').waitFor();
      await screenshot(page, 'empty-metrics');
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a refused sign-in shows the message of the API error body', async () => {
    const answer = await fetch(`${server.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: account.email, password: 'not the password' }),
    });
    const { error } = (await answer.json()) as { error: { message: string } };
    expect(answer.status).toBe(401);

    const context = await newContext(browser, { baseURL: server.url });
    try {
      const page = await context.newPage();
      await page.goto('/');
      await page.getByTestId('signin-email').fill(account.email);
      await page.getByTestId('signin-password').fill('not the password');
      await page.getByTestId('signin-submit').click();
      await page.getByTestId('auth-error').filter({ hasText: error.message }).waitFor();
      await screenshot(page, 'error-signin');
    } finally {
      await context.close();
    }
  });

  it('a trace that does not exist is a clear "not found", not an empty page', async () => {
    const { context, page } = await signedIn(server, account);
    try {
      await page.goto('/#/traces/6f1c2b0e-6d1a-4a55-8f4e-2b8d2f6b1c11');
      await page.getByTestId('trace-not-found').filter({ hasText: /not found/i }).waitFor();
    } finally {
      await context.close();
    }
  });

  it('a trace link names its project: it opens there from another project, and says so for a project not visible', async () => {
    const traceId = '0b2f6c1e-5d3a-4c8e-9f1a-7e6d5c4b3a21';
    const now = new Date().toISOString();
    const sent = await fetch(`${server.url}/ingest/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
      body: JSON.stringify({ timestamp: now, traces: [{ traceId, spanId: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f', parentSpanId: null, timestamp: now, requestMethod: 'controller:GET', requestURL: '/linked', responseStatus: 200, durationMs: 3 }] }),
    });
    expect(sent.status).toBe(200);
    await waitForTrace(server.url, account, traceId, 1);
    // The browser looks at another organization's project of the same user.
    const other = await fetch(`${server.url}/organizations`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` }, body: JSON.stringify({ name: 'elsewhere' }) });
    const otherOrg = (await other.json()) as { id: number };
    const otherProject = (await (await fetch(`${server.url}/projects`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${account.token}` }, body: JSON.stringify({ name: 'elsewhere', organizationId: otherOrg.id }) })).json()) as { id: number };
    const context = await newContext(browser, { baseURL: server.url, token: account.token, selection: { organizationId: otherOrg.id, projectId: otherProject.id } });
    try {
      const page = await context.newPage();
      await page.goto(`/#/traces/${traceId}?project=${account.projectId}`);
      await page.locator('[data-testid="waterfall"][data-span-count="1"]').waitFor();
      await expect(page.getByTestId('project-switcher').inputValue()).resolves.toBe(String(account.projectId));

      await page.goto(`/#/traces/${traceId}?project=999999`);
      await page.getByRole('alert').filter({ hasText: 'project 999999' }).waitFor();

      // Choosing another organization in the top bar then shows its traces, and the link's project goes.
      await page.getByTestId('org-switcher').selectOption(String(otherOrg.id));
      await page.waitForFunction(({ org, project }) => location.hash.startsWith('#/traces?') && location.hash.includes(`org=${org}`)
        && location.hash.includes(`project=${project}`), { org: otherOrg.id, project: otherProject.id });
      await expect(page.getByRole('alert').filter({ hasText: 'project 999999' }).count()).resolves.toBe(0);

      // The first link opened again switches again (it is a new request, not the one already followed).
      await page.goto(`/#/traces/${traceId}?project=${account.projectId}`);
      await page.locator('[data-testid="waterfall"][data-span-count="1"]').waitFor();
    } finally {
      await context.close();
    }
  });

  it('a link opened while signed out opens once signed in', async () => {
    const context = await newContext(browser, { baseURL: server.url });
    try {
      const page = await context.newPage();
      await page.goto('/#/logs?level=error');
      await page.getByTestId('signin-email').fill(account.email);
      await page.getByTestId('signin-password').fill(account.password);
      await page.getByTestId('signin-submit').click();
      await page.getByTestId('logs-empty').waitFor();
      // The link's filters kept; the scope of the view written in.
      const hash = new URL(page.url()).hash;
      expect(hash.startsWith('#/logs?')).toBe(true);
      const params = new URLSearchParams(hash.slice('#/logs?'.length));
      expect(Object.fromEntries(params)).toEqual({ level: 'error', org: String(account.organizationId), project: String(account.projectId), applicationId: 'all' });
    } finally {
      await context.close();
    }
  });

  it('when the server goes away, the page stays and says Lantern cannot be reached, with a way to try again', async () => {
    const doomed = await startServer();
    try {
      const who = await createAccount(doomed.url, 'doomed');
      const { context, page } = await signedIn(doomed, who);
      try {
        await page.goto('/#/traces');
        await page.getByTestId('traces-empty').waitFor();
        await doomed.stop();
        await page.getByTestId('traces-refresh').click();
        await page.getByRole('alert').filter({ hasText: 'cannot be reached' }).waitFor();
        await expect(page.getByRole('alert').first().getByRole('button', { name: 'Try again' }).isVisible()).resolves.toBe(true);
        await expect(page.getByTestId('traces-page').isVisible()).resolves.toBe(true);
        await screenshot(page, 'error-server-gone');
      } finally {
        await context.close();
      }
    } finally {
      await doomed.stop();
    }
  });
});
