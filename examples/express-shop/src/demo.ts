import { mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { describeExit, startChild, type Child } from './children.js';
import { setUpAccount, type DemoAccount } from './setup.js';
import { describeSent, describeStored, readStored } from './summary.js';
import type { TrafficStats } from './traffic.js';

/**
 * `pnpm demo`: starts Lantern (embedded), creates a demo account through its API, starts the payments and shop
 * apps with an API key each and a traffic generator, prints where to look, and a live summary of what Lantern
 * stored. Ctrl-C (or --duration) stops traffic, then the apps (they flush what they buffer), then Lantern.
 */

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(HERE, '../../..');
const GATEWAY = join(ROOT, 'gateway/dist/main.js');

const USAGE = `Usage: pnpm demo [options]
  --port <n>        Lantern's port (default: PORT or 8080; 0 picks a free one)
  --data-dir <dir>  Lantern's data directory (default: ./data-demo; kept between runs)
  --duration <s>    stop by itself after this many seconds (default: run until Ctrl-C)
  --rate <n>        requests per second the traffic generator sends (default: 4)
  --help`;

interface Options {
  port: number;
  dataDir: string;
  durationS: number | undefined;
  rate: number;
}

function options(): Options {
  const args = process.argv.slice(2);
  if (args[0] === '--') args.shift(); // `pnpm demo -- --port 9090` passes the `--` on
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        duration: { type: 'string' },
        rate: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, raw: string | undefined, fallback: number | undefined, ok: (n: number) => boolean) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (raw.trim() === '' || !ok(n)) {
      console.error(`--${name} ${JSON.stringify(raw)} is not valid\n${USAGE}`);
      process.exit(2);
    }
    return n;
  };
  return {
    port: number('port', values.port ?? process.env.PORT, 8080, (n) => Number.isInteger(n) && n >= 0 && n <= 65535)!,
    dataDir: resolve(values['data-dir'] ?? join(ROOT, 'data-demo')),
    durationS: number('duration', values.duration, undefined, (n) => n > 0),
    rate: number('rate', values.rate, 4, (n) => n > 0 && n <= 100)!,
  };
}

const elapsed = (since: number) => `${Math.round((Date.now() - since) / 1000)}s`;

