// Diagnostic (`--variants bare,als,...`): the bare route plus what any tracer that follows a request through
// async calls needs at the least, an AsyncLocalStorage.run() per request with two random ids. No spans.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { hello, serve } from './serve.mjs';

const als = new AsyncLocalStorage();
const app = express();
app.use((req, res, next) => als.run({ traceId: randomUUID(), spanId: randomUUID() }, next));
app.get('/hello', (req, res) => {
  res.json(hello());
});
serve(app);
