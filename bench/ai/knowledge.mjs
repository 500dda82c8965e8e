#!/usr/bin/env node
// bench/ai/knowledge: AI documents end to end on the embedded server (the process `pnpm start` runs), over HTTP.
//  1. Indexing: uploads --docs Markdown documents of about --kb KB each (words drawn with Zipf's law from 30,000
//     distinct ones, inputs.mjs zipfWords, every document new bytes), --concurrency uploads at once, and times from the first
//     upload to the last document ready. The rate is the text of the ready documents (their `characters`, read in
//     the database: what was stored, not what was answered) per second, beside the chunks stored.
//  2. Search: --queries POST /ai/search on that tenant, one at a time after 20 warm-up queries, in four kinds
//     (a common word: one of the 20 most frequent; a rare word: ranks 2,000-10,000; two and three words drawn as
//     the text draws them): p50, p99 and max per kind and over all.
//  3. Ingest during extraction (--pdf-mb, 0 to skip): a steady ingest load of --rate requests a second (20 new
//     spans each, sent on schedule whether or not the previous ones answered), --idle-s seconds with nothing else,
//     then while a PDF of --pdf-mb MB is uploaded and processed to ready: ingest p50/p99 of both phases and the
//     ratio of the p99s. With --pdf-rounds N, N rounds of the two (a new PDF each): each round's row, and the
//     p99s of all idle phases' and all PDF phases' requests pooled, so that the host's noise, which moves an idle
//     phase's p99 by 5x between runs here, falls on both sides alike.
//     The PDF phase's requests are also split by the step of the PDF's way they were sent in: its upload (until the
//     200), its extraction and chunking (until its first chunk is stored) and its indexing (until ready).
//     With --spin-s S, each round has a third phase between the two: S seconds while another process at nice 10
//     (as the processing thread) keeps a core busy, the cost of any work off the event loop on these cores.
//
//   pnpm bench:ai-knowledge [--docs 2000 --kb 70 --concurrency 4 --queries 400 --pdf-mb 10 --rate 50 --idle-s 20]
//                           [--pdf-rounds 1] [--spin-s 0]
//                           [--port 18490] [--threads N]   (DOCUMENT_THREADS, if the build reads it)
//                           [--node-args=--v8-pool-size=4]   (Node options for the embedded server, after pnpm start's)
//                           [--keep]   (keeps the data directory, and says where, with the tenant's id)
//                           [--data-dir D]   (a directory a --keep run filled: searches it again, indexes nothing)
//                           [--distributed [--workers N]]   (every service its own process behind nginx, on Kafka,
//                           mongod and MinIO that scripts/infra starts, N ai-worker processes; counts read in mongod)
// Not a test: run it on a quiet machine. It prints a Markdown table for docs/benchmarks.md.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { setPriority, tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { startCluster, startInfra } from '../../scripts/infra/cluster.mjs';
import { ROOT } from '../../scripts/infra/lib.mjs';
import { Database, percentile, post, startLantern } from '../ingest/lantern.mjs';
import { pdfOf, words, zipfWords } from './inputs.mjs';

/** The documents' words: 30,000 distinct ones (the query kinds below pick by rank). */
const { list: vocabulary, draw: zipfWord } = zipfWords(30_000);
const { values: opt } = parseArgs({
  options: {
    docs: { type: 'string', default: '2000' },
    kb: { type: 'string', default: '70' },
    concurrency: { type: 'string', default: '4' },
    queries: { type: 'string', default: '400' },
    'pdf-mb': { type: 'string', default: '10' },
    rate: { type: 'string', default: '50' },
    'idle-s': { type: 'string', default: '20' },
    'pdf-rounds': { type: 'string', default: '1' },
    'spin-s': { type: 'string', default: '0' },
    'node-args': { type: 'string', default: '' },
    port: { type: 'string', default: '18490' },
    threads: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    distributed: { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
  },
});
// The embedded server's port, or nginx's in front of the distributed services (set once they are up).
let port = Number(opt.port);
/** The distributed mode's mongod database (its counts: what was stored), else undefined. */
let mongo;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const load = () => readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (v) => `${v.toFixed(1)}`;

async function json(method, path, token, body) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, body: body && JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function upload(token, tenantId, bytes, filename, type) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), filename);
  const res = await fetch(`http://127.0.0.1:${port}/ai/docs?TenantId=${tenantId}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`upload ${filename}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * `upload` from a process of its own, as another user's upload would come: in this one, building and sending the
 * 10 MB body would run on the load generator's event loop, and its ingest requests would count that wait as the
 * server's. (It did not remove the upload step's tail: docs/benchmarks.md, "The PDF's steps".)
 */
