// The baseline: Express 5, GET /hello answering a small JSON, no instrumentation.
import express from 'express';
import { hello, serve } from './serve.mjs';

const app = express();
app.get('/hello', (req, res) => {
  res.json(hello());
});
serve(app);
