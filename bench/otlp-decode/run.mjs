#!/usr/bin/env node
// OTLP protobuf decode -> the OTLP/JSON shape of @lantern/otlp (ids as hex, 64-bit integers as decimal text: the
// whole cost), candidate by candidate, on bytes made by the OpenTelemetry JS SDK's own serializer (fixtures.mjs).
//   pnpm bench:otlp-decode            (tsc -b, then: node bench/otlp-decode/run.mjs [--rounds 9] [--traces 50] [--logs 500])
// Candidates: protobufjs reflection (loadSync of the .proto files), protobufjs static code (pbjs), @bufbuild/protobuf
// v2 (protoc-gen-es) - each then walked to the shape - and @lantern/otlp's decoder (protobufjs's Reader, decoding
// straight into the shape). Each round times `iterations` decodes of one request per candidate, candidates
// interleaved; the figure is the median round.
import { fromBinary } from '@bufbuild/protobuf';
import { decodeLogsProtobuf, decodeTracesProtobuf } from '@lantern/otlp';
import { isDeepStrictEqual } from 'node:util';
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { logsRequestBytes, traceRequestBytes } from './fixtures.mjs';
import { generate, loadRoot } from './gen.mjs';
import * as walkEs from './walk-es.mjs';
import * as walkPbjs from './walk-pbjs.mjs';

const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const ROUNDS = option('--rounds', 9);
const TRACES = option('--traces', 50);
const LOGS = option('--logs', 500);

const LOAD0 = readFileSync('/proc/loadavg', 'utf8').trim();
generate();
const pbjs = await import('./gen/pbjs.js');
const esTrace = await import('./gen/es/opentelemetry/proto/collector/trace/v1/trace_service_pb.js');
const esLogs = await import('./gen/es/opentelemetry/proto/collector/logs/v1/logs_service_pb.js');
const root = loadRoot();
const reflectTrace = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const reflectLogs = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
const staticTrace = pbjs.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const staticLogs = pbjs.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;

const candidates = {
  'protobufjs reflection + walk': [(b) => walkPbjs.tracesShape(reflectTrace.decode(b)), (b) => walkPbjs.logsShape(reflectLogs.decode(b))],
  'protobufjs static (pbjs) + walk': [(b) => walkPbjs.tracesShape(staticTrace.decode(b)), (b) => walkPbjs.logsShape(staticLogs.decode(b))],
  '@bufbuild/protobuf v2 + walk': [(b) => walkEs.tracesShape(fromBinary(esTrace.ExportTraceServiceRequestSchema, b)), (b) => walkEs.logsShape(fromBinary(esLogs.ExportLogsServiceRequestSchema, b))],
  '@lantern/otlp (protobufjs Reader, straight to the shape)': [decodeTracesProtobuf, decodeLogsProtobuf],
};

// As the endpoint holds a request body: a Buffer.
const asBuffer = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const traces = asBuffer(traceRequestBytes(TRACES));
const logs = asBuffer(logsRequestBytes(LOGS));
const spanCount = TRACES * 10;

// Same answer check: every candidate yields the decoder's shape (fields left undefined by the walks aside).
const dropDefault = (k, v) => ((v === 0 && /Count$|^flags$/.test(k)) || v === '' ? undefined : v);
const clean = (value) => JSON.parse(JSON.stringify(value, dropDefault));
const expected = [clean(decodeTracesProtobuf(traces)), clean(decodeLogsProtobuf(logs))];
for (const [name, [decodeTraces, decodeLogs]] of Object.entries(candidates)) {
  if (!isDeepStrictEqual(clean(decodeTraces(traces)), expected[0])) throw new Error(`${name}: traces differ from the decoder's shape`);
  if (!isDeepStrictEqual(clean(decodeLogs(logs)), expected[1])) throw new Error(`${name}: logs differ from the decoder's shape`);
}

/** ms per decode of `bytes`, `iterations` in a row. */
function time(decode, bytes, iterations) {
  const start = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < iterations; i++) sink += decode(bytes) ? 1 : 0;
  if (sink !== iterations) throw new Error('lost a decode');
  return Number(process.hrtime.bigint() - start) / 1e6 / iterations;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const results = Object.fromEntries(Object.keys(candidates).map((name) => [name, { traces: [], logs: [] }]));
for (const [decodeTraces, decodeLogs] of Object.values(candidates)) {
  time(decodeTraces, traces, 100); // warm-up: optimised code before the first round
  time(decodeLogs, logs, 100);
}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, [decodeTraces, decodeLogs]] of Object.entries(candidates)) {
    results[name].traces.push(time(decodeTraces, traces, 60));
    results[name].logs.push(time(decodeLogs, logs, 60));
  }
}

const commit = (() => { try { return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim(); } catch { return '?'; } })();
console.log(`OTLP protobuf decode -> shape, ${new Date().toISOString()}, commit ${commit}, node ${process.version}, ${cpus()[0]?.model} x${cpus().length}`);
console.log(`loadavg before/after: ${LOAD0} / ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log(`traces request: ${spanCount} spans, ${traces.length} bytes; logs request: ${LOGS} records, ${logs.length} bytes; ${ROUNDS} rounds x 60 decodes, median round`);
console.log('| candidate | traces: ms / request | spans / s | logs: ms / request | records / s |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, r] of Object.entries(results)) {
  const t = median(r.traces);
  const l = median(r.logs);
  console.log(`| ${name} | ${t.toFixed(3)} | ${Math.round((spanCount / t) * 1000).toLocaleString('en')} | ${l.toFixed(3)} | ${Math.round((LOGS / l) * 1000).toLocaleString('en')} |`);
}
