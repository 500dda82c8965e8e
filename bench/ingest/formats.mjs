#!/usr/bin/env node
// bench/ingest side by side by format: the same spans sent as Lantern's JSON to /ingest/traces (bodies.mjs), as
// OTLP/JSON and as OTLP protobuf to /v1/traces (otlp-bodies.mjs), in turns (lantern, otlp-json, otlp-protobuf, lantern, ...), each turn
// a run of run.mjs (its own server and database, new ids in every request, the STORED spans counted after the stop).
//
//   pnpm bench:ingest-formats                 2 turns of 30 s per format, 8 connections, batches of 500
//   options: --turns 2 --seconds 30 --connections 8 --batch 500 --port 18080 --formats lantern,otlp-json,otlp-protobuf
//            --before DIR: also runs every format against the server of another built checkout (an older commit, run.mjs
//            --server-root), in the same turns, so before and after are measured side by side under the same load
//
// Prints each turn's figures and a table of the medians (stored spans/s, stored per server CPU-second, p50/p99).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lantern.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    turns: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '30' },
    connections: { type: 'string', default: '8' },
    batch: { type: 'string', default: '500' },
    port: { type: 'string', default: '18080' },
    formats: { type: 'string', default: 'lantern,otlp-json,otlp-protobuf' },
    before: { type: 'string' },
  },
});
// A run is a format, or `<format>@before` for the --before checkout's server.
const formats = values.formats.split(',').flatMap((f) => (values.before ? [`${f}@before`, f] : [f]));
const runs = Object.fromEntries(formats.map((f) => [f, []]));
const load = () => readFileSync('/proc/loadavg', 'utf8').trim();
console.error(`load average before: ${load()}`);
for (let turn = 1; turn <= Number(values.turns); turn++) {
  for (const run of formats) {
    const [format, before] = run.split('@');
    const args = ['--format', format, ...(before ? ['--server-root', values.before] : []), '--seconds', values.seconds, '--connections', values.connections, '--batch', values.batch, '--port', values.port];
    const child = spawnSync(process.execPath, [join(ROOT, 'bench/ingest/run.mjs'), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`run.mjs --format ${format} failed (exit ${child.status})`);
    const result = JSON.parse(child.stdout.slice(child.stdout.indexOf('{')));
    runs[run].push(result);
    console.error(`turn ${turn} ${run}: ${result.stored} stored of ${result.accepted} accepted, ${result.storedPerSecond}/s, ` +
      `${result.storedPerServerCpuSecond}/server CPU-s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, failures ${result.failures}, load ${load()}`);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log(`load average after: ${load()}`);
console.log('| format | path | turns: stored spans/s | median stored/s | median stored / server CPU-s | median p50 / p99 ms | server cores | avg span bytes |');
console.log('|---|---|---|---:|---:|---:|---:|---:|');
for (const [format, rs] of Object.entries(runs)) {
  const pick = (k) => median(rs.map((r) => r[k]));
  console.log(`| ${format} | ${rs[0].settings.path} | ${rs.map((r) => r.storedPerSecond).join(', ')} | ${pick('storedPerSecond')} | ${pick('storedPerServerCpuSecond')} | ` +
    `${pick('p50Ms')} / ${pick('p99Ms')} | ${pick('serverCores')} | ${rs[0].settings.avgItemBytes} |`);
}
console.log(JSON.stringify(runs));
