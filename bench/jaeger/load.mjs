// The load both servers get in bench/jaeger: `connections` keep-alive connections, each sending one request at a
// time for `seconds`, every body made fresh (new ids) by `makeBody`. Measures request latencies, failures, the time
// spent making bodies (the generator's CPU: it runs on this one thread, between requests) and this whole process's CPU (generator
// plus HTTP client). Loopback only. Node built-ins only.
import http from 'node:http';
import { percentile, post } from '../ingest/lantern.mjs';

/**
 * @param {{ port: number, path: string, headers: object, connections: number, seconds: number,
 *   makeBody: () => { body: string, traceId?: string }, onAnswer?: (res: { status: number, text: string }) => void }} o
 * @returns the requests, failures (not 200), p50/p99 in ms, elapsed seconds, generator and client cores, and
 *   the first trace id of each request that was answered 200 (in order).
 */
export async function drive({ port, path, headers, connections, seconds, makeBody, onAnswer }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  const traceIds = [];
  let failures = 0;
  let firstFailure;
  let generatorUs = 0;
  const t0 = Date.now();
  const end = t0 + seconds * 1000;
  const cpu0 = process.cpuUsage();
  const worker = async () => {
    while (Date.now() < end) {
      const g0 = process.cpuUsage(); // CPU, not wall time: the machine is shared, a body may wait for a core
      const { body, traceId } = makeBody();
      const g = process.cpuUsage(g0);
      generatorUs += g.user + g.system;
      const started = process.hrtime.bigint();
      const res = await post(agent, port, path, headers, body);
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status === 200) {
        if (traceId) traceIds.push(traceId);
      } else {
        failures++;
        firstFailure ??= `${res.status} ${res.text.slice(0, 200)}`;
      }
      onAnswer?.(res);
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (Date.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    failures,
    firstFailure,
    elapsed,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    generatorCores: generatorUs / 1e6 / elapsed,
    clientCores: (cpu.user + cpu.system) / 1e6 / elapsed,
    traceIds,
  };
}

/** Up to `n` items spread evenly over `list`, its first and last included. */
export function spread(list, n) {
  if (list.length <= n) return list.slice();
  return Array.from({ length: n }, (_, i) => list[Math.round((i * (list.length - 1)) / (n - 1))]);
}
