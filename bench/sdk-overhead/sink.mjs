// The telemetry sink of bench/sdk-overhead, in its own process (pinned beside autocannon by run.mjs):
//   POST /ingest/traces, /ingest/logs  (Lantern)  -> 200 {"accepted":n,"rejected":[]}
//   POST /v1/traces                    (OTLP/HTTP) -> 200 {}
// It counts requests, bytes, spans and root spans (one per served request in both variants) by scanning the
// JSON text rather than parsing it, to stay cheap on the load generator's core. run.mjs talks to it over IPC:
// `reset` before each server starts, `counts` after the server has flushed and exited.
import http from 'node:http';
import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import { answerAsSink } from './ipc.mjs';

const gunzip = promisify(gunzipCb);
const fresh = () => ({ requests: 0, bytes: 0, spans: 0, roots: 0, logs: 0, other: 0 });
let counts = fresh();

function occurrences(text, needle) {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let body = Buffer.concat(chunks);
    counts.requests++;
    counts.bytes += body.length;
    try {
      if (req.headers['content-encoding'] === 'gzip') body = await gunzip(body);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const text = body.toString('utf8');
    let answer = '{}';
    if (req.method === 'POST' && req.url === '/ingest/traces') {
      // Lantern span records: {"spanId":"…","parentSpanId":null|"…",…}
      const n = occurrences(text, '"spanId":');
      counts.spans += n;
      counts.roots += occurrences(text, '"parentSpanId":null');
      answer = JSON.stringify({ accepted: n, rejected: [] });
    } else if (req.method === 'POST' && req.url === '/ingest/logs') {
      const n = JSON.parse(text).logs?.length ?? 0;
      counts.logs += n;
      answer = JSON.stringify({ accepted: n, rejected: [] });
    } else if (req.method === 'POST' && req.url === '/v1/traces') {
      // OTLP JSON spans carry "spanId"; a root span has no "parentSpanId" (the field is left out).
      const n = occurrences(text, '"spanId":');
      counts.spans += n;
      counts.roots += n - occurrences(text, '"parentSpanId":"');
    } else {
      counts.other++;
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
});

server.keepAliveTimeout = 30_000;
answerAsSink(server, { counts: () => counts, reset: () => { counts = fresh(); } });
