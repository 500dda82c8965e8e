import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLantern, type Lantern, type LanternStats } from '@lantern/sdk-node';

/**
 * A small shop instrumented with the real SDK (`@lantern/sdk-node`, `wrap()` around a node:http handler), sending to
 * the Lantern under test. Every response carries the request's trace id in `x-trace-id`.
 *
 * - GET /checkout: 200; child spans service:loadCart, external:payments, service:saveOrder; logs "order placed".
 * - GET /fail: 500; service:chargeCard fails with "card declined"; logs an error "payment declined" first.
 * - anything else: 404, the root span only.
 */
export interface SdkApp {
  url: string;
  lantern: Lantern;
  /** GETs a path of the app; resolves with the status and the trace id the app answered with. */
  get(path: string): Promise<{ status: number; traceId: string }>;
  /** Closes the app, then the SDK (which sends what it still holds) and returns the SDK's counts. */
  stop(): Promise<LanternStats>;
}

export interface SdkAppOptions {
  apiKey: string;
  /** The Lantern server's base URL. */
  ingestUrl: string;
  flushIntervalMs?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startSdkApp({ apiKey, ingestUrl, flushIntervalMs = 200 }: SdkAppOptions): Promise<SdkApp> {
  const lantern = createLantern({ apiKey, ingestUrl, flushIntervalMs, flushOnExit: false });
  const server = http.createServer(
    lantern.wrap(async (req, res) => {
      res.setHeader('x-trace-id', lantern.currentTrace()?.traceId ?? '');
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/checkout') {
        const cart = await lantern.service('loadCart', async () => {
          await pause(5);
          return { items: 3, total: 4200 };
        });
        await lantern.call('payments', async () => {
          await pause(10);
          return { status: 201 };
        }, { url: 'http://payments.internal/charge' });
        await lantern.service('saveOrder', () => pause(3));
        lantern.log.info('order placed', { items: cart.items, total: cart.total });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true }));
      } else if (path === '/fail') {
        lantern.log.error('payment declined', { orderId: 'order-42' });
        await lantern.service('chargeCard', async () => {
          await pause(2);
          throw new Error('card declined');
        });
      } else {
        res.statusCode = 404;
        res.end('not found');
      }
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    lantern,
    async get(path) {
      const res = await fetch(`${url}${path}`);
      await res.arrayBuffer();
      return { status: res.status, traceId: res.headers.get('x-trace-id') ?? '' };
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return lantern.close({ timeoutMs: 10_000 });
    },
  };
}
