#!/usr/bin/env node
// bench/sdk-overhead: autocannon against the same Express 5 route (GET /hello, a small JSON) served three ways,
// in one run: bare, with @lantern/sdk-node, with OpenTelemetry JS (NodeSDK, HTTP + Express instrumentations,
// BatchSpanProcessor -> OTLP/HTTP). Each server is its own child process (OTel patches modules globally), started
// afresh for every measurement, warmed up, then loaded; the rounds are interleaved (the order rotates each round)
// so that drift hits every variant alike. Lantern and OTel export to a local sink process that counts the spans.
// With taskset the servers run on CPU 0, this process (autocannon) and the sink on CPU 1.
// Reports per variant the median over rounds of requests/s and p99 latency, the overhead vs bare, Lantern's
// overhead relative to OTel's, server CPU per request, and the spans that reached the sink.
// Usage: pnpm --silent bench:sdk-overhead [--duration 10 --connections 50 --rounds 3 --warmup 3 --auto-only --route hello|items
//        --min-server-cpu 85 --baseline DIR --variants bare,lantern,otel,lantern-disabled,als --cpu-prof DIR --top 15] > result.json
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ask, watched } from './ipc.mjs';

// `pnpm bench:sdk-overhead -- --rounds 5` hands the script a leading `--`, which parseArgs takes for the end of options.
const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    variants: { type: 'string', default: 'bare,lantern,otel' },
    // The route's work (serve.mjs): hello (a small JSON) or items (about 1 ms of CPU: a few hundred items as JSON).
    route: { type: 'string', default: 'hello' },
    // Automatic instrumentation only: no service() span in the Lantern variant, no manual span in the OTel one.
    'auto-only': { type: 'boolean', default: false },
    // Profile every server with `node --cpu-prof` into DIR and print where the time goes (figures are then perturbed).
    'cpu-prof': { type: 'string' },
    // Another build of the library as the variant `baseline`, side by side with `lantern` in one run: the directory
    // of its dist (e.g. packages/sdk-node/dist of a worktree at an earlier commit, built).
    baseline: { type: 'string' },
    top: { type: 'string', default: '15' },
    // A measurement whose server got less of its core than this (another process took it) is discarded and repeated.
    'min-server-cpu': { type: 'string', default: '85' },
  },
});
const minServerCpu = Number(values['min-server-cpu']);
const MAX_ATTEMPTS = 3;
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const variants = values.variants.split(',');
/**
 * The variants: a server file and its environment. Two diagnostics, not run by default: `lantern-disabled`
 * (createLantern with enabled: false, through LANTERN_ENABLED) keeps the request context and the span helpers but
 * records and sends nothing, which splits Lantern's cost between context and recording/export; `als` is the floor
 * of any context-propagating tracer (app-als.mjs: one AsyncLocalStorage.run per request). Any other name runs
 * app-<name>.mjs.
 */
const VARIANTS = {
  bare: { file: 'app-bare.mjs' },
  lantern: { file: 'app-lantern.mjs' },
  otel: { file: 'app-otel.mjs' },
  'lantern-disabled': { file: 'app-lantern.mjs', env: { LANTERN_ENABLED: 'false' } },
  als: { file: 'app-als.mjs' },
  baseline: { file: 'app-lantern.mjs', env: { LANTERN_SDK_DIST: values.baseline ?? '' } },
};
const variantOf = (name) => VARIANTS[name] ?? { file: `app-${name}.mjs` };
if (values.variants.split(',').includes('baseline') && !values.baseline) throw new Error('the variant baseline needs --baseline <dist directory of another build>');
const childSpan = !values['auto-only'];
const profileDir = values['cpu-prof'];
const here = fileURLToPath(new URL('.', import.meta.url));
const log = (...a) => console.error('[sdk-overhead]', ...a);

