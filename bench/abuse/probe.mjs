// The /healthz probe of bench/abuse, in a process of its own (run.mjs forks it): GET /healthz every 50 ms on one
// keep-alive connection until the parent sends 'stop', then the latencies go back over IPC. Apart from the abusive
// clients, so that what it measures is the server's answer, not the wait of a client event loop that is busy
// sending 50 requests at a time.
//
//   node bench/abuse/probe.mjs <port>   (forked with an IPC channel)
import http from 'node:http';
import { percentile } from '../ingest/lantern.mjs';

const port = Number(process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function healthz() {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: '/healthz', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

const ms = [];
// The probes over 100 ms: [seconds into the case, ms], the first 10 (when in the case the server was slow).
const slow = [];
let errors = 0;
let running = true;
process.on('message', (m) => {
  if (m === 'stop') running = false;
});
process.send?.('started');
const t0 = performance.now();
while (running) {
  const t = performance.now();
  const status = await healthz();
  const took = performance.now() - t;
  if (status === 200) ms.push(took);
  else errors++;
  if (took > 100 && slow.length < 10) slow.push([Math.round((t - t0) / 100) / 10, Math.round(took)]);
  await new Promise((res) => setTimeout(res, Math.max(0, 50 - (performance.now() - t))));
}
agent.destroy();
const s = ms.sort((a, b) => a - b);
process.send?.({ n: s.length, errors, p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s[s.length - 1], slow }, () => process.disconnect());
