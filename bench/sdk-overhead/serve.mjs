// Shared by app-bare.mjs, app-lantern.mjs and app-otel.mjs: the route's work, the listening socket, and the
// conversation with run.mjs over the IPC channel (ready / sample / stop). Nothing here is instrumented or loads
// node:http itself, so it is the same code in the three variants.
import { performance } from 'node:perf_hooks';

let served = 0;

/**
 * The route's work (`--route`): `hello`, a small JSON; or `items`, a realistic route: BENCH_ITEMS items (default
 * 500) built and then serialised by res.json, about 1 ms of CPU a request on the 2-core test machine, where a hello
 * request is about 0.1 ms.
 */
const route = process.env.BENCH_ROUTE ?? 'hello';
const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);

/** The body of GET /hello (whatever the route's work); counts the requests served (warm-up included). */
export function hello() {
  served++;
  if (route !== 'items') return { hello: 'world' };
  const items = [];
  for (let i = 0; i < ITEMS; i++) {
    items.push({
      id: `${served}-${i}`, sku: `SKU-${(i * 7919) % 100000}`, name: `Item ${i} of page ${served}`, price: ((i * 7919) % 10000) / 100,
      currency: 'EUR', tags: ['catalog', i % 2 ? 'odd' : 'even', `group-${i % 7}`], inStock: i % 3 !== 0, quantity: (i * 31) % 97,
      updatedAt: new Date(1_767_225_600_000 + i * 60_000).toISOString(), dimensions: { w: i % 40, h: i % 30, d: i % 20 },
    });
  }
  return { page: served, count: ITEMS, items };
}

/** One manual child span per request (the default), or automatic instrumentation only (`--auto-only`). */
export const childSpan = process.env.BENCH_CHILD_SPAN !== '0';

function sample() {
  return { served, cpu: process.cpuUsage(), rss: process.memoryUsage().rss, elu: performance.eventLoopUtilization() };
}

/**
 * Listens on an ephemeral port of 127.0.0.1 and answers run.mjs: `sample` (requests served, CPU time of every
 * thread of the process, event-loop utilisation) and `stop` (close the server, then `flush()` the telemetry —
 * lantern.close() or sdk.shutdown() — and exit; the sink has then answered every export).
 */
export function serve(app, { flush = async () => undefined } = {}) {
  const server = app.listen(0, '127.0.0.1', (error) => {
    if (error) throw error;
    process.send({ type: 'ready', port: server.address().port });
  });
  process.on('disconnect', () => process.exit(1)); // run.mjs went away
  process.on('message', async (message) => {
    if (message.type === 'sample') process.send({ type: 'sample', ...sample() });
    if (message.type === 'stop') {
      server.closeAllConnections();
      server.close();
      const t0 = performance.now();
      let telemetry;
      try {
        telemetry = await flush();
      } catch (error) {
        telemetry = { flushError: String(error?.message ?? error) };
      }
      process.send({ type: 'stopped', ...sample(), flushMs: Math.round(performance.now() - t0), telemetry }, () => process.exit(0));
    }
  });
}
