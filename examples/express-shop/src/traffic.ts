/**
 * The shop's customers: a gentle, steady stream of requests (`RATE` per second, default 4) at `SHOP_URL`.
 * The first round hits every route once, so even a short run has a checkout (a trace across both apps) and a
 * failure. Counts go to the demo over IPC, or to stdout when run on its own.
 */

const shopUrl = process.env.SHOP_URL ?? 'http://127.0.0.1:3000';
const rate = Math.max(0.1, Number(process.env.RATE ?? 4) || 4);
const GOOD_CARD = '4242424242424242';
const DECLINED_CARD = '4000000000000002';

export interface TrafficStats {
  type: 'stats';
  sent: number;
  byStatus: Record<string, number>;
}

const stats: TrafficStats = { type: 'stats', sent: 0, byStatus: {} };
const cart = () => 1 + Math.floor(Math.random() * 22); // 21 and 22 do not exist: a 404 now and then

const ROUTES: Array<{ weight: number; request: () => [string, RequestInit?] }> = [
  { weight: 4, request: () => ['/products'] },
  { weight: 3, request: () => [`/cart/${cart()}`] },
  { weight: 2, request: () => ['/recommendations'] },
  {
    weight: 2,
    request: () => [
      '/checkout',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ cartId: 1 + Math.floor(Math.random() * 20), card: Math.random() < 0.15 ? DECLINED_CARD : GOOD_CARD }),
      },
    ],
  },
];
const TOTAL_WEIGHT = ROUTES.reduce((sum, r) => sum + r.weight, 0);

function pick(): [string, RequestInit?] {
  let n = Math.random() * TOTAL_WEIGHT;
  for (const route of ROUTES) if ((n -= route.weight) < 0) return route.request();
  return ROUTES[0]!.request();
}

const inFlight = new Set<Promise<void>>();
let queue: Array<[string, RequestInit?]> = ROUTES.map((r) => r.request()); // the first round: every route once

function send(): void {
  if (inFlight.size >= 20) return; // the shop is slow: do not pile up
  const [path, init] = queue.shift() ?? pick();
  const done = fetch(`${shopUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) })
    .then(async (res) => {
      await res.arrayBuffer();
      return String(res.status);
    })
    .catch(() => 'network error')
    .then((status) => {
      stats.sent += 1;
      stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
      if (process.connected) process.send?.(stats);
    })
    .finally(() => inFlight.delete(done));
  inFlight.add(done);
}

const timer = setInterval(send, 1000 / rate);
send();
if (!process.send) setInterval(() => console.log(JSON.stringify(stats)), 5000).unref();

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(timer);
  queue = [];
  await Promise.all(inFlight);
  console.log(`traffic stopped: ${JSON.stringify(stats)}`);
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
if (process.send) process.once('disconnect', () => void stop());