async function main(): Promise<void> {
  const opts = options();
  const logDir = join(opts.dataDir, 'demo-logs');
  mkdirSync(logDir, { recursive: true });
  const started = Date.now();
  const since = new Date(started);
  const children: Child[] = [];
  const by = (name: string) => children.find((c) => c.name === name);
  const traffic: TrafficStats = { type: 'stats', sent: 0, byStatus: {} };
  let account: DemoAccount | undefined;
  let base = '';
  let stopping: Promise<void> | undefined;
  let failed = false;
  let summaryTimer: NodeJS.Timeout | undefined;
  let durationTimer: NodeJS.Timeout | undefined;

  const start = (name: string, script: string, env: NodeJS.ProcessEnv, execArgv?: string[]) => {
    if (stopping) throw new Error(`not starting ${name}: the demo is stopping`);
    const child = startChild(name, script, { env, execArgv, logFile: join(logDir, `${name}.log`) });
    children.push(child);
    void child.exited.then((exit) => {
      if (stopping) return;
      failed = true;
      console.error(`\n${name} exited unexpectedly (${describeExit(exit)}). Its last output:\n${child.tail().trimEnd()}\n`);
      void finish(`${name} exited`);
    });
    return child;
  };

  /** One line: what the traffic sent, and what Lantern stored, read back with the JWT. */
  const summary = async (label: string) => {
    if (!account) return undefined;
    try {
      const stored = await readStored(base, account, since);
      console.log(`[${label}] ${describeSent(traffic.sent, traffic.byStatus)} | stored: ${describeStored(stored)}`);
      return stored;
    } catch (error) {
      console.log(`[${label}] ${describeSent(traffic.sent, traffic.byStatus)} | could not read back: ${(error as Error).message}`);
      return undefined;
    }
  };

  /** Traffic first, then the shop (it calls payments), then payments, a last summary, then Lantern. */
  const stop = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      clearInterval(summaryTimer);
      clearTimeout(durationTimer);
      console.log(`\nStopping (${why}): traffic, shop, payments, then Lantern...`);
      for (const name of ['traffic', 'shop', 'payments']) await by(name)?.stop(15_000);
      const lantern = by('lantern');
      if (lantern?.running() && account) await summary(`final ${elapsed(started)}`);
      await lantern?.stop(20_000);
      for (const child of children) {
        const exit = await child.exited;
        if (exit.code !== 0 && !failed) {
          failed = true;
          console.error(`${child.name} did not stop cleanly (${describeExit(exit)}); see ${join(logDir, `${child.name}.log`)}`);
        }
      }
      console.log(failed ? 'Stopped.' : `Stopped. Data kept in ${opts.dataDir}; \`pnpm demo\` again continues with the same user and project.`);
    })());
  const finish = (why: string) => stop(why).then(() => process.exit(failed ? 1 : 0));

  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    // Under `pnpm demo`, one Ctrl-C arrives twice (from the terminal and forwarded by pnpm): only a second
    // one a moment later means "now".
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < 1000) return;
      console.error(`${signal} again: killing everything now`);
      for (const child of children) if (child.running()) child.process.kill('SIGKILL');
      process.exit(130);
    }
    firstSignalAt = Date.now();
    void finish(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Last resort (an unexpected crash of the demo): never leave a child behind.
  process.on('exit', () => children.forEach((c) => c.running() && c.process.kill('SIGTERM')));

  try {
    // 1. Lantern, embedded, with the demo's own data directory; its log lines go to demo-logs/lantern.log.
    console.log(`Starting Lantern (data in ${opts.dataDir})...`);
    // Only on this machine's loopback, unless HOST says otherwise: the demo user's password is printed.
    const host = process.env.HOST || '127.0.0.1';
    const lantern = start('lantern', GATEWAY, { ...process.env, PORT: String(opts.port), HOST: host, DATA_DIR: opts.dataDir }, [
      '--import',
      pathToFileURL(join(HERE, 'parent-watch.js')).href,
    ]);
    const [, port] = await lantern.waitForLine(/Lantern is running on http:\/\/localhost:(\d+)/);
    base = `http://${host === '127.0.0.1' ? host : 'localhost'}:${port}`;
    await waitReady(base, lantern);

    // 2. A user, organization, project, the two applications and their API keys, through the HTTP API.
    account = await setUpAccount(base);

    // 3. The apps, each with its own key, then the traffic.
    const appEnv = (name: 'shop' | 'payments', extra: Record<string, string> = {}) => ({
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LANTERN_API_KEY: account!.apps[name].apiKey,
      LANTERN_INGEST_URL: base,
      ...extra,
    });
    const payments = start('payments', join(HERE, 'payments.js'), appEnv('payments'));
    const paymentsPort = (await payments.waitForMessage<{ type: 'ready'; port: number }>('ready')).port;
    const shop = start('shop', join(HERE, 'shop.js'), appEnv('shop', { PAYMENTS_URL: `http://127.0.0.1:${paymentsPort}` }));
    const shopPort = (await shop.waitForMessage<{ type: 'ready'; port: number }>('ready')).port;
    const trafficChild = start('traffic', join(HERE, 'traffic.js'), { ...process.env, SHOP_URL: `http://127.0.0.1:${shopPort}`, RATE: String(opts.rate) });
    trafficChild.process.on('message', (m: TrafficStats) => Object.assign(traffic, m));

    // 4. Where to look.
    console.log(banner(opts, base, account, shopPort, paymentsPort, children, logDir));
  } catch (error) {
    if (stopping) return; // a child died while starting: finish() is under way
    failed = true;
    console.error(`\nThe demo could not start: ${(error as Error).message}`);
    await finish('start failed');
  }
  if (stopping) return;

  let shownTrace = false;
  const tick = async () => {
    const stored = await summary(elapsed(started));
    if (!shownTrace && account && stored?.crossServiceTraceId && !stopping) {
      shownTrace = true;
      console.log(`  one checkout across both apps:  curl -s '${base}/logs/project?id=${account.projectId}&traceId=${stored.crossServiceTraceId}' -H "Authorization: Bearer $TOKEN"`);
    }
  };
  setTimeout(() => {
    if (stopping) return;
    void tick();
    summaryTimer = setInterval(() => void tick(), 5000);
  }, Math.min(10_000, (opts.durationS ?? Infinity) * 500));
  if (opts.durationS !== undefined) {
    durationTimer = setTimeout(() => void finish(`--duration ${opts.durationS}`), opts.durationS * 1000);
  }
  await new Promise<void>(() => undefined); // runs until stop() exits the process
}

async function waitReady(base: string, lantern: Child): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!lantern.running()) throw new Error(`Lantern exited while starting:\n${lantern.tail()}`);
    const ok = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`Lantern at ${base} was not ready after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function banner(opts: Options, base: string, a: DemoAccount, shopPort: number, paymentsPort: number, children: Child[], logDir: string): string {
  const shown = relative(process.cwd(), logDir);
  const logs = shown && !shown.startsWith('..') ? shown : logDir;
  const auth = `-H "Authorization: Bearer $TOKEN"`;
  return `
Lantern demo is running.
  Lantern     ${base}   (data: ${opts.dataDir})
  shop        http://127.0.0.1:${shopPort}   (try: curl -s http://127.0.0.1:${shopPort}/products)
  payments    http://127.0.0.1:${paymentsPort}
  traffic     ${opts.rate} requests/s at the shop
  processes   ${children.map((c) => `${c.name} pid ${c.pid}`).join(', ')}
  their logs  ${logs}/{lantern,payments,shop,traffic}.log

Log in to Lantern as
  email       ${a.email}
  password    ${a.password}
  project     ${a.projectId} (applications: shop ${a.apps.shop.id}, payments ${a.apps.payments.id})
  JWT         ${a.token}

In another terminal:
  TOKEN=${a.token}
  curl -s '${base}/logs/project?id=${a.projectId}&limit=5' ${auth}                        # traces, newest first
  curl -s '${base}/logs/project?id=${a.projectId}&applicationId=${a.apps.payments.id}&limit=5' ${auth}  # traces of payments
  curl -s '${base}/logs/project?id=${a.projectId}&status=5xx&limit=5' ${auth}             # failed requests
  curl -s '${base}/ingest/logs?projectId=${a.projectId}&limit=20' ${auth}                 # logs
  curl -s '${base}/metrics?projectId=${a.projectId}' ${auth}                              # requests, errors, p50/p95/p99

The apps send every 2 s; a summary of what Lantern stored follows every 5 s. Ctrl-C stops everything.
`;
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