// ---- CPU pinning -----------------------------------------------------------------------------------------------
function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return os.availableParallelism() >= 2;
  } catch {
    return false;
  }
}
const pin = hasTaskset();
const SERVER_CPU = '0';
const LOADGEN_CPU = '1';
if (pin) execFileSync('taskset', ['-a', '-p', '-c', LOADGEN_CPU, String(process.pid)], { stdio: 'ignore' }); // every thread of this process
const pinning = pin
  ? `servers (all threads) on CPU ${SERVER_CPU}; autocannon (this process) and the sink on CPU ${LOADGEN_CPU} (taskset)`
  : 'none (taskset not found or fewer than 2 CPUs): servers, autocannon and sink share the CPUs';

/** Starts `node <file>` (pinned to `cpu`) with an IPC channel and waits for its `ready` message. */
function startChild(file, cpu, env, nodeArgs = []) {
  const args = [...nodeArgs, join(here, file)];
  const child = pin
    ? spawn('taskset', ['-c', cpu, process.execPath, ...args], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return watched(child, file);
}

/** Busy and steal seconds of one CPU so far, from /proc/stat (Linux, USER_HZ = 100); undefined elsewhere. */
function cpuTimes(cpu) {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${cpu} `));
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (user + nice + system + irq + softirq + steal) / 100, steal: steal / 100 };
  } catch {
    return undefined;
  }
}

// ---- load ------------------------------------------------------------------------------------------------------
function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : NaN;
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round1 = (x) => Math.round(x * 10) / 10;
const round3 = (x) => Math.round(x * 1000) / 1000;

/** One autocannon run; latencies from the `response` events (autocannon's own histogram has 1 ms resolution). */
async function load(port, seconds) {
  const latencies = [];
  const instance = autocannon({ url: `http://127.0.0.1:${port}/hello`, connections, duration: seconds, pipelining: 1 });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  latencies.sort((a, b) => a - b);
  return {
    requests: result.requests.total,
    seconds: result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

// ---- one measurement: fresh server, warm-up, measured load, flush, counts ----------------------------------------
async function measure(sink, sinkPort, variant, round) {
  await ask(sink, 'reset');
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    SINK_URL: `http://127.0.0.1:${sinkPort}`,
    BENCH_CHILD_SPAN: childSpan ? '1' : '0',
    BENCH_ROUTE: values.route,
    ...variantOf(variant).env,
  };
  const nodeArgs = [];
  if (profileDir) {
    const dir = join(profileDir, `${variant}-r${round}`);
    mkdirSync(dir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const server = startChild(variantOf(variant).file, SERVER_CPU, env, nodeArgs);
  const port = await server.ready;
  if (warmup > 0) await load(port, warmup);

  const s0 = await ask(server.child, 'sample');
  const k0 = await ask(sink, 'counts');
  const c0 = process.cpuUsage();
  const core0 = pin ? cpuTimes(SERVER_CPU) : undefined;
  const t0 = performance.now();
  const run = await load(port, duration);
  const elapsed = (performance.now() - t0) / 1000; // seconds of the measured load
  const c1 = process.cpuUsage(c0);
  const core1 = pin ? cpuTimes(SERVER_CPU) : undefined;
  const s1 = await ask(server.child, 'sample');
  const k1 = await ask(sink, 'counts');

  const stopped = await ask(server.child, 'stop', 'stopped');
  await server.exited;
  const sunk = await ask(sink, 'counts');

  const cpuUs = (a, b) => b.user + b.system - (a.user + a.system);
  const served = s1.served - s0.served;
  const serverCpu = cpuUs(s0.cpu, s1.cpu);
  const elu = (s1.elu.active - s0.elu.active) / (s1.elu.idle + s1.elu.active - (s0.elu.idle + s0.elu.active));
  return {
    variant,
    round,
    reqPerSec: round1(run.requests / run.seconds),
    p50Ms: round3(run.p50Ms),
    p99Ms: round3(run.p99Ms),
    requests: run.requests,
    failures: run.non2xx + run.errors + run.timeouts,
    // CPU time of the server process (every thread: the main thread, GC, the libuv pool that gzips) per request.
    serverCpuUsPerRequest: round1(serverCpu / served),
    serverCpuPercent: round1((serverCpu / 1e6 / elapsed) * 100),
    serverEventLoopUtilization: round3(elu),
    // What else ran on the server's CPU (other processes of the machine, the hypervisor's steal), if pinned.
    serverCoreOtherPercent: core0 && core1 ? round1(Math.max(0, ((core1.busy - core0.busy - serverCpu / 1e6) / elapsed) * 100)) : null,
    serverCoreStealPercent: core0 && core1 ? round1(((core1.steal - core0.steal) / elapsed) * 100) : null,
    loadgenCpuPercent: round1(((c1.user + c1.system) / 1e6 / elapsed) * 100),
    sinkCpuPercent: round1((cpuUs(k0.cpu, k1.cpu) / 1e6 / elapsed) * 100),
    serverRssMiB: Math.round(s1.rss / 2 ** 20),
    // Telemetry, over the whole life of the server (warm-up included), after its flush on stop.
    servedTotal: stopped.served,
    spansReceived: sunk.spans,
    rootSpansReceived: sunk.roots,
    spansPerRequest: sunk.roots ? round3(sunk.spans / sunk.roots) : 0,
    requestsWithRootSpanPercent: sunk.roots === 0 && sunk.requests === 0 ? null : round1((sunk.roots / stopped.served) * 100),
    exportRequests: sunk.requests,
    exportMiB: round3(sunk.bytes / 2 ** 20),
    flushOnStopMs: stopped.flushMs,
    sdkStats: stopped.telemetry ?? null,
  };
}

// ---- profiles ---------------------------------------------------------------------------------------------------
/**
 * Where a server's .cpuprofile (main thread only) went, per request served. Each sample is charged to the nearest
 * frame on its stack that belongs to Lantern's dist, to @opentelemetry, or to Express/the app (node_modules or
 * this directory): node:internal frames count for whoever called them, so `charged.lantern` is the time spent in
 * Lantern's code and in what it calls (randomUUID, AsyncResource, the listeners it wraps...), not in next().
 * The profile covers the server's whole life (start-up and warm-up included). `selfUsPerRequest` keeps every
 * function's self time, for the comparison with bare below.
 */
function summariseProfile(file, served, top) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const dt = new Map(); // node id -> sampled microseconds
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const shortUrl = (url) => url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/^.*\/(packages|bench)\//, '$1/');
  const label = (cf) => `${cf.functionName || '(anonymous)'} ${cf.url ? `${shortUrl(cf.url)}:${cf.lineNumber + 1}` : ''}`.trim();
  const ownerOf = (url) =>
    url.includes('/sdk-node/dist/') ? 'lantern' : url.includes('@opentelemetry') ? 'otel' : url.includes('/node_modules/') || url.startsWith(`file://${here}`) ? 'express/app' : undefined;
  const charged = {};
  const self = new Map();
  const sdkLeaves = new Map();
  let busy = 0;
  for (const [id, us] of dt) {
    const node = byId.get(id);
    const fn = node.callFrame.functionName;
    if (fn === '(idle)') continue;
    busy += us;
    let owner = fn === '(garbage collector)' || fn === '(program)' ? fn : 'node internals';
    if (owner === 'node internals') {
      for (let n = node; n; n = byId.get(parent.get(n.id))) {
        const o = ownerOf(n.callFrame.url);
        if (o) {
          owner = o;
          break;
        }
      }
    }
    charged[owner] = (charged[owner] ?? 0) + us;
    const name = label(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + us);
    if (owner === 'lantern' || owner === 'otel') sdkLeaves.set(name, (sdkLeaves.get(name) ?? 0) + us);
  }
  const perReq = (us) => round1(us / served);
  const rank = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, us]) => ({ fn, usPerRequest: perReq(us), pctOfBusy: round1((us / busy) * 100) }));
  return {
    file,
    requestsServed: served,
    mainThreadBusyUsPerRequest: perReq(busy),
    chargedUsPerRequest: Object.fromEntries(Object.entries(charged).sort((a, b) => b[1] - a[1]).map(([k, us]) => [k, perReq(us)])),
    topSelf: rank(self),
    topChargedToSdk: rank(sdkLeaves),
    selfUsPerRequest: new Map([...self].map(([k, us]) => [k, us / served])),
  };
}

