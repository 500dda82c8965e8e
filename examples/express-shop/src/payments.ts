import { createLantern } from '@lantern/sdk-node';
import express from 'express';
import { jitter, serve, sleep } from './serve.js';

/**
 * The payments service: a second instrumented app. The shop calls POST /charge through `lantern.call()`, which
 * sends `traceparent`/`tracestate`; the middleware continues that trace, so this request's root span has the
 * shop's `external:payments` span as its parent.
 */

const lantern = createLantern({
  apiKey: process.env.LANTERN_API_KEY,
  ingestUrl: process.env.LANTERN_INGEST_URL,
  flushIntervalMs: 2000, // the default is 30 s; short here so the demo shows data at once
});

const app = express();
app.use(lantern.middleware());
app.use(express.json());

interface ChargeBody {
  orderId?: string;
  amountCents?: number;
  card?: string;
}

app.post('/charge', async (req, res) => {
  const { orderId, amountCents = 0, card = '' } = (req.body ?? {}) as ChargeBody;
  const risky = await lantern.service('fraud-check', async () => {
    await sleep(jitter(5, 25));
    return amountCents > 30_000;
  });
  if (risky || card.endsWith('0002')) {
    lantern.log.warn('charge declined', { orderId, amountCents, reason: risky ? 'fraud check' : 'card declined' });
    res.status(402).json({ status: 'declined' });
    return;
  }
  const chargeId = await lantern.service('card-network', async () => {
    await sleep(jitter(20, 80));
    return `ch_${Math.random().toString(36).slice(2, 10)}`;
  });
  lantern.log.info('charge captured', { orderId, amountCents, chargeId });
  res.json({ status: 'captured', chargeId });
});

app.use(lantern.errorHandler());

serve('payments', app, lantern);
