import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createAccount, waitForTrace, type Account } from './support/api.js';
import { launchBrowser, screenshot, signedInPage, watchProblems } from './support/browser.js';
import { startServer, type LanternServer } from './support/server.js';

/** A UUID as POST /v1/traces makes one of an OTLP id: 32 hex digits, or a span's 16 followed by 16 zeros. */
const uuidOf = (hex: string) => {
  const h = hex.padEnd(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};
const otelSpanId = () => uuidOf(randomBytes(8).toString('hex'));

async function ingest(server: LanternServer, account: Account, spans: object[]): Promise<void> {
  const res = await fetch(`${server.url}/ingest/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': account.apiKey },
    body: JSON.stringify({ timestamp: new Date().toISOString(), traces: spans }),
  });
  expect(res.status).toBe(200);
}

/**
 * A trace as an OpenTelemetry-instrumented service sends it, stored in the shape POST /v1/traces stores (the mapping
 * table of docs/opentelemetry.md): a SERVER span that failed with an exception, an INTERNAL span under it, and a
 * CLIENT span of another service. Sent through POST /ingest/traces, which keeps every extra field, so this journey
 * does not depend on the OTLP endpoint: it checks what the console makes of the stored shape.
 */
function otelTrace(traceId: string, t0: number) {
  const resource = (service: string) => [
    { key: 'service.name', value: service },
    { key: 'telemetry.sdk.language', value: 'python' },
    { key: 'process.command_args', value: ['flask', 'run'] },
  ];
  const root = otelSpanId();
  const at = (ms: number) => new Date(t0 + ms).toISOString();
  return [
    {
      traceId, spanId: root, parentSpanId: null, timestamp: at(0), durationMs: 120,
      requestMethod: 'controller:POST', requestURL: '/checkout?cart=7', responseStatus: 500,
      name: 'POST /checkout', kind: 'server', serviceName: 'checkout-py',
      attributes: [
        { key: 'http.request.method', value: 'POST' },
        { key: 'http.response.status_code', value: 500 },
        { key: 'url.path', value: '/checkout' },
        { key: 'app.cart', value: [{ key: 'items', value: 3 }, { key: 'coupon', value: null }] },
      ],
      resource: resource('checkout-py'),
      scope: { name: 'opentelemetry.instrumentation.flask', version: '0.48b0' },
      status: { code: 'error', message: 'payment refused: card declined' },
      events: [{
        name: 'exception', timestamp: at(95), attributes: [
          { key: 'exception.type', value: 'CardDeclined' },
          { key: 'exception.message', value: 'card declined by issuer' },
          { key: 'exception.stacktrace', value: 'Traceback (most recent call last):\n  File "/srv/app.py", line 42, in checkout\nCardDeclined: card declined by issuer' },
        ],
      }],
      links: [{ traceId, spanId: root }],
    },
    {
      traceId, spanId: otelSpanId(), parentSpanId: root, timestamp: at(10), durationMs: 30,
      requestMethod: 'service:load cart', name: 'load cart', kind: 'internal', serviceName: 'checkout-py',
      resource: resource('checkout-py'), scope: { name: 'checkout' },
    },
    {
      traceId, spanId: otelSpanId(), parentSpanId: root, timestamp: at(50), durationMs: 60,
      requestMethod: 'external:payments.internal', requestURL: 'https://payments.internal/charge', responseStatus: 402,
      name: 'POST', kind: 'client', serviceName: 'payments-gateway',
      attributes: [{ key: 'server.address', value: 'payments.internal' }],
      resource: resource('payments-gateway'),
    },
  ];
}

describe('console with OpenTelemetry data', () => {
  let server: LanternServer;
  let browser: Browser;
  let account: Account;
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launchBrowser()]);
    account = await createAccount(server.url, 'otel');
    ({ context, page } = await signedInPage(browser, server.url, account));
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.stop();
  });

  it('the list shows service.name, and the span details show status, attributes, resource, scope, an exception event and a link', async () => {
    const traceId = uuidOf(randomBytes(16).toString('hex'));
    const lanternTrace = randomUUID();
    const t0 = Date.now() - 60_000;
    await ingest(server, account, otelTrace(traceId, t0));
    // A Lantern SDK trace beside it: no serviceName, so the list names its application, as it always did.
    await ingest(server, account, [{ traceId: lanternTrace, spanId: randomUUID(), parentSpanId: null, timestamp: new Date(t0 + 1_000).toISOString(), requestMethod: 'controller:GET', requestURL: '/health', responseStatus: 200, durationMs: 2 }]);
    await waitForTrace(server.url, account, traceId, 3);
    await waitForTrace(server.url, account, lanternTrace, 1);
    const problems = watchProblems(page);

    await page.goto('/#/traces');
    const otelRow = page.locator(`[data-testid="trace-row"][data-trace-id="${traceId}"]`);
    await otelRow.waitFor();
    await expect(otelRow.getByTestId('trace-service').innerText()).resolves.toBe('checkout-py');
    const lanternRow = page.locator(`[data-testid="trace-row"][data-trace-id="${lanternTrace}"]`);
    await expect(lanternRow.getByTestId('trace-service').innerText()).resolves.toBe('otel app');
    await screenshot(page, 'otel-traces');

    await otelRow.click();
    await page.locator('[data-testid="waterfall"][data-span-count="3"]').waitFor();
    await expect(page.getByTestId('trace-services').innerText()).resolves.toBe('services checkout-py, payments-gateway');
    const rows = page.getByTestId('span-row');
    // Labelled by the span's name; two services in the trace, so each row names its own.
    await expect(rows.locator('.wf-label').allInnerTexts()).resolves.toEqual(['POST /checkout', 'load cart', 'POST']);
    await expect(rows.nth(2).locator('.wf-app').innerText()).resolves.toBe('payments-gateway');
    // ERROR status: the row is drawn as an error.
    await expect(rows.nth(0).getAttribute('class')).resolves.toContain('is-error');

    await rows.nth(0).click();
    const details = page.getByTestId('span-details');
    await details.waitFor();
    await expect(details.locator('h2').innerText()).resolves.toContain('POST /checkout');
    await expect(details.getByTestId('span-status-error').innerText()).resolves.toBe('Error: payment refused: card declined');
    await expect(details.getByTestId('span-service').innerText()).resolves.toBe('checkout-py');
    await expect(details.getByTestId('span-kind').innerText()).resolves.toBe('server');
    await expect(details.getByTestId('span-status').innerText()).resolves.toBe('error');
    await expect(details.getByTestId('span-scope').innerText()).resolves.toBe('opentelemetry.instrumentation.flask@0.48b0');

    // Attributes: a key/value table; a nested list of pairs is a nested table.
    const attributes = details.getByTestId('span-attributes');
    await expect(attributes.locator('[data-testid="span-attribute"][data-key="http.request.method"] td > pre').innerText()).resolves.toBe('POST');
    await expect(attributes.locator('[data-testid="span-attribute"][data-key="http.response.status_code"] td > pre').innerText()).resolves.toBe('500');
    const cart = attributes.locator('[data-testid="span-attribute"][data-key="app.cart"]');
    await expect(cart.locator('tr[data-key="items"] td').innerText()).resolves.toBe('3');
    await expect(cart.locator('tr[data-key="coupon"] td').innerText()).resolves.toBe('null');

    const resource = details.getByTestId('span-resource');
    await expect(resource.locator('[data-key="service.name"] td > pre').innerText()).resolves.toBe('checkout-py');
    await expect(resource.locator('[data-key="process.command_args"] td > pre').innerText()).resolves.toBe('["flask","run"]');
    // Each attribute links to the traces that have it: by value, or by key for a list.
    const findOf = async (row: ReturnType<typeof resource.locator>) => new URLSearchParams((await row.getByTestId('find-traces').getAttribute('href'))!.split('?')[1]).getAll('attr');
    await expect(findOf(attributes.locator('[data-testid="span-attribute"][data-key="http.response.status_code"]'))).resolves.toEqual(['http.response.status_code=500']);
    await expect(findOf(resource.locator('[data-key="service.name"]'))).resolves.toEqual(['service.name=checkout-py']);
    await expect(findOf(resource.locator('[data-key="process.command_args"]'))).resolves.toEqual(['process.command_args']);

    // The exception event: its time from the span's start, its type and message, its stack trace readable.
    const event = details.locator('[data-testid="span-event"][data-name="exception"]');
    await expect(event.locator('.event-time').innerText()).resolves.toBe('+95 ms');
    const exception = event.getByTestId('span-exception');
    await expect(exception.locator('p').innerText()).resolves.toBe('CardDeclined: card declined by issuer');
    await expect(exception.locator('pre').innerText()).resolves.toContain('File "/srv/app.py", line 42, in checkout');

    await expect(details.getByTestId('span-link').innerText()).resolves.toContain(traceId);
    // Shown in their own places, so not repeated among the other fields; Lantern's own fields still are.
    const fields = await details.getByTestId('span-field').evaluateAll((els) => els.map((el) => el.getAttribute('data-field')));
    expect(fields).toEqual(expect.arrayContaining(['requestMethod', 'requestURL', 'responseStatus', 'traceId']));
    for (const shown of ['attributes', 'resource', 'events', 'status', 'serviceName', 'kind', 'scope', 'links', 'name']) expect(fields).not.toContain(shown);
    await screenshot(page, 'otel-span-details');

    // A Lantern SDK span's details are as they always were: every field among "All fields", no OpenTelemetry part.
    await page.goto(`/#/traces/${lanternTrace}?project=${account.projectId}`);
    await page.getByTestId('span-row').first().click();
    await page.getByTestId('span-details').waitFor();
    await expect(page.getByTestId('span-details').locator('h3').allInnerTexts()).resolves.toEqual(['All fields']);
    await expect(page.getByTestId('trace-services').count()).resolves.toBe(0);
    await expect(page.locator('[data-testid="span-details"] [data-testid^="span-attributes"], [data-testid="span-service"], [data-testid="span-status"]').count()).resolves.toBe(0);
    expect(problems.list()).toEqual([]);
  });
});