// ---- main -------------------------------------------------------------------------------------------------------
/** Which build of the SDK was measured: its version and a hash of its dist/*.js (the SDK is still changing). */
function sdkBuild() {
  const dist = join(here, 'node_modules/@lantern/sdk-node/dist');
  const hash = createHash('sha256');
  for (const f of readdirSync(dist).filter((f) => f.endsWith('.js')).sort()) hash.update(readFileSync(join(dist, f)));
  const { version } = JSON.parse(readFileSync(join(dist, '../package.json'), 'utf8'));
  return `@lantern/sdk-node ${version}, dist sha256 ${hash.digest('hex').slice(0, 12)}`;
}
const sdkAtStart = sdkBuild();
const sinkProc = startChild('sink.mjs', LOADGEN_CPU, process.env);
const sinkPort = await sinkProc.ready;
const started = performance.now();
const loadAtStart = os.loadavg().map((x) => round1(x));
log(`${variants.join(', ')} x ${rounds} rounds, ${duration} s each after ${warmup} s warm-up, ${connections} connections; pinning: ${pinning}`);
const runs = [];
const discarded = [];
try {
  for (let r = 1; r <= rounds; r++) {
    // Rotate the order each round (bare, lantern, otel / lantern, otel, bare / ...): no variant always goes first.
    const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]);
    for (const v of order) {
      let m;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        m = await measure(sinkProc.child, sinkPort, v, r);
        if (m.serverCpuPercent >= minServerCpu || attempt === MAX_ATTEMPTS) break;
        log(`round ${r} ${v}: discarded (${m.reqPerSec} req/s, the server had ${m.serverCpuPercent}% of its CPU, other processes ${m.serverCoreOtherPercent ?? '?'}%); again`);
        discarded.push(m);
        await new Promise((res) => setTimeout(res, 10_000)); // bursts of other work last a while
      }
      m.starved = m.serverCpuPercent < minServerCpu; // even after the attempts: left out of the medians below
      runs.push(m);
      if (m.failures > 0) log(`round ${r} ${v}: ${m.failures} failed requests (non-2xx, errors, timeouts)`);
      log(`round ${r} ${v.padEnd(7)} ${String(m.reqPerSec).padStart(8)} req/s  p99 ${m.p99Ms.toFixed(2)} ms  server cpu ${m.serverCpuPercent}% (${m.serverCpuUsPerRequest} us/req, others on its core ${m.serverCoreOtherPercent ?? '?'}%)  loadgen cpu ${m.loadgenCpuPercent}%  spans ${m.spansReceived} (${m.requestsWithRootSpanPercent ?? '-'}% of requests)`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
} finally {
  sinkProc.child.disconnect();
  await sinkProc.exited;
}