async function uploadApart(dataDir, token, tenantId, bytes, filename, type) {
  const file = join(dataDir, `upload-${randomUUID()}`);
  writeFileSync(file, bytes);
  const script = `const [file, url, token, type, name] = process.argv.slice(1);
    const form = new FormData();
    form.append('file', new Blob([require('node:fs').readFileSync(file)], { type }), name);
    fetch(url, { method: 'POST', headers: { authorization: 'Bearer ' + token }, body: form })
      .then(async (res) => process.stdout.write(JSON.stringify({ status: res.status, text: await res.text() })));`;
  const child = spawn(process.execPath, ['-e', script, file, `http://127.0.0.1:${port}/ai/docs?TenantId=${tenantId}`, token, type, filename], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  await new Promise((resolve) => child.once('close', resolve));
  rmSync(file, { force: true });
  const { status, text } = JSON.parse(out);
  if (status !== 200) throw new Error(`upload ${filename}: ${status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/**
 * The tenant's documents by status, with the characters and chunks of the ready ones, from the database; with
 * `stored`, the chunks counted in the index too (a scan on mongod, where no index but the text index holds the
 * tenant: not while indexing is timed).
 */
async function documentsOf(dataDir, tenantId, { stored = false } = {}) {
  if (mongo) {
    const rows = await mongo.collection('documents').aggregate([{ $match: { tenantId } },
      { $group: { _id: '$status', n: { $sum: 1 }, characters: { $sum: '$characters' }, chunks: { $sum: '$chunkCount' } } }]).toArray();
    const out = { total: 0, ready: 0, failed: 0, characters: 0, chunks: 0, ...(stored ? { storedChunks: await mongo.collection('chunks').countDocuments({ tenantId }) } : {}) };
    for (const r of rows) {
      out.total += r.n;
      if (r._id === 'ready') Object.assign(out, { ready: r.n, characters: r.characters, chunks: r.chunks });
      if (r._id === 'failed') out.failed = r.n;
    }
    return out;
  }
  const db = new Database(join(dataDir, 'lantern.db'), { readonly: true });
  try {
    const rows = db.prepare('SELECT status, count(*) AS n, sum(characters) AS characters, sum(chunk_count) AS chunks FROM documents WHERE tenant_id = ? GROUP BY status').all(tenantId);
    const out = { total: 0, ready: 0, failed: 0, characters: 0, chunks: 0, ...(stored ? { storedChunks: db.prepare('SELECT count(*) FROM chunks').pluck().get() } : {}) };
    for (const r of rows) {
      out.total += r.n;
      if (r.status === 'ready') Object.assign(out, { ready: r.n, characters: r.characters, chunks: r.chunks });
      if (r.status === 'failed') out.failed = r.n;
    }
    return out;
  } finally {
    db.close();
  }
}

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? NaN };
}

/** `summary` of the latencies, with their p99 against an idle phase's. */
function against(latencies, idleP99) {
  const s = summary(latencies);
  return { ...s, p99Ratio: +(s.p99 / idleP99).toFixed(2) };
}

async function indexing(dataDir, token, tenantId) {
  const docs = Number(opt.docs);
  const bytesEach = Number(opt.kb) * 1000;
  let next = 0;
  let uploadedBytes = 0;
  const began = performance.now();
  const uploader = async () => {
    while (next < docs) {
      const i = next++;
      const parts = [];
      for (let size = 0; size < bytesEach;) {
        const p = `${Array.from({ length: 60 + (i % 80) }, zipfWord).join(' ')}.`;
        parts.push(p);
        size += p.length + 2;
      }
      const bytes = Buffer.from(`# Document ${i} ${randomUUID()}\n\n${parts.join('\n\n')}`);
      uploadedBytes += bytes.length;
      await upload(token, tenantId, bytes, `doc-${i}.md`, 'text/markdown');
    }
  };
  await Promise.all(Array.from({ length: Number(opt.concurrency) }, uploader));
  const uploadedS = (performance.now() - began) / 1000;
  console.error(`uploaded ${docs} documents (${(uploadedBytes / 1e6).toFixed(1)} MB) in ${uploadedS.toFixed(1)} s; load ${load()}`);
  let state;
  for (;;) {
    state = await documentsOf(dataDir, tenantId);
    if (state.ready + state.failed >= docs) break;
    await sleep(500);
  }
  const seconds = (performance.now() - began) / 1000;
  state = await documentsOf(dataDir, tenantId, { stored: true });
  const row = { docs, uploadedMb: +(uploadedBytes / 1e6).toFixed(1), uploadS: +uploadedS.toFixed(1), seconds: +seconds.toFixed(1), ...state, mbPerS: +(state.characters / 1e6 / seconds).toFixed(2), load: load() };
  console.error(`indexing: ${JSON.stringify(row)}`);
  return row;
}

