// One turn of bench/jaeger for each side: start the server on a fresh directory, drive the load (load.mjs), stop
// it, and count what it STORED. Both return the same row. Node built-ins only.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { spanBody } from '../ingest/bodies.mjs';
import { cpuSeconds, peakRssMb, startLantern } from '../ingest/lantern.mjs';
import { startJaeger } from './jaeger.mjs';
import { drive, spread } from './load.mjs';
import { otlpSpanBody } from './otlp.mjs';

function row(side, load, { stored, cpu, rss, accepted, check }) {
  return {
    side,
    seconds: Number(load.elapsed.toFixed(1)),
    requests: load.requests,
    failures: load.failures,
    firstFailure: load.firstFailure,
    accepted,
    stored,
    storedPerSecond: Math.round(stored / load.elapsed),
    serverCpuSeconds: Number(cpu.toFixed(1)),
    serverCores: Number((cpu / load.elapsed).toFixed(2)),
    storedPerCpuSecond: Math.round(stored / cpu),
    peakRssMb: rss,
    p50Ms: Number(load.p50Ms.toFixed(1)),
    p99Ms: Number(load.p99Ms.toFixed(1)),
    generatorCores: Number(load.generatorCores.toFixed(2)),
    clientCores: Number(load.clientCores.toFixed(2)),
    ...(check ? { check } : {}),
  };
}

/** Lantern as bench/ingest runs it: JSON spans to POST /ingest/traces, stored = rows in `spans` after the stop. */
export async function lanternTurn({ serverRoot, port, connections, seconds, batch, keep }) {
  const dataDir = await mkdtemp(join(os.tmpdir(), 'lantern-bench-jaeger-'));
  let lantern;
  try {
    lantern = await startLantern({ serverRoot, port, dataDir });
    const pid = lantern.server.pid;
    let accepted = 0;
    const cpu0 = cpuSeconds(pid);
    const load = await drive({
      port, path: '/ingest/traces', connections, seconds,
      headers: { 'content-type': 'application/json', 'x-api-key': lantern.apiKey },
      makeBody: () => ({ body: spanBody(batch) }),
      onAnswer: (res) => { if (res.status === 200) accepted += JSON.parse(res.text).accepted; },
    });
    const cpu = cpuSeconds(pid) - cpu0;
    const rss = peakRssMb(pid);
    await lantern.stop();
    const stored = lantern.count() - lantern.before;
    return row('lantern', load, { stored, cpu, rss, accepted });
  } finally {
    await lantern?.stop();
    if (!keep) await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Jaeger v2 on Badger: the same spans as OTLP JSON to POST /v1/traces. Stored = the storage exporter's count of
 * spans whose Badger writes returned (read before the stop), checked after a restart on the same Badger directory:
 * `sample` traces spread over the run (first and last included) are read back through the query API, each
 * must have all its spans. If some are not whole, the count is scaled down by the share that is.
 */
export async function jaegerTurn({ bin, ports, connections, seconds, batch, keep, batchProcessor, syncWrites, sample = 200 }) {
  const runDir = await mkdtemp(join(os.tmpdir(), 'jaeger-bench-'));
  const dataDir = join(runDir, 'badger');
  await mkdir(dataDir);
  let jaeger;
  try {
    const opts = { bin, runDir, dataDir, ports, batch: batchProcessor, syncWrites };
    jaeger = await startJaeger(opts);
    const pid = jaeger.proc.pid;
    let accepted = 0;
    const cpu0 = cpuSeconds(pid);
    const load = await drive({
      port: ports.otlp, path: '/v1/traces', connections, seconds,
      headers: { 'content-type': 'application/json' },
      makeBody: () => otlpSpanBody(batch),
      onAnswer: (res) => {
        if (res.status === 200) accepted += batch - Number(JSON.parse(res.text || '{}').partialSuccess?.rejectedSpans ?? 0);
      },
    });
    const cpu = cpuSeconds(pid) - cpu0;
    const rss = peakRssMb(pid);
    // With the batch processor the exporter may still be writing: give it until its count stops moving.
    let metrics = await jaeger.metrics();
    for (let i = 0; i < 30 && metrics.exporterSent < metrics.receiverAccepted; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      metrics = await jaeger.metrics();
    }
    await jaeger.stop();
    jaeger = await startJaeger(opts); // the same Badger directory, reopened
    const sampled = spread(load.traceIds, sample);
    const perTrace = Math.min(10, batch);
    let whole = 0;
    for (const id of sampled) if ((await jaeger.spansOf(id)) === perTrace) whole++;
    await jaeger.stop();
    const check = { sampledTraces: sampled.length, wholeAfterRestart: whole, ...metrics };
    const stored = whole === sampled.length ? metrics.exporterSent : Math.round((metrics.exporterSent * whole) / sampled.length);
    return row('jaeger', load, { stored, cpu, rss, accepted, check });
  } finally {
    await jaeger?.stop();
    if (!keep) await rm(runDir, { recursive: true, force: true });
  }
}
