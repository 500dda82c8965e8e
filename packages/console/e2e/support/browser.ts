import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './server.js';

/** Debian's Chromium (the `chromium` package, which .ci/run installs with apt); never a downloaded browser. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
/** Where screenshots go: artifacts/console/ at the repository's root (gitignored). */
export const ARTIFACTS = join(ROOT, 'artifacts/console');

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium; playwright-core gives it a fresh temporary profile (--user-data-dir) and removes it on close. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

export interface ContextOptions {
  /** The server's base URL, where `token` and `selection` are put in localStorage before the first page loads. */
  baseURL: string;
  /** A JWT for `lantern.token`: the console opens signed in. */
  token?: string;
  /** `lantern.selection`: the organization and project the console opens on. */
  selection?: { organizationId: number; projectId: number; applicationId?: number };
  /** The browser's time zone (IANA), e.g. 'Asia/Kolkata': the console's "local" zone. The machine's when absent. */
  timezoneId?: string;
}

/** A fresh context (its own storage, 1280x800), optionally signed in. */
export async function newContext(browser: Browser, { baseURL, token, selection, timezoneId }: ContextOptions): Promise<BrowserContext> {
  const localStorage = [
    ...(token ? [{ name: 'lantern.token', value: token }] : []),
    ...(selection ? [{ name: 'lantern.selection', value: JSON.stringify(selection) }] : []),
  ];
  return browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 800 },
    ...(timezoneId ? { timezoneId } : {}),
    storageState: { cookies: [], origins: localStorage.length ? [{ origin: new URL(baseURL).origin, localStorage }] : [] },
  });
}

/**
 * A context signed in as `account`, looking at its organization and project (or `projectId` of its organization),
 * and a page of it.
 */
export async function signedInPage(browser: Browser, baseURL: string, account: { token: string; organizationId: number; projectId: number },
  options: { projectId?: number; timezoneId?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, {
    baseURL, token: account.token, timezoneId: options.timezoneId,
    selection: { organizationId: account.organizationId, projectId: options.projectId ?? account.projectId },
  });
  return { context, page: await context.newPage() };
}

/** What went wrong in a page: console errors (CSP violations among them), uncaught errors, failed requests. */
export interface Problems {
  /** Everything recorded so far, one line each; a test asserts `toEqual([])`. */
  list(): string[];
  /** Forgets what was recorded (after a step that fails on purpose). */
  clear(): void;
}

export function watchProblems(page: Page): Problems {
  let lines: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') lines.push(`console error: ${msg.text()} (${msg.location().url})`);
  });
  page.on('pageerror', (err) => lines.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (req) => {
    const reason = req.failure()?.errorText ?? 'failed';
    // A navigation away cancels what the page still loaded: not a fault of the console.
    if (reason !== 'net::ERR_ABORTED') lines.push(`request failed: ${req.method()} ${req.url()}: ${reason}`);
  });
  return {
    list: () => [...lines],
    clear: () => {
      lines = [];
    },
  };
}

/** Saves a full-page screenshot as artifacts/console/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
