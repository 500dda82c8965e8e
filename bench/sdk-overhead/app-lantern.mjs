// The same route with @lantern/sdk-node: the middleware (a root span per request) and, unless --auto-only,
// one service() child span around the route's work. Spans go to the sink of run.mjs; every option but
// apiKey and ingestUrl is the default (maxBatchSize 500, flushIntervalMs 30000, gzip above 1 KiB).
import express from 'express';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { childSpan, hello, serve } from './serve.mjs';

// The workspace's build, or another one (the `baseline` variant of run.mjs and callgrind.mjs: LANTERN_SDK_DIST).
const dist = process.env.LANTERN_SDK_DIST;
const { createLantern } = await import(dist ? pathToFileURL(join(dist, 'index.js')).href : '@lantern/sdk-node');

const lantern = createLantern({ apiKey: 'bench-key', ingestUrl: process.env.SINK_URL });
const app = express();
app.use(lantern.middleware());
app.get('/hello', (req, res) => {
  res.json(childSpan ? lantern.service('greeting', () => hello()) : hello());
});
serve(app, { flush: async () => (await lantern.close()).traces });
