#!/usr/bin/env node
// bench/ingest: the embedded Lantern (`node gateway/dist/main.js`, as `pnpm start` runs it, in a child process)
// under POST /ingest/traces or /ingest/logs from keep-alive connections. Every request carries new ids
// (bodies.mjs), and the figure is what was STORED, counted in the database after the server has stopped: a store
// that skips repeats cannot make the figure, and neither can a 200 that stored nothing.
//
//   pnpm bench:ingest                                 30 s of spans (8 connections, batches of 500)
//   pnpm bench:ingest -- --kind logs --batch 1000     log entries instead
//   pnpm bench:ingest -- --format otlp-protobuf       the same spans as OTLP/HTTP protobuf on POST /v1/traces
//                                                    (otlp-json: as OTLP/JSON there; lantern: /ingest/traces, the default;
//                                                    lantern-wide: Lantern JSON spans that also carry what an OTLP span
//                                                    stores, name, kind, attributes, status: the same row size)
//   pnpm bench:ingest -- --total 10000000             a growth run: until 10M are accepted, a rate per million
//   pnpm bench:ingest -- --repeat                     the old figure: 32 bodies re-sent (duplicates, labelled)
//   options: --connections 8 --batch 500 --data-dir DIR (kept) --env NAME=VALUE (server) --profile DIR (--cpu-prof)
//            --server-root DIR: the server of another built checkout (an older commit), under the same load
//
// Reports stored items/s, request p50/p99, the server's CPU (cores used) and peak RSS, and the load generator's
// own CPU (it shares the machine).
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { logBody, spanBody } from './bodies.mjs';
import { otlpJsonSpanBody, otlpProtobufSpanBody } from './otlp-bodies.mjs';
import { ROOT, cpuSeconds, peakRssMb, percentile, post, startLantern } from './lantern.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    kind: { type: 'string', default: 'spans' },
    format: { type: 'string', default: 'lantern' },
    seconds: { type: 'string', default: '30' },
    total: { type: 'string' },
    connections: { type: 'string', default: '8' },
    batch: { type: 'string', default: '500' },
    port: { type: 'string', default: '18080' },
    repeat: { type: 'boolean', default: false },
    'data-dir': { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    profile: { type: 'string' },
    'server-root': { type: 'string' },
  },
});
const kind = values.kind === 'logs' ? 'logs' : 'spans';
const seconds = Number(values.seconds);
const total = values.total ? Number(values.total) : undefined;
const connections = Number(values.connections);
const batchSize = Number(values.batch);
const port = Number(values.port);
const format = values.format;
if (!['lantern', 'lantern-wide', 'otlp-json', 'otlp-protobuf'].includes(format) || (kind === 'logs' && format !== 'lantern')) {
  throw new Error(`--format ${format}: lantern, lantern-wide, otlp-json or otlp-protobuf (all but lantern for spans only)`);
}
const otlp = format.startsWith('otlp-');
const wide = format === 'lantern-wide';
const makeBody = otlp
  ? () => (format === 'otlp-json' ? otlpJsonSpanBody(batchSize) : otlpProtobufSpanBody(batchSize))
  : () => (kind === 'spans' ? spanBody(batchSize, { wide }) : logBody(batchSize));
const path = otlp ? '/v1/traces' : kind === 'spans' ? '/ingest/traces' : '/ingest/logs';
const contentType = format === 'otlp-protobuf' ? 'application/x-protobuf' : 'application/json';
/**
 * What a 200 answer says was accepted: Lantern's `accepted`; for OTLP the batch less the partial success's
 * rejections (a protobuf answer is empty when none was rejected; a non-empty one is counted as partial, none accepted).
 */
let partial = 0;
function acceptedBy(text) {
  if (!otlp) return JSON.parse(text).accepted;
  if (format === 'otlp-json') return batchSize - Number(JSON.parse(text).partialSuccess?.rejectedSpans ?? 0);
  if (text === '') return batchSize;
  partial++;
  return 0;
}

