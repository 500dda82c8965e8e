#!/usr/bin/env node
// nginx from Debian in front of services started on 127.0.0.1 ports, with the project's own gateway/nginx.conf:
//   node scripts/infra/nginx.mjs start --upstreams '{"accounts":["127.0.0.1:18101"],"ingest":[...],...}' [--port 18080]
//   node scripts/infra/nginx.mjs reload --upstreams '...'   |   stop   |   status
// The config is copied verbatim into .infra/nginx/ beside a generated upstreams.conf; only its `listen 8080`
// lines are changed to the test port and its `root` (the console's files) to the checkout's packages/console/dist.
// Installs the `nginx` package with apt when it is missing (as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, isAlive, log, main, portFrom, readPid, startDetached, stateDir, stopDetached, waitForPort, writeEndpoint } from './lib.mjs';

const NAME = 'nginx';
const SERVICES = ['accounts', 'ingest', 'query', 'ai'];

function nginxBinary() {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(candidate)) return candidate;
  log(NAME, 'nginx is not installed: apt-get install nginx');
  const apt = (args) => execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', '--no-install-recommends', 'nginx']);
  // The package starts a system nginx on port 80; the project's own runs beside it, but stop that one.
  spawnSync('service', ['nginx', 'stop'], { stdio: 'ignore' });
  return '/usr/sbin/nginx';
}

function upstreamsConf(upstreams) {
  const missing = SERVICES.filter((s) => !Array.isArray(upstreams[s]) || upstreams[s].length === 0);
  if (missing.length) throw new Error(`--upstreams lacks ${missing.join(', ')}`);
  return SERVICES.map((s) => `upstream ${s} {\n${upstreams[s].map((a) => `  server ${a} max_fails=1 fail_timeout=2s;\n`).join('')}  keepalive 16;\n  keepalive_timeout 60s;\n}\n`).join('');
}

/** Copies gateway/nginx.conf beside the upstreams and checks the result with `nginx -t`. */
function writeConfig(args) {
  const { values } = parseArgs({ args, options: { upstreams: { type: 'string' }, port: { type: 'string' } } });
  if (!values.upstreams) throw new Error('--upstreams \'{"accounts":["host:port"],...}\' is required');
  const port = values.port ? Number(values.port) : portFrom('LANTERN_NGINX_PORT', 18080);
  const dir = stateDir(NAME);
  const consoleDist = join(ROOT, 'packages/console/dist');
  if (consoleDist.includes('"')) throw new Error(`nginx cannot be given a root path with a double quote: ${consoleDist}`);
  const conf = readFileSync(join(ROOT, 'gateway/nginx.conf'), 'utf8')
    .replace(/listen 8080;/g, `listen 127.0.0.1:${port};`)
    .replace(/^(\s*)root \/usr\/share\/lantern\/console;$/m, `$1root "${consoleDist}";`);
  writeFileSync(join(dir, 'nginx.conf'), conf);
  writeFileSync(join(dir, 'upstreams.conf'), upstreamsConf(JSON.parse(values.upstreams)));
  const bin = nginxBinary();
  const test = spawnSync(bin, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-t', '-q'], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  if (test.status !== 0) throw new Error(`nginx -t refused the configuration:\n${test.stderr}`);
  return { bin, dir, port };
}

async function start(args) {
  const { bin, dir, port } = writeConfig(args);
  const running = readPid(NAME);
  if (running && isAlive(running)) {
    spawnSync(bin, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-s', 'reload']);
  } else {
    const { logFile } = startDetached(NAME, bin, ['-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;']);
    await waitForPort(port, { name: 'nginx', timeoutMs: 15_000, logFile });
  }
  writeEndpoint(NAME, { port, env: { LANTERN_TEST_GATEWAY_URL: `http://127.0.0.1:${port}` } });
  log(NAME, `listening on 127.0.0.1:${port}`);
  return { url: `http://127.0.0.1:${port}` };
}

main(NAME, {
  start,
  reload: start,
  stop: async () => {
    await stopDetached(NAME, { signal: 'SIGQUIT', graceMs: 10_000 }); // SIGQUIT: nginx's graceful shutdown
  },
  status: async () => {
    const pid = readPid(NAME);
    return { running: Boolean(pid && isAlive(pid)), pid };
  },
});