function searchOnce(token, tenantId, query) {
  const body = JSON.stringify({ query, limit: 10 });
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/ai/search?TenantId=${tenantId}`, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve({ ms: performance.now() - t0, hits: JSON.parse(text).results.length }) : reject(new Error(`search: ${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function searching(token, tenantId) {
  const kinds = {
    'a common word': () => vocabulary[Math.floor(Math.random() * 20)],
    'a rare word': () => vocabulary[2000 + Math.floor(Math.random() * 8000)],
    'two words': () => `${zipfWord()} ${zipfWord()}`,
    'three words': () => `${zipfWord()} ${zipfWord()} ${zipfWord()}`,
  };
  for (let i = 0; i < 20; i++) await searchOnce(token, tenantId, words(2));
  const per = Math.max(1, Math.floor(Number(opt.queries) / 4));
  const all = [];
  const rows = [];
  for (const [kind, make] of Object.entries(kinds)) {
    const latencies = [];
    let hits = 0;
    for (let i = 0; i < per; i++) {
      const r = await searchOnce(token, tenantId, make());
      latencies.push(r.ms);
      hits += r.hits;
    }
    all.push(...latencies);
    rows.push({ kind, ...summary(latencies), hitsPerQuery: +(hits / per).toFixed(1) });
  }
  rows.push({ kind: 'all', ...summary(all), hitsPerQuery: NaN });
  console.error(`search: load ${load()}`);
  return rows;
}

/** Sends --rate ingest requests a second on schedule until `stop()` resolves; returns the latencies. */
function ingestLoad(apiKey) {
  const latencies = [];
  /** Each answered request's send time (performance.now()), in the order of `latencies`: which phase it fell in. */
  const sentAt = [];
  const failures = [];
  let stopped = false;
  const interval = 1000 / Number(opt.rate);
  const inFlight = new Set();
  const run = (async () => {
    const began = performance.now();
    for (let i = 0; !stopped; i++) {
      const due = began + i * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const now = Date.now();
      const traces = Array.from({ length: 20 }, (_, k) => ({
        traceId: randomUUID(), spanId: randomUUID(), parentSpanId: null, timestamp: new Date(now - k).toISOString(),
        requestMethod: 'controller:GET', requestURL: `/api/items/${k}`, responseStatus: 200, durationMs: 5 + k,
      }));
      const t0 = performance.now();
      const p = post(agent, port, '/ingest/traces', { 'x-api-key': apiKey, 'content-type': 'application/json' }, JSON.stringify({ timestamp: new Date(now).toISOString(), traces }))
        .then((r) => {
          if (r.status !== 200) return failures.push(r.status);
          sentAt.push(t0);
          return latencies.push(performance.now() - t0);
        });
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
    }
    await Promise.all(inFlight);
  })();
  // The load generator's own event-loop delay: it shares the cores, and a request it sends late, or whose answer it
  // reads late, counts as slow.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  return {
    latencies, sentAt, failures, lag: () => ({ p99: +(lag.percentile(99) / 1e6).toFixed(1), max: +(lag.max / 1e6).toFixed(1) }),
    stop: async () => { stopped = true; await run; lag.disable(); },
  };
}

async function ingestDuringPdf(dataDir, token, tenantId, apiKey) {
  const bound = Number(opt['pdf-mb']) * 1e6;
  // New bytes every run (a PDF uploaded before would be answered by its sha256, ready at once).
  const lines = [`Run ${randomUUID()}`];
  for (let size = 0; size < bound * 0.88; size += 110) lines.push(words(14));
  let pdf = pdfOf(lines, 60);
  // The PDF's own syntax adds about a fifth: as many lines as fit the bound (10 MB is under the 10 MiB upload limit).
  if (pdf.length > bound) pdf = pdfOf(lines.slice(0, Math.floor((lines.length * bound) / pdf.length)), 60);
  const idle = ingestLoad(apiKey);
  await sleep(Number(opt['idle-s']) * 1000);
  await idle.stop();
  let spun;
  if (Number(opt['spin-s']) > 0) {
    spun = ingestLoad(apiKey);
    await spin(Number(opt['spin-s']) * 1000);
    await spun.stop();
  }
  const busy = ingestLoad(apiKey);
  const began = performance.now();
  const doc = await uploadApart(dataDir, token, tenantId, pdf, 'large.pdf', 'application/pdf');
  // The phases of the PDF's way: its upload (until the 200), its extraction and chunking on the processing thread
  // (until its first chunk is stored: the chunks are written once the whole document is extracted and chunked),
  // and its indexing (the chunks written and indexed, until ready). Looked for every 25 ms.
  const uploaded = performance.now();
  let extracted;
  let status;
  for (;;) {
    const seen = await stateOf(dataDir, doc.id);
    status = seen.status;
    if (extracted === undefined && (seen.chunked || status === 'ready' || status === 'failed')) extracted = performance.now();
    if (status === 'ready' || status === 'failed') break;
    await sleep(extracted === undefined ? 25 : 250);
  }
  const seconds = (performance.now() - began) / 1000;
  await busy.stop();
  const a = summary(idle.latencies);
  const b = summary(busy.latencies);
  const phases = phasesOf(busy, [['upload', uploaded], ['extraction', extracted], ['indexing', Infinity]]);
  const row = {
    pdfMb: +(pdf.length / 1e6).toFixed(1), outcome: status, seconds: +seconds.toFixed(1), idle: a, during: b,
    phases: Object.fromEntries(Object.entries(phases).map(([name, l]) => [name, against(l, a.p99)])),
    phaseSeconds: { upload: +((uploaded - began) / 1000).toFixed(1), extraction: +((extracted - uploaded) / 1000).toFixed(1), indexing: +((performance.now() - extracted) / 1000).toFixed(1) }, benchLag: { idle: idle.lag(), during: busy.lag() }, failures: idle.failures.length + busy.failures.length, p99Ratio: +(b.p99 / a.p99).toFixed(2), load: load() };
  console.error(`ingest during the PDF: ${JSON.stringify(row)}`);
  if (spun) row.spin = against(spun.latencies, a.p99);
  return { ...row, idleLatencies: idle.latencies, duringLatencies: busy.latencies, phaseLatencies: phases, spinLatencies: spun?.latencies ?? [] };
}

/** A process that keeps one core busy for `ms`, at nice 10 as the processing thread; resolves when it has ended. */
async function spin(ms) {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`], { stdio: 'ignore' });
  setPriority(child.pid, 10);
  await new Promise((resolve) => child.once('exit', resolve));
}

/** The PDF's status, and whether any of its chunks is stored yet (read in the store, not asked of the server). */
async function stateOf(dataDir, id) {
  if (mongo) {
    const status = (await mongo.collection('documents').findOne({ _id: id }, { projection: { status: 1 } }))?.status;
    return { status, chunked: (await mongo.collection('chunks').findOne({ documentId: id }, { projection: { _id: 1 } })) !== null };
  }
  const db = new Database(join(dataDir, 'lantern.db'), { readonly: true });
  try {
    return {
      status: db.prepare('SELECT status FROM documents WHERE id = ?').pluck().get(id),
      chunked: db.prepare('SELECT 1 FROM chunks WHERE document_id = ? LIMIT 1').get(id) !== undefined,
    };
  } finally {
    db.close();
  }
}

/** A load's latencies split by their requests' send times: `[name, end]` in order, each phase up to its end. */
function phasesOf(load, ends) {
  const out = Object.fromEntries(ends.map(([name]) => [name, []]));
  load.latencies.forEach((latency, i) => out[ends.find(([, end]) => load.sentAt[i] < end)[0]].push(latency));
  return out;
}

/** --pdf-rounds rounds of an idle phase and a PDF phase; the rounds, and both phases' requests pooled. */
async function ingestRounds(dataDir, token, tenantId, apiKey) {
  const rounds = [];
  // A warm-up first, not counted: a server just started answers its first seconds of requests more slowly (the
  // JIT, the database's cache), which would raise the first idle phase's p99.
  const warm = ingestLoad(apiKey);
  await sleep(5000);
  await warm.stop();
  for (let i = 0; i < Number(opt['pdf-rounds']); i++) rounds.push(await ingestDuringPdf(dataDir, token, tenantId, apiKey));
  const idle = summary(rounds.flatMap((r) => r.idleLatencies));
  const during = summary(rounds.flatMap((r) => r.duringLatencies));
  const phases = Object.fromEntries(Object.keys(rounds[0].phaseLatencies).map((name) => [name, against(rounds.flatMap((r) => r.phaseLatencies[name]), idle.p99)]));
  const spun = against(rounds.flatMap((r) => r.spinLatencies), idle.p99);
  return { rounds, idle, during, phases, ...(spun.n > 0 ? { spin: spun } : {}), p99Ratio: +(during.p99 / idle.p99).toFixed(2) };
}

const dataDir = opt['data-dir'] ?? mkdtempSync(join(tmpdir(), 'lantern-bench-knowledge-'));
const saved = join(dataDir, 'knowledge-bench.json');
console.error(`load average before: ${load()}`);
const env = {
  RATE_LIMIT_ENABLED: 'false', STORAGE_QUOTA_BYTES: String(1e12), MAX_CONCURRENT_UPLOADS: String(Math.max(4, Number(opt.concurrency))),
  ...(opt.threads ? { DOCUMENT_THREADS: opt.threads } : {}),
};
/** Kafka, mongod and MinIO (scripts/infra, started if they are not), then every service behind nginx. */
async function distributed() {
  const cluster = await startCluster({ counts: { 'ai-worker': Number(opt.workers) }, baseEnv: { ...process.env, ...startInfra() }, extraEnv: { ...env, API_KEY_CACHE_MS: '5000' } });
  port = Number(new URL(cluster.url).port);
  const { MongoClient } = createRequire(join(ROOT, 'packages/store/package.json'))('mongodb');
  const client = await MongoClient.connect(cluster.env.LANTERN_MONGO_URL);
  mongo = client.db(cluster.env.LANTERN_MONGO_DATABASE);
  const stop = async () => {
    await client.close();
    await cluster.stop();
  };
  return { stop, apiKey: undefined };
}

/** An API key of a new project and application, through the API (the distributed mode has no `lantern init`). */
async function newApiKey(token) {
  const org = await json('POST', '/organizations', token, { name: 'ingest' });
  const project = await json('POST', '/projects', token, { name: 'ingest', organizationId: org.id });
  const app = await json('POST', '/applications', token, { name: 'ingest', projectId: project.id });
  return (await json('POST', `/applications/${app.id}/api-keys`, token, { name: 'bench' })).key;
}

if (opt.distributed && opt['data-dir']) throw new Error('--data-dir is for the embedded mode');
const lantern = opt.distributed ? await distributed() : await startLantern({ port, dataDir, env, nodeArgs: opt['node-args'].split(' ').filter(Boolean) });
console.error(opt.distributed ? `distributed: nginx on ${port}, ${opt.workers} ai-worker process(es)` : `embedded on ${port}`);
try {
  let user;
  if (opt['data-dir']) {
    // A directory an earlier --keep run filled: its tenant, searched again (nothing indexed).
    user = JSON.parse(readFileSync(saved, 'utf8'));
    user.token = (await json('POST', '/auth/login', null, { email: user.email, password: user.password })).token;
  } else {
    user = { email: `knowledge-${Date.now()}@example.com`, password: 'knowledge-bench' };
    user.token = (await json('POST', '/auth/register', null, { ...user, name: 'bench' })).token;
    const org = await json('POST', '/organizations', user.token, { name: 'knowledge' });
    user.tenantId = (await json('POST', '/ai/tenant', user.token, { name: 'bench', organizationId: org.id })).id;
    if (opt.keep) writeFileSync(saved, JSON.stringify({ email: user.email, password: user.password, tenantId: user.tenantId }));
  }
  const { token, tenantId } = user;
  if (opt.keep) console.error(`data directory ${dataDir} (kept), tenant ${tenantId}`);
  const indexed = Number(opt.docs) > 0 && !opt['data-dir'] ? await indexing(dataDir, token, tenantId) : undefined;
  if (indexed) {
    console.log('\n| documents | text MB (ready) | chunks | upload s | to last ready s | indexed MB/s | failed |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    console.log(`| ${indexed.ready} of ${indexed.docs} | ${(indexed.characters / 1e6).toFixed(1)} | ${indexed.chunks} | ${indexed.uploadS} | ${indexed.seconds} | ${indexed.mbPerS} | ${indexed.failed} |`);
  }
  if (Number(opt.queries) > 0) {
    const searched = await searching(token, tenantId);
    console.log(`\n${(await documentsOf(dataDir, tenantId, { stored: true })).storedChunks} chunks in the index\n`);
    console.log('| query | n | p50 ms | p99 ms | max ms | results per query |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of searched) console.log(`| ${r.kind} | ${r.n} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${Number.isNaN(r.hitsPerQuery) ? '' : r.hitsPerQuery} |`);
  }
  const pooled = Number(opt['pdf-mb']) > 0 ? await ingestRounds(dataDir, token, tenantId, lantern.apiKey ?? await newApiKey(token)) : undefined;
  if (pooled) {
    console.log('\n| ingest (20 spans a request) | requests | p50 ms | p99 ms | max ms |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [i, during] of pooled.rounds.entries()) {
      const round = pooled.rounds.length > 1 ? `round ${i + 1}: ` : '';
      console.log(`| ${round}idle | ${during.idle.n} | ${ms(during.idle.p50)} | ${ms(during.idle.p99)} | ${ms(during.idle.max)} |`);
      console.log(`| ${round}during a ${during.pdfMb} MB PDF (${during.outcome} in ${during.seconds} s) | ${during.during.n} | ${ms(during.during.p50)} | ${ms(during.during.p99)} | ${ms(during.during.max)} |`);
    }
    if (pooled.rounds.length > 1) {
      console.log(`| all idle phases | ${pooled.idle.n} | ${ms(pooled.idle.p50)} | ${ms(pooled.idle.p99)} | ${ms(pooled.idle.max)} |`);
      console.log(`| all PDF phases | ${pooled.during.n} | ${ms(pooled.during.p50)} | ${ms(pooled.during.p99)} | ${ms(pooled.during.max)} |`);
    }
    console.log('\n| the PDF\'s step (requests sent during it, all rounds) | seconds, round by round | requests | p50 ms | p99 ms | max ms | p99 / idle p99 |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    if (pooled.spin) console.log(`| (no PDF: a core busy at nice 10, ${opt['spin-s']} s a round) | | ${pooled.spin.n} | ${ms(pooled.spin.p50)} | ${ms(pooled.spin.p99)} | ${ms(pooled.spin.max)} | ${pooled.spin.p99Ratio} |`);
    for (const [name, p] of Object.entries(pooled.phases)) {
      console.log(`| ${name} | ${pooled.rounds.map((r) => r.phaseSeconds[name]).join(', ')} | ${p.n} | ${ms(p.p50)} | ${ms(p.p99)} | ${ms(p.max)} | ${p.p99Ratio} |`);
    }
    const failures = pooled.rounds.reduce((sum, r) => sum + r.failures, 0);
    console.log(`\np99 during / idle: ${pooled.rounds.map((r) => r.p99Ratio).join(', ')}${pooled.rounds.length > 1 ? ` (pooled: ${pooled.p99Ratio})` : ''}; failed requests: ${failures}`);
  }
  console.log(`load average after: ${load()}`);
} finally {
  await lantern.stop();
  if (!opt.keep && !opt['data-dir']) rmSync(dataDir, { recursive: true, force: true });
}
