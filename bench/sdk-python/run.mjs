#!/usr/bin/env node
// bench/sdk-python: the CPU that Lantern's Python client library (packages/sdk-python) adds to a Flask request,
// against OpenTelemetry Python's, in one run. The same Flask app (app.py: GET /hello -> {"hello":"world"}) is
// served by gunicorn (1 worker process, gthread worker, keep-alive; gunicorn.conf.py) in three variants:
//   bare     Flask only
//   lantern  app.wsgi_app = lantern.wsgi(app.wsgi_app), every option at its default
//   otel     FlaskInstrumentor + TracerProvider + BatchSpanProcessor (defaults) + OTLP/HTTP protobuf exporter
// Each measurement starts a fresh server (OTel patches process-wide), warms it up, then loads it for --seconds
// with autocannon (--connections keep-alive connections, no pipelining); the rounds are interleaved and the order
// rotates each round (bare, lantern, otel / lantern, otel, bare / ...), so that drift hits every variant. The
// server's CPU is utime+stime of the gunicorn master and its worker (every thread: the request threads and the
// SDK's export thread) from /proc/<pid>/stat over the measured load, divided by the requests answered. Both SDKs
// export during the load to a sink in its own process (sink.mjs), which counts the spans; a variant that exports
// nothing is an error. With taskset the server (master, worker and all their threads) runs on CPU 0, this process
// (autocannon) and the sink on CPU 1.
// Reports per variant the medians over rounds of requests/s, p99 and server CPU µs per request, the CPU µs added
// per request over bare, and lantern_added / otel_added (goal <= 0.5), as a Markdown table on stdout (progress on
// stderr; --json FILE keeps every figure).
// Usage: node bench/sdk-python/run.mjs [--seconds 15 --rounds 3 --connections 16 --port 0 --warmup 3 --threads 4
//        --variants bare,lantern,otel --child-span --min-server-cpu 85 --json FILE]
//        node bench/sdk-python/run.mjs --profile DIR [--profile-requests 30000 --top 15 --variants ... --child-span]
//        (where the time goes: the app called in-process by profile.py, without a server, timed and sampled by py-spy)
// The Python side lives in a virtualenv made once under ~/.cache/lantern-sdk-python-bench/<hash of
// requirements.txt>; the library is installed into it from packages/sdk-python on every run. autocannon is the
// one of bench/sdk-overhead (the repository must have been installed: pnpm install). Linux only (/proc).
import { execFileSync, fork, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ask, watched } from '../sdk-overhead/ipc.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const log = (...a) => console.error('[sdk-python]', ...a);

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === '--' ? argv.slice(1) : argv,
  options: {
    seconds: { type: 'string', default: '15' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    // The server's port on 127.0.0.1; 0: a free one, chosen once.
    port: { type: 'string', default: '0' },
    warmup: { type: 'string', default: '3' },
    // gunicorn's gthread pool size (one worker process in every case).
    threads: { type: 'string', default: '4' },
    variants: { type: 'string', default: 'bare,lantern,otel' },
    // One manual child span around the route's work in the lantern and otel variants (two spans per request).
    'child-span': { type: 'boolean', default: false },
    // A measurement whose server got less of its core than this (another process took it) is repeated.
    'min-server-cpu': { type: 'string', default: '85' },
    json: { type: 'string' },
    // Instead of the load rounds: the app called in-process (profile.py, no server), its CPU per request timed, then
    // sampled with py-spy into DIR; prints where each variant's time goes per request.
    profile: { type: 'string' },
    'profile-requests': { type: 'string', default: '30000' },
    top: { type: 'string', default: '15' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const threads = Number(values.threads);
const variants = values.variants.split(',');
const childSpan = values['child-span'];
const minServerCpu = Number(values['min-server-cpu']);
const MAX_ATTEMPTS = 3;
const profileDir = values.profile;
const PROFILE_RATE = 500; // py-spy's samples per second
// lantern-disabled (a diagnostic, not run by default): Lantern(enabled=False), the middleware's request path without
// recording or export; it sends nothing, like bare.
const EXPORTS = { bare: false, 'lantern-disabled': false, lantern: true, otel: true };
for (const v of variants) if (!(v in EXPORTS)) throw new Error(`unknown variant ${v}`);
if (!(seconds > 0 && rounds >= 1 && connections >= 1 && warmup >= 0 && threads >= 1)) throw new Error('bad option value');

const autocannon = createRequire(join(root, 'bench', 'sdk-overhead', 'package.json'))('autocannon');

// ---- the virtualenv ----------------------------------------------------------------------------------------------
function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 2], ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** The cached virtualenv with requirements.txt (a full pip freeze, installed with --no-deps); its python. */
function virtualenv() {
  const requirements = join(here, 'requirements.txt');
  const hash = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const dir = join(process.env.XDG_CACHE_HOME ?? join(os.homedir(), '.cache'), 'lantern-sdk-python-bench', hash);
  const python = join(dir, 'bin', 'python');
  const done = join(dir, '.installed'); // written last: a virtualenv whose install was cut short is made again
  if (existsSync(done)) return python;
  log(`Installing bench/sdk-python/requirements.txt into ${dir} (once)...`);
  rmSync(dir, { recursive: true, force: true });
  run(process.env.PYTHON ?? 'python3', ['-m', 'venv', dir]);
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '-r', requirements]);
  writeFileSync(done, '');
  return python;
}

