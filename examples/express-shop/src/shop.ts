import { randomUUID } from 'node:crypto';
import { createLantern } from '@lantern/sdk-node';
import { LanternTransport } from '@lantern/sdk-node/winston';
import express, { type NextFunction, type Request, type Response } from 'express';
import winston from 'winston';
import { cartById, PRODUCTS, totalCents } from './catalog.js';
import { jitter, serve, sleep } from './serve.js';

/**
 * The storefront. Every request is a trace (`lantern.middleware()`); `lantern.service()` adds a span for a piece
 * of work, `lantern.call()` one for a call to another service and hands over the headers that continue the trace
 * there. Logs go to Lantern two ways: `lantern.log` and winston with the Lantern transport; both carry the trace.
 */

const lantern = createLantern({
  apiKey: process.env.LANTERN_API_KEY,
  ingestUrl: process.env.LANTERN_INGEST_URL,
  flushIntervalMs: 2000, // the default is 30 s; short here so the demo shows data at once
});
const paymentsUrl = process.env.PAYMENTS_URL ?? 'http://127.0.0.1:3001';

const logger = winston.createLogger({
  level: 'info',
  format: winston.format.json(),
  defaultMeta: { service: 'shop' },
  transports: [new winston.transports.Console(), new LanternTransport({ lantern })],
});

const app = express();
app.use(lantern.middleware());
app.use(express.json());

app.get('/products', async (_req, res) => {
  const products = await lantern.service('catalog.list', async () => {
    await sleep(jitter(5, 30));
    return PRODUCTS;
  });
  res.json(products);
});

app.get('/cart/:id', async (req, res) => {
  const cart = await lantern.service('cart.load', async () => {
    await sleep(jitter(5, 20));
    return cartById(Number(req.params.id));
  });
  if (!cart) {
    res.status(404).json({ error: 'no such cart' });
    return;
  }
  logger.info('cart viewed', { cartId: req.params.id, lines: cart.length });
  res.json({ id: Number(req.params.id), lines: cart, totalCents: totalCents(cart) });
});

app.post('/checkout', async (req, res) => {
  const { cartId, card } = (req.body ?? {}) as { cartId?: number; card?: string };
  const cart = cartById(Number(cartId));
  if (!cart) {
    res.status(400).json({ error: 'cartId must name an existing cart (1-20)' });
    return;
  }
  const orderId = randomUUID();
  await lantern.service('stock.reserve', async () => {
    await sleep(jitter(10, 40));
  });
  // The span `external:payments`; `headers` (traceparent, tracestate) make the payments request its child.
  const payment = await lantern.call(
    'payments',
    (headers) =>
      fetch(`${paymentsUrl}/charge`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId, amountCents: totalCents(cart), card }),
      }),
    { url: `${paymentsUrl}/charge` },
  );
  const result = (await payment.json()) as { status: string; chargeId?: string };
  if (!payment.ok) {
    lantern.log.warn('payment declined', { orderId, cartId, status: payment.status });
    res.status(402).json({ orderId, status: result.status });
    return;
  }
  lantern.log.info('order placed', { orderId, cartId, amountCents: totalCents(cart), chargeId: result.chargeId });
  res.status(201).json({ orderId, status: 'placed' });
});

// The route that fails now and then: the recommender times out on about one call in four.
app.get('/recommendations', async (_req, res) => {
  const picks = await lantern.service('recommender', async () => {
    await sleep(jitter(20, 120));
    if (Math.random() < 0.25) throw new Error('recommendation engine timed out');
    return PRODUCTS.slice(0, 2);
  });
  res.json(picks);
});

app.use(lantern.errorHandler()); // puts the error's message on the request's root span
app.use((error: Error, req: Request, res: Response, _next: NextFunction) => {
  logger.error('request failed', { path: req.path, error: error.message });
  res.status(500).json({ error: 'internal error' });
});

serve('shop', app, lantern);