const summary = {};
// Medians over the measurements whose server had its core (all of them if none had).
const clean = (ms) => (ms.some((m) => !m.starved) ? ms.filter((m) => !m.starved) : ms);
for (const v of variants) {
  const all = runs.filter((m) => m.variant === v);
  const mine = clean(all);
  summary[v] = {
    measurements: mine.length,
    reqPerSecMedian: round1(median(mine.map((m) => m.reqPerSec))),
    reqPerSecRounds: all.map((m) => m.reqPerSec),
    starvedRounds: all.filter((m) => m.starved).map((m) => m.round),
    p99MsMedian: round3(median(mine.map((m) => m.p99Ms))),
    p99MsRounds: all.map((m) => m.p99Ms),
    p50MsMedian: round3(median(mine.map((m) => m.p50Ms))),
    serverCpuUsPerRequestMedian: round1(median(mine.map((m) => m.serverCpuUsPerRequest))),
    requestsWithRootSpanPercentMin: mine.some((m) => m.requestsWithRootSpanPercent === null) ? null : Math.min(...mine.map((m) => m.requestsWithRootSpanPercent)),
    spansPerRequest: median(mine.map((m) => m.spansPerRequest)) || null,
  };
}
const overhead = {};
if (summary.bare) {
  const bare = summary.bare.reqPerSecMedian;
  for (const v of variants.filter((x) => x !== 'bare')) {
    // Also within each round (paired with that round's bare run), which cancels slow drift.
    const perRound = runs
      .filter((m) => m.variant === v)
      .map((m) => {
        const b = runs.find((x) => x.variant === 'bare' && x.round === m.round);
        return b && !b.starved && !m.starved ? round3((b.reqPerSec - m.reqPerSec) / b.reqPerSec) : null;
      });
    overhead[v] = {
      reqPerSecOverhead: round3((bare - summary[v].reqPerSecMedian) / bare),
      reqPerSecOverheadPerRound: perRound,
      p99IncreaseMs: round3(summary[v].p99MsMedian - summary.bare.p99MsMedian),
      cpuPerRequestOverhead: round3((summary[v].serverCpuUsPerRequestMedian - summary.bare.serverCpuUsPerRequestMedian) / summary.bare.serverCpuUsPerRequestMedian),
      // The requests/s lost on a full core: 1 - (bare CPU per request / this CPU per request). Less sensitive than
      // requests/s to other processes taking the server's core, as sensitive to everything else.
      cpuNormalisedOverhead: round3(1 - summary.bare.serverCpuUsPerRequestMedian / summary[v].serverCpuUsPerRequestMedian),
    };
  }
}
// Issue 16's targets: CPU added per request over bare at most 30 µs and at most a quarter of OpenTelemetry's (every
// route); on the items route (about 1 ms of CPU) at most 3 % of bare's requests/s; beside them, what Lantern adds
// above the floor of one AsyncLocalStorage.run per request (`--variants bare,lantern,otel,als`).
const targets = {};
const cpuOf = (v) => summary[v]?.serverCpuUsPerRequestMedian;
if (overhead.lantern && summary.bare) {
  const added = (v) => round1(cpuOf(v) - cpuOf('bare'));
  targets.lanternAddedCpuUsPerRequest = added('lantern');
  targets.lanternAddedCpuAtMost30Us = added('lantern') <= 30;
  if (overhead.otel) {
    targets.otelAddedCpuUsPerRequest = added('otel');
    targets.lanternAddedCpuVsOtel = added('otel') > 0 ? round3(added('lantern') / added('otel')) : null;
    targets.lanternAddedCpuAtMostQuarterOfOtel = added('otel') > 0 && added('lantern') <= added('otel') / 4;
  }
  if (summary.als) targets.lanternAddedCpuAboveAlsFloorUs = round1(cpuOf('lantern') - cpuOf('als'));
  if (values.route === 'items') targets.lanternAtMost3PctOfBareOnItems = overhead.lantern.reqPerSecOverhead <= 0.03;
  if (overhead.otel) {
    targets.lanternVsOtelOverhead = overhead.otel.reqPerSecOverhead > 0 ? round3(overhead.lantern.reqPerSecOverhead / overhead.otel.reqPerSecOverhead) : null;
    targets.lanternLessThanHalfOfOtel = overhead.lantern.reqPerSecOverhead < overhead.otel.reqPerSecOverhead / 2;
    targets.cpuNormalisedLanternVsOtel = round3(overhead.lantern.cpuNormalisedOverhead / overhead.otel.cpuNormalisedOverhead);
  }
}

