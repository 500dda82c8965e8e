// The same route with @lantern/sdk-node: the middleware (a root span per request) and, unless --auto-only,
// one service() child span around the route's work. Spans go to the sink of run.mjs; every option but
// apiKey and ingestUrl is the default (maxBatchSize 500, flushIntervalMs 30000, gzip above 1 KiB).
import express from 'express';
import { createLantern } from '@lantern/sdk-node';
import { childSpan, hello, serve } from './serve.mjs';

const lantern = createLantern({ apiKey: 'bench-key', ingestUrl: process.env.SINK_URL });
const app = express();
app.use(lantern.middleware());
app.get('/hello', (req, res) => {
  res.json(childSpan ? lantern.service('greeting', () => hello()) : hello());
});
serve(app, { flush: async () => (await lantern.close()).traces });
