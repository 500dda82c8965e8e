// The telemetry sink of bench/sdk-python, in its own process (pinned by run.mjs beside the load generator, off the
// server's core; a process of its own so that its work never stalls the load generator's event loop):
//   POST /ingest/traces, /ingest/logs  (Lantern: JSON, gzip above 1 KiB) -> 200 {"accepted":n,"rejected":[]}
//   POST /v1/traces                    (OTLP/HTTP protobuf)               -> 200, an empty ExportTraceServiceResponse
// It counts requests, bytes, spans and root spans. Lantern's JSON is scanned as text ("spanId": per span,
// "parentSpanId":null per root); OTLP protobuf is walked field by field (ResourceSpans > ScopeSpans > Span, a
// root being a span without parent_span_id), without decoding anything else. run.mjs talks to it over IPC:
// `reset` before each server starts, `counts` at the edges of the measured load and after the server has exited.
import http from 'node:http';
import { promisify } from 'node:util';
import { gunzip as gunzipCb, inflate as inflateCb } from 'node:zlib';
import { answerAsSink } from '../sdk-overhead/ipc.mjs';

const gunzip = promisify(gunzipCb);
const inflate = promisify(inflateCb);
const fresh = () => ({ requests: 0, bytes: 0, spans: 0, roots: 0, logs: 0, other: 0, bad: 0 });
let counts = fresh();

function occurrences(text, needle) {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

// ---- a minimal protobuf walker ----------------------------------------------------------------------------------
function varint(buf, at) {
  let value = 0;
  let shift = 1;
  for (;;) {
    if (at.i >= buf.length) throw new Error('truncated varint');
    const b = buf[at.i++];
    value += (b & 0x7f) * shift;
    if (b < 0x80) return value;
    shift *= 128;
  }
}

/** Calls visit(field, start, end) for each length-delimited field of the message buf[start, end); skips the rest. */
function fields(buf, start, end, visit) {
  const at = { i: start };
  while (at.i < end) {
    const key = varint(buf, at);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) varint(buf, at);
    else if (wire === 1) at.i += 8;
    else if (wire === 5) at.i += 4;
    else if (wire === 2) {
      const len = varint(buf, at);
      if (at.i + len > end) throw new Error('truncated field');
      visit(field, at.i, at.i + len);
      at.i += len;
    } else throw new Error(`wire type ${wire}`);
  }
}

/** Spans and root spans of an ExportTraceServiceRequest. */
function otlpSpans(buf) {
  let spans = 0;
  let roots = 0;
  fields(buf, 0, buf.length, (f1, s1, e1) => {
    if (f1 !== 1) return; // resource_spans
    fields(buf, s1, e1, (f2, s2, e2) => {
      if (f2 !== 2) return; // scope_spans
      fields(buf, s2, e2, (f3, s3, e3) => {
        if (f3 !== 2) return; // spans
        spans++;
        let parent = false;
        fields(buf, s3, e3, (f4, s4, e4) => {
          if (f4 === 4 && e4 > s4) parent = true; // parent_span_id
        });
        if (!parent) roots++;
      });
    });
  });
  return { spans, roots };
}

// ---- the server -------------------------------------------------------------------------------------------------
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let body = Buffer.concat(chunks);
    counts.requests++;
    counts.bytes += body.length;
    try {
      const encoding = req.headers['content-encoding'];
      if (encoding === 'gzip') body = await gunzip(body);
      else if (encoding === 'deflate') body = await inflate(body);
      if (req.method === 'POST' && req.url === '/ingest/traces') {
        const text = body.toString('utf8');
        const n = occurrences(text, '"spanId":');
        counts.spans += n;
        counts.roots += occurrences(text, '"parentSpanId":null');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: n, rejected: [] }));
      } else if (req.method === 'POST' && req.url === '/ingest/logs') {
        const n = JSON.parse(body.toString('utf8')).logs?.length ?? 0;
        counts.logs += n;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: n, rejected: [] }));
      } else if (req.method === 'POST' && req.url === '/v1/traces') {
        const { spans, roots } = otlpSpans(body);
        counts.spans += spans;
        counts.roots += roots;
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        counts.other++;
        res.writeHead(404).end();
      }
    } catch {
      counts.bad++;
      res.writeHead(400).end();
    }
  });
});

server.keepAliveTimeout = 60_000;
answerAsSink(server, { counts: () => counts, reset: () => { counts = fresh(); } });