const dataDir = values['data-dir'] ?? (await mkdtemp(join(os.tmpdir(), 'lantern-bench-')));
const extraEnv = Object.fromEntries(values.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const serverRoot = values['server-root'] ?? ROOT;
const nodeArgs = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
let result;
let lantern;
try {
  lantern = await startLantern({ serverRoot, port, dataDir, env: extraEnv, nodeArgs, table: kind });
  const { server, apiKey, before } = lantern;
  const account = { apiKey };
  const repeated = values.repeat ? Array.from({ length: 32 }, makeBody) : undefined;
  const sample = makeBody();
  const avgItemBytes = Math.round(sample.length / batchSize);

  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let accepted = 0, failures = 0, n = 0, nextMark = 1_000_000, lastMarkAt = Date.now(), lastMarkCount = 0;
  const perMillion = [];
  const t0 = Date.now();
  const end = total ? Infinity : t0 + seconds * 1000;
  const cpu0 = cpuSeconds(server.pid);
  const self0 = process.cpuUsage();
  const worker = async () => {
    while (Date.now() < end && (total === undefined || accepted < total)) {
      const body = repeated ? repeated[n++ % repeated.length] : makeBody();
      const started = process.hrtime.bigint();
      const res = await post(agent, port, path, { 'content-type': contentType, 'x-api-key': account.apiKey }, body);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status === 200) accepted += acceptedBy(res.text);
      else failures++;
      if (accepted >= nextMark) {
        const now = Date.now();
        perMillion.push({ million: nextMark / 1e6, perSecond: Math.round((accepted - lastMarkCount) / ((now - lastMarkAt) / 1000)) });
        lastMarkAt = now; lastMarkCount = accepted; nextMark += 1_000_000;
        if (total) process.stderr.write(`${accepted} accepted, ${perMillion.at(-1).perSecond}/s over the last million\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  const serverCpu = cpuSeconds(server.pid) - cpu0;
  const self = process.cpuUsage(self0);
  const rss = peakRssMb(server.pid);
  agent.destroy();
  // Logs: how many the search index had not reached when the load stopped, and how long it took to catch up.
  let searchIndex;
  if (kind === 'logs' && lantern.notSearchIndexed() !== null) {
    const behind = lantern.notSearchIndexed();
    const started = Date.now();
    while (lantern.notSearchIndexed() > 0 && Date.now() - started < 600_000) await new Promise((r) => setTimeout(r, 100));
    searchIndex = { behindWhenLoadStopped: behind, caughtUpSeconds: Number(((Date.now() - started) / 1000).toFixed(1)) };
  }
  await lantern.stop();
  const stored = lantern.count() - before;
  latencies.sort((a, b) => a - b);
  result = {
    date: new Date().toISOString(),
    machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
    server: serverRoot,
    settings: { kind, format, path, seconds: total ? undefined : seconds, total, connections, batchSize, avgItemBytes, repeat: values.repeat, env: extraEnv },
    mode: values.repeat ? 'REPEATED bodies: after the first 32 requests every item is a duplicate the store skips' : 'new ids in every request',
    requests: latencies.length,
    failures,
    ...(partial ? { partialSuccessAnswers: partial } : {}),
    elapsedSeconds: Number(elapsed.toFixed(1)),
    accepted,
    stored,
    storedPerSecond: Math.round(stored / elapsed),
    p50Ms: Number(percentile(latencies, 0.5).toFixed(1)),
    p99Ms: Number(percentile(latencies, 0.99).toFixed(1)),
    serverCores: Number((serverCpu / elapsed).toFixed(2)),
    storedPerServerCpuSecond: Math.round(stored / serverCpu),
    serverPeakRssMb: rss,
    loadGeneratorCores: Number(((self.user + self.system) / 1e6 / elapsed).toFixed(2)),
    ...(perMillion.length ? { perMillion } : {}),
    ...(searchIndex ? { searchIndex } : {}),
  };
} finally {
  await lantern?.stop();
  if (!values['data-dir']) await rm(dataDir, { recursive: true, force: true });
}
console.log(JSON.stringify(result, null, 2));