let profiles;
if (profileDir) {
  profiles = {};
  for (const v of variants) {
    const dir = join(profileDir, `${v}-r1`);
    const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort().at(-1); // the kept attempt's
    const served = runs.find((m) => m.variant === v && m.round === 1).servedTotal;
    if (file) profiles[v] = summariseProfile(join(dir, file), served, Number(values.top));
  }
  // Which functions' self time grew most per request over bare's.
  for (const [v, p] of Object.entries(profiles)) {
    if (profiles.bare && v !== 'bare') {
      const base = profiles.bare.selfUsPerRequest;
      p.topIncreaseOverBare = [...p.selfUsPerRequest]
        .map(([fn, us]) => ({ fn, usPerRequest: round1(us - (base.get(fn) ?? 0)) }))
        .sort((a, b) => b.usPerRequest - a.usPerRequest)
        .slice(0, Number(values.top));
    }
  }
  for (const p of Object.values(profiles)) delete p.selfUsPerRequest;
}

const cpus = os.cpus();
const result = {
  date: new Date().toISOString(),
  machine: `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, ${os.platform()} ${os.release()}`,
  sdk: sdkAtStart,
  ...(sdkBuild() !== sdkAtStart ? { warning: `the SDK's dist changed during the run (now ${sdkBuild()}): measure again` } : {}),
  settings: { route: values.route, duration, warmup, connections, rounds, pipelining: 1, childSpan, variants, minServerCpu, profiled: Boolean(profileDir), pinning, loadAverageAtStart: loadAtStart },
  totalSeconds: Math.round((performance.now() - started) / 1000),
  summary,
  overhead,
  targets,
  runs,
  discarded,
  ...(profiles ? { profiles } : {}),
};
console.log(JSON.stringify(result, null, 2));
if (result.warning) log(`WARNING: ${result.warning}`);

