#!/usr/bin/env node
// bench/sdk-overhead, counted instead of timed: the same servers as run.mjs (app-*.mjs, serve.mjs), each run under
// `valgrind --tool=callgrind` with instrumentation off while it starts and warms up (V8 tiers up as usual: the JIT
// is measured as it runs in production), then on for a FIXED number of requests sent from this process (outside
// valgrind), then dumped. Reported: instructions (Ir) per request of the server process, all its threads (GC
// helpers, the libuv pool that gzips, V8's compiler threads), and the overheads (x - bare) / bare.
// Instructions are not time: a cache miss, a page fault or a GC pause costs far more than its instructions, and
// valgrind runs the threads one at a time. But the count does not move with the machine's load, so it ranks builds
// that wall-clock runs on a shared 2-core box cannot tell apart (10 points between runs of the same build there).
// Usage: pnpm --silent bench:sdk-callgrind [--variants bare,als,lantern-disabled,lantern,otel --warmup 2000
//        --requests 3000 --connections 4 --repeat 2 --node /path/to/node --out DIR --auto-only --top 25 --baseline DIR] > result.json
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { COMPILERS, growthOver, profileOf } from './callgrind-profile.mjs';
import { ask, watched } from './ipc.mjs';

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    variants: { type: 'string', default: 'bare,als,lantern-disabled,lantern,otel' },
    warmup: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '3000' },
    connections: { type: 'string', default: '4' },
    repeat: { type: 'string', default: '2' },
    // The node binary the servers run on (this script's own by default), e.g. a Node 24 from the npm registry.
    node: { type: 'string', default: process.execPath },
    // Extra flags for the servers' node, space-separated (V8 flags; none are used for the figures in docs/benchmarks.md).
    'node-flags': { type: 'string', default: '' },
    out: { type: 'string', default: join(os.tmpdir(), 'lantern-callgrind') },
    'auto-only': { type: 'boolean', default: false },
    // Another build of the library as the variant `baseline`, side by side with `lantern` in one run: the directory
    // of its dist (e.g. packages/sdk-node/dist of a worktree at an earlier commit, built).
    baseline: { type: 'string' },
    top: { type: 'string', default: '25' },
  },
});
const here = fileURLToPath(new URL('.', import.meta.url));
const log = (...a) => console.error('[sdk-callgrind]', ...a);
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
const variants = values.variants.split(',');
const warmup = Number(values.warmup);
const requests = Number(values.requests);
const connections = Number(values.connections);
const repeat = Number(values.repeat);
const top = Number(values.top);
const outDir = values.out;
const nodeFlags = values['node-flags'].split(' ').filter(Boolean);
mkdirSync(outDir, { recursive: true });

/** Starts `cmd args` with an IPC channel (valgrind keeps fd 3 open for node) and waits for `ready`. */
function startChild(cmd, args, env) {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return watched(child, args.at(-1));
}

/** `n` GET /hello over `connections` kept-alive sockets, each sending its next request when the last one answered. */
async function drive(port, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let left = n;
  let failures = 0;
  const one = () =>
    new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/hello', agent }, (res) => {
        if (res.statusCode !== 200) failures++;
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => (failures++, resolve()));
    });
  const loop = async () => {
    while (left-- > 0) await one();
  };
  await Promise.all(Array.from({ length: connections }, loop));
  agent.destroy();
  return failures;
}

