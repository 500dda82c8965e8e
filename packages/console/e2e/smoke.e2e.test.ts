import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { createAccount, waitForTrace } from './support/api.js';
import { launchBrowser, newContext, screenshot, watchProblems } from './support/browser.js';
import { startSdkApp } from './support/sdk-app.js';
import { startServer, type LanternServer } from './support/server.js';

/** The built console served by the built server, as `pnpm start` runs it, opened in Debian's Chromium. */
describe('console smoke: pnpm start serves the console', () => {
  let server: LanternServer;
  let browser: Browser;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('opens on the sign-in page, with no console error or failed request, and saves a screenshot', async () => {
    const context = await newContext(browser, { baseURL: server.url });
    try {
      const page = await context.newPage();
      const problems = watchProblems(page);
      const assets: string[] = [];
      page.on('response', (res) => {
        if (new URL(res.url()).pathname.startsWith('/assets/')) assets.push(`${res.status()} ${new URL(res.url()).pathname}`);
      });
      const response = await page.goto('/', { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.waitForSelector('#root > *', { state: 'attached', timeout: 10_000 });
      expect(await page.title()).toBe('Lantern');
      expect((await page.locator('#root').innerText()).trim()).not.toBe('');
      // The bundle (a script and a stylesheet at least), each loaded from /assets/.
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const a of assets) expect(a).toMatch(/^200 /);
      await screenshot(page, 'smoke-signin');
      expect(problems.list()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('an app instrumented with the SDK sends its traces and logs to the server (the data the journey test reads)', async () => {
    const account = await createAccount(server.url, 'smoke');
    const app = await startSdkApp({ apiKey: account.apiKey, ingestUrl: server.url });
    const ok = await app.get('/checkout');
    const failed = await app.get('/fail');
    const stats = await app.stop();
    expect([ok.status, failed.status]).toEqual([200, 500]);
    expect(stats.traces).toMatchObject({ sent: 6, dropped: 0 });
    expect(stats.logs).toMatchObject({ sent: 2, dropped: 0 });
    expect(await waitForTrace(server.url, account, ok.traceId, 4)).toBe(4);
    expect(await waitForTrace(server.url, account, failed.traceId, 2)).toBe(2);
    const logs = await fetch(`${server.url}/ingest/logs?projectId=${account.projectId}&traceId=${failed.traceId}`, { headers: { authorization: `Bearer ${account.token}` } });
    expect((await logs.json()) as unknown[]).toEqual([expect.objectContaining({ level: 'error', message: 'payment declined', traceId: failed.traceId })]);
  });
});