// A Markdown table on stderr, for docs/benchmarks.md.
const pctStr = (x) => (x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
const lines = [
  '| variant | req/s (median) | req/s per round | p99 ms (median) | p50 ms | server CPU µs/req | overhead vs bare: req/s | CPU-normalised | spans per request | requests with a root span at the sink |',
  '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ...variants.map((v) => {
    const s = summary[v];
    const rounds = runs.filter((m) => m.variant === v).map((m) => `${Math.round(m.reqPerSec)}${m.starved ? '*' : ''}`).join(' / ');
    return `| ${v} | ${Math.round(s.reqPerSecMedian)} | ${rounds} | ${s.p99MsMedian.toFixed(1)} | ${s.p50MsMedian.toFixed(1)} | ${Math.round(s.serverCpuUsPerRequestMedian)} | ${v === 'bare' ? '—' : pctStr(overhead[v]?.reqPerSecOverhead)} | ${v === 'bare' ? '—' : pctStr(overhead[v]?.cpuNormalisedOverhead)} | ${s.spansPerRequest ?? '—'} | ${s.requestsWithRootSpanPercentMin === null ? '—' : `≥ ${s.requestsWithRootSpanPercentMin} %`} |`;
  }),
];
console.error(`\n${lines.join('\n')}\n${runs.some((m) => m.starved) ? '* starved (other processes took the server\'s core): left out of the medians\n' : ''}`);
if (profiles) {
  for (const [v, p] of Object.entries(profiles)) {
    const charged = Object.entries(p.chargedUsPerRequest).map(([k, us]) => `${k} ${us}`).join(', ');
    console.error(`${v}: main thread ${p.mainThreadBusyUsPerRequest} µs/request (${charged})`);
    for (const t of p.topChargedToSdk.slice(0, 12)) console.error(`  ${String(t.usPerRequest).padStart(6)} µs  ${t.fn}`);
    if (p.topIncreaseOverBare) {
      console.error('  self time grown most over bare:');
      for (const t of p.topIncreaseOverBare.slice(0, 12)) console.error(`  ${String(t.usPerRequest).padStart(6)} µs  ${t.fn}`);
    }
  }
}
