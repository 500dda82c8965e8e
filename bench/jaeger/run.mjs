#!/usr/bin/env node
// bench/jaeger: Lantern side by side with Jaeger v2 on Badger, the same load for both, in turns (Lantern, Jaeger,
// Lantern, Jaeger, ...) on the same machine (issue 12: the aim is twice Jaeger's rate). Each turn starts its server
// on a fresh directory, drives it from N keep-alive connections with batches of 500 spans (50 traces of 10) with
// new ids in every request, stops it and counts what was STORED:
//   Lantern: JSON spans to POST /ingest/traces (bench/ingest's bodies and server start); rows in its SQLite
//            database, counted after the stop.
//   Jaeger:  the same spans as OTLP/HTTP JSON to POST /v1/traces; its storage exporter's count of spans written
//            to Badger, checked by reopening the Badger directory and reading a sample of traces back (sides.mjs).
// Everything listens on and talks to 127.0.0.1 only. The Jaeger binary is built once from its Go module into the
// infra cache (build.mjs) unless --jaeger-bin is given. Docs: docs/benchmarks.md, "Side by side with Jaeger v2".
//
//   pnpm bench:jaeger                                   2 turns each, 60 s each
//   pnpm bench:jaeger -- --turns 3 --seconds 30 --connections 8 --batch 500
//   options: --jaeger-bin PATH  --server-root DIR (another built Lantern checkout)  --keep (keep the data dirs)
//            --jaeger-batch (Jaeger's example pipeline: batch processor, 200 = queued)  --jaeger-sync (Badger
//            SyncWrites on)  --sample 200 (traces read back from Jaeger)  --json FILE (all rows)
//            --port 18090 (Lantern)  --jaeger-port 14318 (OTLP; query, gRPC, health and metrics on the next four)
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ROOT } from '../ingest/lantern.mjs';
import { JAEGER_VERSION, ensureJaegerBinary } from './build.mjs';
import { lanternTurn, jaegerTurn } from './sides.mjs';
import { printTable } from './table.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    turns: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '8' },
    batch: { type: 'string', default: '500' },
    port: { type: 'string', default: '18090' },
    'jaeger-port': { type: 'string', default: '14318' },
    'jaeger-bin': { type: 'string' },
    'jaeger-batch': { type: 'boolean', default: false },
    'jaeger-sync': { type: 'boolean', default: false },
    'server-root': { type: 'string' },
    sample: { type: 'string', default: '200' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const int = (name, min, max) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
  return n;
};
const turns = int('turns', 1, 20);
const seconds = int('seconds', 1, 3600);
const connections = int('connections', 1, 256);
const batch = int('batch', 10, 10_000);
const port = int('port', 1, 65535);
const sample = int('sample', 2, 100_000);
const otlp = int('jaeger-port', 1, 65531);
const ports = { otlp, query: otlp + 1, queryGrpc: otlp + 2, health: otlp + 3, metrics: otlp + 4 };

/** Nothing may already listen on a port this bench is about to use (another bench, another engineer's server). */
async function assertFree(p) {
  const taken = await new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: p });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
  if (taken) throw new Error(`127.0.0.1:${p} is in use; pick other ports with --port / --jaeger-port`);
}
for (const p of [port, ...Object.values(ports)]) await assertFree(p);

const bin = values['jaeger-bin'] ?? (await ensureJaegerBinary());
const common = { connections, seconds, batch, keep: values.keep };
const settings = {
  date: new Date().toISOString(),
  machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  lantern: values['server-root'] ?? ROOT,
  jaeger: `${values['jaeger-bin'] ? bin : `Jaeger ${JAEGER_VERSION} (${bin})`}, Badger SyncWrites ${values['jaeger-sync']}, ${values['jaeger-batch'] ? 'batch processor (200 = queued)' : 'no batch processor (200 = written to Badger)'}`,
  turns, seconds, connections, batch,
};
process.stderr.write(`${JSON.stringify(settings)}\n`);

const rows = [];
for (let turn = 1; turn <= turns; turn++) {
  for (const side of ['lantern', 'jaeger']) {
    process.stderr.write(`turn ${turn}/${turns}: ${side}, ${seconds} s ...\n`);
    const result = side === 'lantern'
      ? await lanternTurn({ ...common, serverRoot: values['server-root'] ?? ROOT, port })
      : await jaegerTurn({ ...common, bin, ports, batchProcessor: values['jaeger-batch'], syncWrites: values['jaeger-sync'], sample });
    rows.push({ turn, ...result });
    process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
  }
}
if (values.json) writeFileSync(values.json, `${JSON.stringify({ settings, rows }, null, 2)}\n`);
printTable(rows);
