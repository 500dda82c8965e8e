// OTLP/HTTP request bodies of the same spans as bodies.mjs spanBody (batch / 10 traces of 10 spans: a SERVER root
// `GET` -> controller:GET, nine children INTERNAL loadCartItems / priceCart -> service:..., CLIENT to payments-api
// -> external:payments-api; the same URL, status codes, durations, host and region, timestamps of now) as OTLP/JSON
// and as OTLP protobuf, with new trace and span ids in EVERY request.
//
// The protobuf body is a template encoded once per batch size (protobufjs's Writer): every request copies it and
// writes fresh random ids and the current times at the offsets they have in it (ids are fixed-size bytes, times
// fixed64, so the layout never moves). The load generator shares the machine, so it spends a memcpy and a few
// thousand small writes a request, not an encoder's walk.
import { randomBytes, randomFillSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './lantern.mjs';

const protobuf = createRequire(join(ROOT, 'packages/otlp/package.json'))('protobufjs/minimal.js');

const CHILDREN = ['loadCartItems', 'priceCart', 'external:payments-api']; // as bodies.mjs: SPAN_KINDS[1 + (s % 3)]
const RESOURCE = [['service.name', 'checkout'], ['host.name', 'checkout-7d9f8b6c5-x2kqp'], ['cloud.region', 'eu-central-1']];

/** The spans of one request as plain descriptions (shared by both encodings). */
function describe(batch, now) {
  const spans = [];
  const traces = Math.max(1, Math.floor(batch / 10));
  for (let t = 0; t < traces; t++) {
    const perTrace = t === traces - 1 ? batch - 10 * (traces - 1) : 10;
    for (let s = 0; s < perTrace; s++) {
      const root = s === 0;
      const child = CHILDREN[s % 3];
      const status = root && t % 20 === 0 ? 503 : 200;
      const start = now - 1000 + s * 3;
      spans.push({
        trace: t, root, start, end: start + (root ? 120 + t : 5 + s),
        name: root ? 'GET' : child === 'external:payments-api' ? 'POST' : child,
        kind: root ? 2 : child === 'external:payments-api' ? 3 : 1,
        attributes: [
          ['url.path', `/api/v1/carts/${100000 + t}/items`, 'string'],
          ['url.query', 'expand=product&currency=EUR', 'string'],
          ...(root ? [['http.request.method', 'GET', 'string']] : []),
          ...(child === 'external:payments-api' && !root ? [['server.address', 'payments-api', 'string']] : []),
          ['http.response.status_code', status, 'int'],
        ],
        error: status >= 500,
      });
    }
  }
  return spans;
}

// ---- OTLP/JSON ----
const jsonAttr = ([key, value, type]) => (type === 'int' ? `{"key":"${key}","value":{"intValue":"${value}"}}` : `{"key":"${key}","value":{"stringValue":"${value}"}}`);
const JSON_HEAD = `{"resourceSpans":[{"resource":{"attributes":[${RESOURCE.map(([k, v]) => jsonAttr([k, v, 'string'])).join(',')}]},"scopeSpans":[{"scope":{"name":"lantern-bench"},"spans":[`;

/** One OTLP/JSON request body (text). */
export function otlpJsonSpanBody(batch) {
  const spans = describe(batch, Date.now());
  const hex = randomBytes(16 * (spans.at(-1).trace + 1) + 8 * batch).toString('hex');
  let at = 0;
  const take = (bytes) => hex.slice(at, (at += 2 * bytes));
  let traceId = '';
  let rootId = '';
  const parts = spans.map((s) => {
    if (s.root) {
      traceId = take(16);
      rootId = take(8);
    }
    return `{"traceId":"${traceId}","spanId":"${s.root ? rootId : take(8)}"${s.root ? '' : `,"parentSpanId":"${rootId}"`},` +
      `"name":"${s.name}","kind":${s.kind},"startTimeUnixNano":"${s.start}000000","endTimeUnixNano":"${s.end}000000",` +
      `"attributes":[${s.attributes.map(jsonAttr).join(',')}]${s.error ? ',"status":{"code":2}' : ''}}`;
  });
  return `${JSON_HEAD}${parts.join(',')}]}]}]}`;
}

// ---- OTLP protobuf ----
/** A KeyValue as field `field` of its message. */
function writeKeyValue(w, field, [key, value, type]) {
  w.uint32((field << 3) | 2).fork().uint32(10).string(key).uint32(18).fork();
  if (type === 'int') w.uint32(24).int64(value);
  else w.uint32(10).string(value);
  w.ldelim().ldelim();
}

/** A marker: random bytes, found again in the encoded template to learn where the real value goes. */
const marker = (bytes) => randomBytes(bytes);

/** All offsets of `needle` in `buf`. */
function offsetsOf(buf, needle) {
  const found = [];
  for (let at = buf.indexOf(needle); at !== -1; at = buf.indexOf(needle, at + 1)) found.push(at);
  return found;
}

const templates = new Map();

/** The encoded request of `batch` spans with marker ids and times, and where the ids and times sit in it. */
function template(batch) {
  let tpl = templates.get(batch);
  if (tpl) return tpl;
  const spans = describe(batch, 0); // times relative to now
  const w = protobuf.Writer.create();
  w.uint32(10).fork(); // ExportTraceServiceRequest.resource_spans
  w.uint32(10).fork(); // .resource
  for (const [key, value] of RESOURCE) writeKeyValue(w, 1, [key, value, 'string']);
  w.ldelim();
  w.uint32(18).fork(); // .scope_spans
  w.uint32(10).fork().uint32(10).string('lantern-bench').ldelim(); // .scope
  const traces = [];
  const times = [];
  for (const s of spans) {
    if (s.root) traces.push({ traceId: marker(16), rootId: marker(8), children: [] });
    const trace = traces.at(-1);
    const spanId = s.root ? trace.rootId : marker(8);
    if (!s.root) trace.children.push(spanId);
    const start = marker(8);
    const end = marker(8);
    times.push([start, s.start], [end, s.end]);
    w.uint32(18).fork(); // ScopeSpans.spans
    w.uint32(10).bytes(trace.traceId).uint32(18).bytes(spanId);
    if (!s.root) w.uint32(34).bytes(trace.rootId);
    w.uint32(42).string(s.name).uint32(48).int32(s.kind);
    w.uint32(57).fixed32(start.readUInt32LE(0)).fixed32(start.readUInt32LE(4));
    w.uint32(65).fixed32(end.readUInt32LE(0)).fixed32(end.readUInt32LE(4));
    for (const attribute of s.attributes) writeKeyValue(w, 9, attribute);
    if (s.error) w.uint32(122).fork().uint32(24).int32(2).ldelim();
    w.ldelim();
  }
  w.ldelim().ldelim();
  const bytes = Buffer.from(w.finish());
  const place = (needle, expected) => {
    const at = offsetsOf(bytes, needle);
    if (at.length !== expected) throw new Error(`template marker found ${at.length} times, expected ${expected}`);
    return at;
  };
  tpl = {
    bytes,
    traces: traces.map((t) => ({ traceAt: place(t.traceId, 1 + t.children.length), rootAt: place(t.rootId, 1 + t.children.length), childAt: t.children.map((c) => place(c, 1)[0]) })),
    times: times.map(([m, relativeMs]) => ({ at: place(m, 1)[0], relativeMs })),
  };
  templates.set(batch, tpl);
  return tpl;
}

/** One OTLP protobuf request body (a Buffer): the template with new ids and the current times. */
export function otlpProtobufSpanBody(batch) {
  const tpl = template(batch);
  const body = Buffer.from(tpl.bytes);
  // All the ids of the request from one random draw: 16 bytes a trace, 8 a span.
  const ids = randomBytes(24 * tpl.traces.length + 8 * batch);
  let from = 0;
  const put = (at, bytes) => {
    ids.copy(body, at, from, from + bytes);
  };
  for (const t of tpl.traces) {
    for (const at of t.traceAt) put(at, 16); // the trace id, wherever the trace's spans carry it
    from += 16;
    for (const at of t.rootAt) put(at, 8); // the root's span id: its own, and its children's parent
    from += 8;
    for (const at of t.childAt) {
      put(at, 8);
      from += 8;
    }
  }
  // Times: now in Unix nanoseconds as two 32-bit halves (one BigInt a request), plus each span's offset.
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const baseHi = Number(nowNs >> 32n);
  const baseLo = Number(nowNs & 0xffffffffn);
  for (const { at, relativeMs } of tpl.times) {
    const lo = baseLo + relativeMs * 1_000_000;
    const carry = Math.floor(lo / 4294967296);
    body.writeUInt32LE(lo - carry * 4294967296, at);
    body.writeUInt32LE(baseHi + carry, at + 4);
  }
  return body;
}
