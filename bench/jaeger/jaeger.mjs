// A Jaeger v2 process for bench/jaeger: started on a config file (config.mjs) in a run directory, waited for,
// read (its Prometheus metrics, its query API) and stopped. Loopback only. Node built-ins only.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { jaegerConfig } from './config.mjs';

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 60_000;

function get(port, path, timeoutMs = 10_000) {
  return new Promise((resolve) => {
    const req = http.get({ host: HOST, port, path, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
  });
}

/** Sums the samples of one Prometheus counter (any labels; with or without the `_total` suffix). */
function counter(text, name) {
  let sum = 0;
  const re = new RegExp(`^${name}(?:_total)?(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'gm');
  for (const m of text.matchAll(re)) sum += Number(m[1]);
  return sum;
}

/**
 * Starts `bin` with a config for `dataDir` (Badger's directory) written to `runDir`, its log in
 * `runDir/jaeger.log`, and waits until the query API and the OTLP port answer.
 */
export async function startJaeger({ bin, runDir, dataDir, ports, batch, syncWrites }) {
  const configFile = join(runDir, 'jaeger.yaml');
  writeFileSync(configFile, jaegerConfig({ dataDir, ports, batch, syncWrites }));
  const logFile = join(runDir, 'jaeger.log');
  const out = openSync(logFile, 'a');
  const proc = spawn(bin, ['--config', configFile], { cwd: runDir, stdio: ['ignore', out, out] });
  const exited = new Promise((r) => proc.once('exit', r));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM'); // Jaeger shuts its pipeline down and closes Badger (flushing its memtables)
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`jaeger exited with ${proc.exitCode} during start-up (log: ${logFile})`);
    const [query, otlp] = await Promise.all([get(ports.query, '/api/services', 2000), get(ports.otlp, '/v1/traces', 2000)]);
    if (query.status === 200 && otlp.status !== 0) break; // the receiver answers GET with 405
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`jaeger did not answer within ${START_TIMEOUT_MS} ms (log: ${logFile})`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    proc,
    logFile,
    stop,
    /** The receiver's and the storage exporter's span counters (the exporter's "sent" = writes that returned). */
    async metrics() {
      const { status, text } = await get(ports.metrics, '/metrics');
      if (status !== 200) throw new Error(`jaeger metrics: ${status} ${text.slice(0, 200)}`);
      return {
        receiverAccepted: counter(text, 'otelcol_receiver_accepted_spans'),
        receiverRefused: counter(text, 'otelcol_receiver_refused_spans'),
        exporterSent: counter(text, 'otelcol_exporter_sent_spans'),
        exporterFailed: counter(text, 'otelcol_exporter_send_failed_spans'),
      };
    },
    /** How many spans the query API returns for a trace id (hex): 0 when it has none. */
    async spansOf(traceId) {
      const { status, text } = await get(ports.query, `/api/traces/${traceId}`);
      if (status === 404) return 0;
      if (status !== 200) throw new Error(`jaeger query /api/traces/${traceId}: ${status} ${text.slice(0, 200)}`);
      return JSON.parse(text).data?.[0]?.spans?.length ?? 0;
    },
  };
}

/** The last lines of a log, for an error message. */
export function logTail(logFile, lines = 15) {
  try {
    return readFileSync(logFile, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