/** Installs packages/sdk-python (from a copy: the build writes beside the sources); returns what was installed. */
function installLantern(python) {
  const pkg = join(root, 'packages', 'sdk-python');
  const work = mkdtempSync(join(os.tmpdir(), 'lantern-sdk-python-bench-'));
  try {
    const source = join(work, 'src');
    cpSync(pkg, source, { recursive: true, filter: (p) => !/(^|\/)(build|dist|tests|__pycache__|[^/]*\.egg-info)$/.test(p.slice(pkg.length)) });
    run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--no-build-isolation', '--force-reinstall', source]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const dir = join(pkg, 'lantern');
  const hash = createHash('sha256');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.py')).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  const version = readFileSync(join(pkg, 'pyproject.toml'), 'utf8').match(/^version\s*=\s*"([^"]+)"/m)?.[1];
  return `lantern-sdk ${version}, sources sha256 ${hash.digest('hex').slice(0, 12)}`;
}

// ---- CPU pinning and /proc ---------------------------------------------------------------------------------------
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
if (pin) execFileSync('taskset', ['-a', '-p', '-c', LOADGEN_CPU, String(process.pid)], { stdio: 'ignore' });
const pinning = pin
  ? `server (gunicorn master, worker, all threads) on CPU ${SERVER_CPU}; autocannon (this process) and the sink on CPU ${LOADGEN_CPU} (taskset)`
  : 'none (taskset not found or fewer than 2 CPUs): server, autocannon and sink share the CPUs';
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of one process (all its threads, live and exited), in seconds. */
function processCpu(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 (state)
  return (Number(f[11]) + Number(f[12])) / TICKS; // fields 14 and 15
}

/** Busy and steal seconds of one CPU so far, from /proc/stat. */
function coreTimes(cpu) {
  const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${cpu} `));
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: (user + nice + system + irq + softirq + steal) / TICKS, steal: steal / TICKS };
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

// ---- processes ---------------------------------------------------------------------------------------------------
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function startSink() {
  const child = pin
    ? spawn('taskset', ['-c', LOADGEN_CPU, process.execPath, join(here, 'sink.mjs')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : fork(join(here, 'sink.mjs'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return watched(child, 'the sink');
}

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function get(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/hello', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(2000, () => req.destroy());
  });
}

/** Starts gunicorn (pinned) for one variant and waits until its worker answers GET /hello. */
async function startServer(python, variant, port, sinkPort, statsFile) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OTEL_|LANTERN_)/.test(k)));
  Object.assign(env, {
    BENCH_VARIANT: variant,
    BENCH_SINK_URL: `http://127.0.0.1:${sinkPort}`,
    BENCH_BIND: `127.0.0.1:${port}`,
    BENCH_THREADS: String(threads),
    BENCH_CHILD_SPAN: childSpan ? '1' : '0',
    BENCH_STATS_FILE: statsFile,
    PYTHONDONTWRITEBYTECODE: '1', // no __pycache__ beside app.py in the checkout
    PYTHONUNBUFFERED: '1',
  });
  const args = ['-m', 'gunicorn', '-c', join(here, 'gunicorn.conf.py'), 'app:app'];
  const child = pin
    ? spawn('taskset', ['-c', SERVER_CPU, python, ...args], { cwd: here, env, stdio: ['ignore', 'inherit', 'inherit'] })
    : spawn(python, args, { cwd: here, env, stdio: ['ignore', 'inherit', 'inherit'] });
  let exit = null;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exit = { code, signal }))));
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (exit) throw new Error(`gunicorn (${variant}) exited (${exit.code ?? exit.signal}) before it answered`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gunicorn (${variant}) did not answer GET /hello within 60 s`);
    }
    if ((await get(port)) === 200) break;
    await sleep(100);
  }
  const workers = childrenOf(child.pid);
  if (workers.length !== 1) throw new Error(`gunicorn (${variant}): expected 1 worker, found ${workers.length}`);
  return { child, exited, pid: child.pid, worker: workers[0] };
}

/** SIGTERM to the master: gunicorn stops gracefully, the worker's worker_exit hook flushes the SDK. */
async function stopServer(server) {
  server.child.kill('SIGTERM');
  const killer = setTimeout(() => server.child.kill('SIGKILL'), 60_000);
  const exit = await server.exited;
  clearTimeout(killer);
  return exit;
}

/**
 * Where the time of profile.py's loop went, from py-spy's raw stacks (`frame;frame;... count`, root first) taken with
 * --gil (only the thread holding the GIL is sampled, so a thread waiting is not counted; C code that releases the
 * GIL, such as zlib and socket calls, is not seen either). Each sample is charged to the nearest frame (from the leaf
 * up) in Lantern (site-packages/lantern), OpenTelemetry (site-packages/opentelemetry), Flask/Werkzeug, app.py or
 * profile.py (the driver loop); the standard library and other packages (json, uuid, gzip, http.client, requests,
 * protobuf...) count for whoever called them. The main thread's samples are turned into µs per request with its
 * CPU time measured without the profiler (shares); the other threads' (the SDK's export) are shown as sampled
 * (samples / rate / requests). Also the self time of each function (the leaf), to compare with bare.
 */
function summariseProfile(file, requests, mainUsPerRequest, top) {
  const ownerOf = (path) =>
    /\/site-packages\/lantern\//.test(path) ? 'lantern'
      : /\/site-packages\/opentelemetry\//.test(path) ? 'otel'
        : /\/site-packages\/(flask|werkzeug)\//.test(path) ? 'flask'
          : path === join(here, 'app.py') ? 'app'
            : path === join(here, 'profile.py') ? 'driver' : undefined;
  const short = (frame) => frame.replace(/\/[^ (]*\/site-packages\//, '').replace(/\/[^ (]*\/lib\/python3\.\d+\//, '').replace(`${here}/`, '');
  const threads = { main: { samples: 0, charged: {}, self: new Map() }, other: { samples: 0, charged: {}, self: new Map() } };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const cut = line.lastIndexOf(' ');
    if (cut <= 0) continue;
    const count = Number(line.slice(cut + 1));
    const frames = line.slice(0, cut).split(';');
    const leaf = short(frames[frames.length - 1]);
    if (/^wait \(profile\.py/.test(leaf)) continue; // the handshake, outside the loop
    const t = frames[0].startsWith('Thread._bootstrap ') ? threads.other : threads.main;
    t.samples += count;
    let owner = 'other';
    for (let i = frames.length - 1; i >= 0; i--) {
      const o = ownerOf(frames[i].match(/\((.*):\d+\)$/)?.[1] ?? '');
      if (o) {
        owner = o;
        break;
      }
    }
    t.charged[owner] = (t.charged[owner] ?? 0) + count;
    const key = `${owner === 'lantern' || owner === 'otel' ? `[${owner}] ` : ''}${leaf}`;
    t.self.set(key, (t.self.get(key) ?? 0) + count);
  }
  const mainUs = (n) => (threads.main.samples ? (n / threads.main.samples) * mainUsPerRequest : 0);
  const otherUs = (n) => ((n / PROFILE_RATE) * 1e6) / requests;
  const view = (t, us) => ({
    samples: t.samples,
    chargedUsPerRequest: Object.fromEntries(Object.entries(t.charged).sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, round1(us(n))])),
    topSelf: [...t.self].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, n]) => ({ fn, usPerRequest: round1(us(n)) })),
    selfUsPerRequest: new Map([...t.self].map(([k, n]) => [k, us(n)])),
  });
  return { file, main: view(threads.main, mainUs), exportThread: view(threads.other, otherUs) };
}

/** One run of profile.py for a variant (pinned to the server's CPU); with `spyFile`, py-spy samples its loop. */
async function profileRun(variant, requests, spyFile) {
  await ask(ctx.sink, 'reset');
  const statsFile = join(ctx.tmp, `profile-${variant}.json`);
  rmSync(statsFile, { force: true });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OTEL_|LANTERN_)/.test(k)));
  Object.assign(env, {
    BENCH_VARIANT: variant,
    BENCH_SINK_URL: `http://127.0.0.1:${ctx.sinkPort}`,
    BENCH_CHILD_SPAN: childSpan ? '1' : '0',
    BENCH_STATS_FILE: statsFile,
    BENCH_HANDSHAKE: spyFile ? '1' : '0',
    PYTHONDONTWRITEBYTECODE: '1',
  });
  const args = [join(here, 'profile.py'), String(requests), String(Math.max(2000, requests / 10))];
  const child = pin
    ? spawn('taskset', ['-c', SERVER_CPU, ctx.python, ...args], { cwd: here, env, stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn(ctx.python, args, { cwd: here, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let waiting;
  let buffered = '';
  child.stdout.on('data', (d) => {
    buffered += d;
    for (let i = buffered.indexOf('\n'); i !== -1; i = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
      waiting?.();
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const line = async (word) => {
    while (!lines.includes(word)) {
      const gone = await Promise.race([new Promise((r) => (waiting = () => r(false))), exited.then(() => true)]);
      if (gone && !lines.includes(word)) throw new Error(`profile.py (${variant}) exited before "${word}"`);
    }
  };
  if (spyFile) {
    await line('warm');
    const spy = join(dirname(ctx.python), 'py-spy');
    const spyArgs = ['record', '--pid', String(child.pid), '--rate', String(PROFILE_RATE), '--gil', '--function', '--full-filenames', '--format', 'raw', '--output', spyFile];
    const recorder = pin ? spawn('taskset', ['-c', LOADGEN_CPU, spy, ...spyArgs], { stdio: ['ignore', 'ignore', 'ignore'] }) : spawn(spy, spyArgs, { stdio: ['ignore', 'ignore', 'ignore'] });
    const recorded = new Promise((resolve) => recorder.once('exit', resolve));
    await sleep(500); // py-spy attaches
    child.stdin.write('\n');
    await line('done');
    recorder.kill('SIGINT'); // py-spy writes its file on SIGINT
    await recorded;
    if (!existsSync(spyFile)) throw new Error(`py-spy wrote no ${spyFile}`);
    child.stdin.write('\n');
  }
  const code = await exited;
  if (code !== 0) throw new Error(`profile.py (${variant}) exited ${code}`);
  const result = JSON.parse(lines.at(-1));
  const sunk = await ask(ctx.sink, 'counts');
  result.spansReceived = sunk.spans;
  if (EXPORTS[variant] && sunk.spans === 0) throw new Error(`profile.py (${variant}): no span reached the sink`);
  return result;
}

/** --profile: the SDKs' cost without a server (profile.py), timed three times, then sampled once with py-spy. */
async function profileMode(requests, top) {
  mkdirSync(profileDir, { recursive: true });
  const profiles = {};
  for (const v of variants) {
    const timings = [];
    for (let i = 0; i < 3; i++) timings.push(await profileRun(v, requests));
    const med = (key) => round1(median(timings.map((t) => t[key])));
    const measured = { cpuUsPerRequest: med('cpuUsPerRequest'), mainThreadUsPerRequest: med('mainThreadUsPerRequest'), otherThreadsUsPerRequest: med('otherThreadsUsPerRequest') };
    log(`profile ${v}: ${timings.map((t) => `${t.cpuUsPerRequest.toFixed(1)} (main ${t.mainThreadUsPerRequest.toFixed(1)})`).join(' / ')} µs CPU per request in-process; spans at the sink ${timings.map((t) => `${t.spansReceived}/${t.served}`).join(', ')}`);
    const file = join(profileDir, `${v}.txt`);
    await profileRun(v, requests, file);
    profiles[v] = { ...measured, timings, ...summariseProfile(file, requests, measured.mainThreadUsPerRequest, top) };
  }
  for (const [v, p] of Object.entries(profiles)) {
    if (profiles.bare && v !== 'bare') {
      const b = profiles.bare;
      p.added = {
        cpuUsPerRequest: round1(p.cpuUsPerRequest - b.cpuUsPerRequest),
        mainThreadUsPerRequest: round1(p.mainThreadUsPerRequest - b.mainThreadUsPerRequest),
        otherThreadsUsPerRequest: round1(p.otherThreadsUsPerRequest - b.otherThreadsUsPerRequest),
      };
      const base = b.main.selfUsPerRequest;
      p.main.topSelfGrownOverBare = [...p.main.selfUsPerRequest]
        .map(([fn, x]) => ({ fn, usPerRequest: round1(x - (base.get(fn) ?? 0)) }))
        .sort((x, y) => y.usPerRequest - x.usPerRequest)
        .slice(0, top);
    }
  }
  for (const p of Object.values(profiles)) {
    delete p.main.selfUsPerRequest;
    delete p.exportThread.selfUsPerRequest;
  }
  const charged = (c) => Object.entries(c).map(([k, x]) => `${k} ${x}`).join(', ');
  const out = [
    `bench/sdk-python --profile, ${new Date().toISOString()}: the Flask app called in-process (profile.py: ${requests} GET /hello after a warm-up, no server, no sockets but the SDK's own), ${childSpan ? 'one child span per request' : 'one span per request'}; ${pythonVersion}; ${sdk}`,
    '',
    `CPU per request: medians of 3 runs without the profiler (time.process_time for the process, time.thread_time for the main thread, which runs the requests; the rest is the SDK's export thread). Split: py-spy --gil at ${PROFILE_RATE} samples/s on one more run, each sample charged to the nearest Lantern / OpenTelemetry / Flask+Werkzeug / app.py / driver frame from the leaf up; main-thread shares scaled to its measured CPU, export-thread samples as sampled (C code that releases the GIL, zlib and socket calls, is not sampled).`,
    '',
    '| variant | process CPU µs/req | added vs bare | main thread µs/req | added | export thread µs/req | added |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(profiles).map(([v, p]) => `| ${v} | ${p.cpuUsPerRequest} | ${p.added ? `+${p.added.cpuUsPerRequest}` : '—'} | ${p.mainThreadUsPerRequest} | ${p.added ? `+${p.added.mainThreadUsPerRequest}` : '—'} | ${p.otherThreadsUsPerRequest} | ${p.added ? `+${p.added.otherThreadsUsPerRequest}` : '—'} |`),
  ];
  for (const [v, p] of Object.entries(profiles)) {
    out.push(
      '',
      `**${v}**: main thread ${p.mainThreadUsPerRequest} µs/request (${charged(p.main.chargedUsPerRequest)}; ${p.main.samples} samples)` +
        (p.exportThread.samples ? `; export thread sampled ${charged(p.exportThread.chargedUsPerRequest)} of its ${p.otherThreadsUsPerRequest} µs/request (${p.exportThread.samples} samples)` : ''),
      '',
    );
    if (p.main.topSelfGrownOverBare) out.push('- main thread, self time grown most over bare (µs/request):', ...p.main.topSelfGrownOverBare.map((t) => `  - ${t.usPerRequest} ${t.fn}`));
    else out.push('- main thread, self time (µs/request):', ...p.main.topSelf.map((t) => `  - ${t.usPerRequest} ${t.fn}`));
    if (p.exportThread.samples) out.push('- export thread, self time sampled (µs/request):', ...p.exportThread.topSelf.map((t) => `  - ${t.usPerRequest} ${t.fn}`));
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ date: new Date().toISOString(), software: pythonVersion, sdk, requests, profiles }, null, 2)}\n`);
  console.log(out.join('\n'));
}

// ---- load ----------------------------------------------------------------------------------------------------------
async function load(port, duration) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}/hello`, connections, duration, pipelining: 1 });
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    seconds: result.duration,
    failures: result.non2xx + result.errors + result.timeouts,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

// ---- one measurement -------------------------------------------------------------------------------------------
const round1 = (x) => Math.round(x * 10) / 10;
const round3 = (x) => Math.round(x * 1000) / 1000;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function measure({ python, sink, sinkPort, port, tmp }, variant, round, attempt) {
  await ask(sink, 'reset');
  const statsFile = join(tmp, `${variant}-r${round}-a${attempt}.json`);
  const server = await startServer(python, variant, port, sinkPort, statsFile);
  let run;
  let window;
  try {
    if (warmup > 0) await load(port, warmup);
    const k0 = await ask(sink, 'counts');
    const c0 = processCpu(server.pid) + processCpu(server.worker);
    const core0 = pin ? coreTimes(SERVER_CPU) : undefined;
    const l0 = process.cpuUsage();
    const t0 = performance.now();
    run = await load(port, seconds);
    const elapsed = (performance.now() - t0) / 1000;
    const l1 = process.cpuUsage(l0);
    const core1 = pin ? coreTimes(SERVER_CPU) : undefined;
    const c1 = processCpu(server.pid) + processCpu(server.worker);
    const k1 = await ask(sink, 'counts');
    window = { elapsed, cpu: c1 - c0, core0, core1, loadgen: (l1.user + l1.system) / 1e6, k0, k1 };
  } finally {
    await stopServer(server);
  }
  const total = await ask(sink, 'counts');
  const stats = existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')) : null;
  const { elapsed, cpu, core0, core1, k0, k1 } = window;
  const windowSpans = k1.spans - k0.spans;
  return {
    variant,
    round,
    reqPerSec: round1(run.requests / run.seconds),
    requests: run.requests,
    failures: run.failures,
    p50Ms: run.p50Ms,
    p99Ms: run.p99Ms,
    serverCpuUsPerRequest: round1((cpu * 1e6) / run.requests),
    serverCpuPercent: round1((cpu / elapsed) * 100),
    serverCoreOtherPercent: core0 ? round1(Math.max(0, ((core1.busy - core0.busy - cpu) / elapsed) * 100)) : null,
    serverCoreStealPercent: core0 ? round1(((core1.steal - core0.steal) / elapsed) * 100) : null,
    loadgenCpuPercent: round1((window.loadgen / elapsed) * 100),
    sinkCpuPercent: round1(((k1.cpu.user + k1.cpu.system - k0.cpu.user - k0.cpu.system) / 1e6 / elapsed) * 100),
    // Exported during the measured load (so its cost is in the CPU figure): spans and export requests.
    windowSpans,
    windowExports: k1.requests - k0.requests,
    windowSpansPerRequest: round3(windowSpans / run.requests),
    // Over the server's whole life (warm-up and readiness probes included), after its flush at exit.
    served: stats?.served ?? null,
    spansReceived: total.spans,
    rootSpansReceived: total.roots,
    spansPerServedRequest: stats?.served ? round3(total.spans / stats.served) : null,
    exportRequests: total.requests,
    exportMiB: round3(total.bytes / 2 ** 20),
    sinkRefused: total.bad + total.other,
    flushMs: stats?.flushMs ?? null,
    sdkStats: stats?.telemetry ?? null,
  };
}

/** A variant that exports nothing is an error, not a result; so is one whose export missed the measured load. */
function check(m) {
  const problems = [];
  const spansPerRequest = childSpan ? 2 : 1;
  if (m.served === null) problems.push('the worker wrote no stats at exit (worker_exit did not run)');
  if (!EXPORTS[m.variant]) {
    if (m.spansReceived > 0) problems.push(`${m.variant} sent ${m.spansReceived} spans`);
  } else {
    if (m.spansReceived === 0) problems.push('no span reached the sink');
    else if (m.windowSpans === 0) problems.push('no span was exported during the measured load (only at exit): its export cost is not in the CPU figure');
    if (m.rootSpansReceived > 0 && m.spansReceived !== m.rootSpansReceived * spansPerRequest) {
      problems.push(`${m.spansReceived} spans for ${m.rootSpansReceived} root spans (expected ${spansPerRequest} per request)`);
    }
  }
  if (m.sinkRefused > 0) problems.push(`the sink refused ${m.sinkRefused} requests`);
  if (m.failures > 0) problems.push(`${m.failures} requests failed (non-2xx, errors, timeouts)`);
  return problems;
}

// ---- main ----------------------------------------------------------------------------------------------------------
const python = virtualenv();
const sdk = installLantern(python);
const pythonVersion = execFileSync(
  python,
  ['-c', 'import sys; from importlib.metadata import version as v; print(f"Python {sys.version.split()[0]}, " + ", ".join(f"{p} {v(p)}" for p in ("gunicorn", "Flask", "opentelemetry-sdk", "opentelemetry-instrumentation-flask")))'],
  { encoding: 'utf8' },
).trim();
const port = Number(values.port) || (await freePort());
const sinkProc = startSink();
const sinkPort = await sinkProc.ready;
const tmp = mkdtempSync(join(os.tmpdir(), 'lantern-sdk-python-bench-run-'));
const ctx = { python, sink: sinkProc.child, sinkPort, port, tmp };
if (profileDir) {
  try {
    await profileMode(Number(values['profile-requests']), Number(values.top));
  } finally {
    sinkProc.child.disconnect();
    await sinkProc.exited;
    rmSync(tmp, { recursive: true, force: true });
  }
  process.exit(0);
}
const loadAtStart = os.loadavg().map(round1);
const startedAt = new Date();
const started = performance.now();
log(`${variants.join(', ')} x ${rounds} rounds, ${seconds} s each after ${warmup} s warm-up, ${connections} connections, gunicorn 1 gthread worker x ${threads} threads, ${childSpan ? 'one child span' : 'no child span'}; pinning: ${pinning}; load average ${loadAtStart.join(' ')}`);
log(`${pythonVersion}; ${sdk}`);

const runs = [];
const discarded = [];
const errors = [];
try {
  for (let r = 1; r <= rounds; r++) {
    const order = variants.map((_, i) => variants[(i + r - 1) % variants.length]);
    for (const v of order) {
      let m;
      for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
        m = await measure(ctx, v, r, attempt);
        if (m.serverCpuPercent >= minServerCpu || attempt === MAX_ATTEMPTS) break;
        log(`round ${r} ${v}: discarded (${m.reqPerSec} req/s, the server had ${m.serverCpuPercent}% of its CPU, other processes ${m.serverCoreOtherPercent ?? '?'}%); again`);
        discarded.push(m);
        await sleep(10_000);
      }
      m.starved = m.serverCpuPercent < minServerCpu;
      m.problems = check(m);
      runs.push(m);
      log(`round ${r} ${v.padEnd(7)} ${String(m.reqPerSec).padStart(7)} req/s  p99 ${m.p99Ms} ms  server ${m.serverCpuUsPerRequest} µs/req (${m.serverCpuPercent}% of a core, others on it ${m.serverCoreOtherPercent ?? '?'}%)  loadgen ${m.loadgenCpuPercent}%  sink ${m.sinkCpuPercent}%  spans: ${m.windowSpans} in ${m.windowExports} exports during the load, ${m.spansReceived} for ${m.served} requests in all${m.failures ? `  FAILED REQUESTS ${m.failures}` : ''}`);
      for (const p of m.problems) {
        log(`round ${r} ${v}: ERROR: ${p}`);
        errors.push(`round ${r} ${v}: ${p}`);
      }
      await sleep(1000);
    }
  }
} finally {
  sinkProc.child.disconnect();
  await sinkProc.exited;
  rmSync(tmp, { recursive: true, force: true });
}

// ---- summary -------------------------------------------------------------------------------------------------------
const clean = (ms) => (ms.some((m) => !m.starved) ? ms.filter((m) => !m.starved) : ms);
const summary = {};
for (const v of variants) {
  const all = runs.filter((m) => m.variant === v);
  const mine = clean(all);
  summary[v] = {
    measurements: mine.length,
    reqPerSec: median(mine.map((m) => m.reqPerSec)),
    p99Ms: median(mine.map((m) => m.p99Ms)),
    cpuUsPerRequest: median(mine.map((m) => m.serverCpuUsPerRequest)),
    windowSpansPerRequest: median(mine.map((m) => m.windowSpansPerRequest)),
    spansPerServedRequest: median(mine.map((m) => m.spansPerServedRequest ?? 0)),
  };
}
const added = {};
if (summary.bare) {
  for (const v of variants.filter((x) => x !== 'bare')) {
    const perRound = runs
      .filter((m) => m.variant === v)
      .map((m) => {
        const b = runs.find((x) => x.variant === 'bare' && x.round === m.round);
        return b && !b.starved && !m.starved ? round1(m.serverCpuUsPerRequest - b.serverCpuUsPerRequest) : null;
      });
    const paired = perRound.filter((x) => x !== null);
    added[v] = {
      cpuUsPerRequest: round1(summary[v].cpuUsPerRequest - summary.bare.cpuUsPerRequest),
      cpuUsPerRequestPerRound: perRound,
      cpuUsPerRequestPairedMedian: paired.length ? round1(median(paired)) : null,
      reqPerSecLoss: round3((summary.bare.reqPerSec - summary[v].reqPerSec) / summary.bare.reqPerSec),
    };
  }
}
let goal = null;
if (added.lantern && added.otel) {
  const ratio = added.otel.cpuUsPerRequest > 0 ? round3(added.lantern.cpuUsPerRequest / added.otel.cpuUsPerRequest) : null;
  const pl = added.lantern.cpuUsPerRequestPairedMedian;
  const po = added.otel.cpuUsPerRequestPairedMedian;
  goal = {
    ratio,
    pairedRatio: pl !== null && po ? round3(pl / po) : null,
    met: ratio !== null && ratio <= 0.5,
  };
}

const cpus = os.cpus();
const result = {
  date: startedAt.toISOString(),
  machine: `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, node ${process.version}`,
  software: pythonVersion,
  sdk,
  settings: { seconds, warmup, rounds, connections, threads, childSpan, variants, port, minServerCpu, pinning, loadAverageAtStart: loadAtStart },
  totalSeconds: Math.round((performance.now() - started) / 1000),
  loadAverageAtEnd: os.loadavg().map(round1),
  summary,
  added,
  goal,
  errors,
  runs,
  discarded,
};
if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);

const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }));
const perRound = (v, key, d = 0) => runs.filter((m) => m.variant === v).map((m) => `${fmt(m[key], d)}${m.starved ? '*' : ''}`).join(' / ');
const out = [
  `bench/sdk-python, ${result.date} (${result.totalSeconds} s)`,
  '',
  `- Machine: ${result.machine}; load average ${loadAtStart.join(' ')} at the start, ${result.loadAverageAtEnd.join(' ')} at the end`,
  `- ${pythonVersion}; ${sdk}`,
  `- ${rounds} rounds x ${variants.length} variants, ${seconds} s each after ${warmup} s warm-up (order rotating), autocannon ${connections} keep-alive connections; gunicorn 1 gthread worker x ${threads} threads; ${childSpan ? 'one manual child span per request' : 'automatic instrumentation only (one span per request)'}; pinning: ${pinning}`,
  '',
  '| variant | req/s (median) | req/s per round | p99 ms | server CPU µs/req (median) | CPU µs/req per round | CPU added vs bare, µs/req (paired by round) | req/s vs bare | spans per request exported during the load | spans at the sink per request served |',
  '|---|---:|---|---:|---:|---|---:|---:|---:|---:|',
  ...variants.map((v) => {
    const s = summary[v];
    const a = added[v];
    return `| ${v} | ${fmt(s.reqPerSec)} | ${perRound(v, 'reqPerSec')} | ${fmt(s.p99Ms)} | ${fmt(s.cpuUsPerRequest)} | ${perRound(v, 'serverCpuUsPerRequest')} | ${a ? `+${fmt(a.cpuUsPerRequest)} (${fmt(a.cpuUsPerRequestPairedMedian)})` : '—'} | ${a ? `${a.reqPerSecLoss > 0 ? '−' : '+'}${fmt(Math.abs(a.reqPerSecLoss) * 100, 1)} %` : '—'} | ${EXPORTS[v] ? fmt(s.windowSpansPerRequest, 3) : '—'} | ${EXPORTS[v] ? fmt(s.spansPerServedRequest, 3) : '—'} |`;
  }),
  '',
];
if (runs.some((m) => m.starved)) out.push('\\* the server had less than ' + minServerCpu + ' % of its core (other processes): left out of the medians', '');
if (goal) {
  out.push(
    `Lantern adds ${fmt(added.lantern.cpuUsPerRequest)} µs of server CPU per request, OpenTelemetry ${fmt(added.otel.cpuUsPerRequest)} µs: ` +
      `ratio ${fmt(goal.ratio, 2)} (paired by round: ${fmt(goal.pairedRatio, 2)}). Goal ≤ 0.5: **${goal.met ? 'met' : 'not met'}**.`,
  );
}
if (errors.length) out.push('', `**ERRORS** (the figures above are not a result):`, ...errors.map((e) => `- ${e}`));
console.log(out.join('\n'));
if (errors.length) process.exitCode = 1;