const control = (...args) => execFileSync('callgrind_control', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

async function measure(sink, sinkPort, variant, round) {
  await ask(sink, 'reset');
  const base = join(outDir, `${variant}-r${round}`);
  const env = { ...process.env, NODE_ENV: 'production', SINK_URL: `http://127.0.0.1:${sinkPort}`, BENCH_CHILD_SPAN: values['auto-only'] ? '0' : '1', ...variantOf(variant).env };
  const valgrindArgs = ['--tool=callgrind', '--trace-children=no', '--instr-atstart=no', `--callgrind-out-file=${base}.%p.out`, `--log-file=${base}.%p.log`];
  const t0 = performance.now();
  const sdk = sdkBuild(); // per measurement: a build in the same work tree can change the dist between two of them
  const server = startChild('valgrind', [...valgrindArgs, values.node, ...nodeFlags, join(here, variantOf(variant).file)], env);
  const port = await server.ready;
  const pid = server.child.pid;
  const warmFailures = await drive(port, warmup);
  await new Promise((r) => setTimeout(r, 2000)); // background compile jobs and an export in flight settle
  control('--instr=on', String(pid));
  control('--zero', String(pid));
  const s0 = await ask(server.child, 'sample');
  const failures = await drive(port, requests);
  const s1 = await ask(server.child, 'sample');
  control('--dump', String(pid));
  control('--instr=off', String(pid));
  const stopped = await ask(server.child, 'stop', 'stopped');
  await server.exited;
  const sunk = await ask(sink, 'counts');
  const dump = readdirSync(outDir).filter((f) => f.startsWith(`${variant}-r${round}.${pid}.out.`)).sort().at(0);
  const served = s1.served - s0.served;
  const profile = profileOf(join(outDir, dump), served, top);
  return {
    variant,
    round,
    sdk,
    served,
    failures: warmFailures + failures,
    irPerRequest: profile.totalIrPerRequest,
    // Without V8's optimising compilers (still tiering up after the warm-up, at times that vary between runs).
    irPerRequestExclCompilers: profile.totalIrPerRequest - (profile.byCategory[COMPILERS] ?? 0),
    byCategory: profile.byCategory,
    profile,
    dump: join(outDir, dump),
    servedTotal: stopped.served,
    spansReceived: sunk.spans,
    requestsWithRootSpanPercent: sunk.roots === 0 && sunk.requests === 0 ? null : Math.round((sunk.roots / stopped.served) * 1000) / 10,
    wallSeconds: Math.round((performance.now() - t0) / 1000),
  };
}

function sdkBuild() {
  const dist = join(here, 'node_modules/@lantern/sdk-node/dist');
  const hash = createHash('sha256');
  for (const f of readdirSync(dist).filter((f) => f.endsWith('.js')).sort()) hash.update(readFileSync(join(dist, f)));
  return `dist sha256 ${hash.digest('hex').slice(0, 12)}`;
}

const nodeVersion = execFileSync(values.node, ['--version']).toString().trim();
const sinkProc = startChild(process.execPath, [join(here, 'sink.mjs')], process.env);
const sinkPort = await sinkProc.ready;
log(`${variants.join(', ')} x ${repeat} on node ${nodeVersion}: ${warmup} warm-up requests (not counted), then ${requests} counted, ${connections} connections; dumps in ${outDir}`);
const runs = [];
try {
  for (let r = 1; r <= repeat; r++) {
    for (const v of variants) {
      const m = await measure(sinkProc.child, sinkPort, v, r);
      runs.push(m);
      log(`round ${r} ${v.padEnd(16)} ${m.irPerRequest.toLocaleString('en')} Ir/request (${m.served} requests, ${m.failures} failed, root spans at the sink ${m.requestsWithRootSpanPercent ?? '-'} %, ${m.wallSeconds} s)`);
    }
  }
} finally {
  sinkProc.child.disconnect();
  await sinkProc.exited;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = {};
const spread = (xs) => Math.round(((Math.max(...xs) - Math.min(...xs)) / mean(xs)) * 1000) / 10;
for (const v of variants) {
  const mine = runs.filter((m) => m.variant === v);
  const xs = mine.map((m) => m.irPerRequest);
  const ys = mine.map((m) => m.irPerRequestExclCompilers);
  summary[v] = { irPerRequest: Math.round(mean(xs)), rounds: xs, spreadPercent: spread(xs), exclCompilers: Math.round(mean(ys)), exclCompilersRounds: ys, exclCompilersSpreadPercent: spread(ys) };
}
const ratio = (x) => Math.round(x * 1000) / 1000;
const overhead = {};
const overheadExclCompilers = {};
for (const v of summary.bare ? variants.filter((x) => x !== 'bare') : []) {
  overhead[v] = ratio((summary[v].irPerRequest - summary.bare.irPerRequest) / summary.bare.irPerRequest);
  overheadExclCompilers[v] = ratio((summary[v].exclCompilers - summary.bare.exclCompilers) / summary.bare.exclCompilers);
}
const lanternVsOtel = overhead.lantern !== undefined && overhead.otel ? ratio(overhead.lantern / overhead.otel) : null;
const lanternVsOtelExclCompilers = overhead.lantern !== undefined && overhead.otel ? ratio(overheadExclCompilers.lantern / overheadExclCompilers.otel) : null;
const byRoundOne = (v) => runs.find((m) => m.variant === v && m.round === 1);
const growth = {};
if (byRoundOne('bare')) for (const v of variants.filter((x) => x !== 'bare')) growth[v] = growthOver(byRoundOne('bare').profile, byRoundOne(v).profile, top);

const cpus = os.cpus();
console.log(
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, node (servers) ${nodeVersion}, ${os.platform()} ${os.release()}`,
      sdk: [...new Set(runs.map((m) => m.sdk))].join(' then '),
      settings: { variants, warmup, requests, connections, repeat, childSpan: !values['auto-only'], valgrind: execFileSync('valgrind', ['--version']).toString().trim() },
      summary,
      overhead,
      lanternVsOtel,
      overheadExclCompilers,
      lanternVsOtelExclCompilers,
      runs: runs.map(({ profile, ...m }) => ({ ...m, topSelf: profile.topSelf })),
      growthOverBare: growth,
    },
    null,
    2,
  ),
);

const pct = (x) => (x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);
const lines = [
  `| variant | Ir/request (mean) | per round | spread | overhead vs bare | excl. JIT compilers | per round | spread | overhead vs bare |`,
  '|---|---:|---|---:|---:|---:|---|---:|---:|',
  ...variants.map((v) => {
    const s = summary[v];
    const fmt = (xs) => xs.map((x) => x.toLocaleString('en')).join(' / ');
    return `| ${v} | ${s.irPerRequest.toLocaleString('en')} | ${fmt(s.rounds)} | ${s.spreadPercent} % | ${v === 'bare' ? '—' : pct(overhead[v])} | ${s.exclCompilers.toLocaleString('en')} | ${fmt(s.exclCompilersRounds)} | ${s.exclCompilersSpreadPercent} % | ${v === 'bare' ? '—' : pct(overheadExclCompilers[v])} |`;
  }),
];
if (new Set(runs.map((m) => m.sdk)).size > 1) log(`WARNING: the SDK's dist changed during the run (${[...new Set(runs.map((m) => m.sdk))].join(', ')}): measure again`);
console.error(`\n${lines.join('\n')}\n${lanternVsOtel === null ? '' : `Lantern's overhead / OpenTelemetry's: ${lanternVsOtel} (excluding the JIT compilers: ${lanternVsOtelExclCompilers})\n`}`);
for (const [v, g] of Object.entries(growth)) {
  console.error(`${v}: self Ir per request grown most over bare (round 1)`);
  for (const t of g.slice(0, 12)) console.error(`  ${String(t.irPerRequest).padStart(8)}  ${t.fn}`);
}
