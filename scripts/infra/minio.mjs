#!/usr/bin/env node
// A real MinIO server for the distributed tests: `node scripts/infra/minio.mjs start|stop|status`.
// Built from source once (scripts/infra/minio/build.mjs, cached under CACHE), one drive under .infra/minio/data,
// on 127.0.0.1:$LANTERN_MINIO_PORT (19000). The root user and password are generated on the first start and
// kept in .infra/minio/credentials.json (mode 600); only endpoint.json passes them on, as
// LANTERN_TEST_MINIO_URL=http://<user>:<password>@127.0.0.1:19000. Node built-ins only.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, log, main, portFrom, readEndpoint, readPid, startDetached, stateDir, stopDetached, waitForPort, writeEndpoint } from './lib.mjs';
import { MINIO_MODULE, MINIO_VERSION, ensureMinioBinary } from './minio/build.mjs';

const NAME = 'minio';
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;

const port = () => portFrom('LANTERN_MINIO_PORT', 19000);
const consolePort = () => portFrom('LANTERN_MINIO_CONSOLE_PORT', port() + 1);

/** Generated once per state folder and kept, so every start (and endpoint.json) uses the same root keys. */
function credentials() {
  const file = join(stateDir(NAME), 'credentials.json');
  if (!existsSync(file)) {
    const created = { user: `lantern-${randomBytes(4).toString('hex')}`, password: randomBytes(24).toString('base64url') };
    try {
      writeFileSync(file, `${JSON.stringify(created)}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error; // a concurrent start wrote them first: use those
    }
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

function endpoint({ user, password }, pid) {
  const url = `http://${HOST}:${port()}`;
  return {
    url,
    port: port(),
    pid,
    version: `${MINIO_MODULE}@${MINIO_VERSION}`,
    env: { LANTERN_TEST_MINIO_URL: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${HOST}:${port()}` },
  };
}

/** MinIO's readiness endpoint answers 200 once the server serves S3 requests. */
async function healthy(timeoutMs = 2000) {
  try {
    const res = await fetch(`http://${HOST}:${port()}/minio/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

async function waitHealthy(pid, logFile) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  await waitForPort(port(), { host: HOST, timeoutMs: START_TIMEOUT_MS, name: 'MinIO', logFile });
  while (!(await healthy())) {
    if (!isAlive(pid)) throw new Error(`MinIO exited during start-up (log: ${logFile})`);
    if (Date.now() > deadline) throw new Error(`MinIO did not become ready within ${START_TIMEOUT_MS} ms (log: ${logFile})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function start() {
  const dir = stateDir(NAME);
  const creds = credentials();
  const running = readPid(NAME);
  if (running !== undefined && isAlive(running) && (await healthy())) {
    log(NAME, `already running (pid ${running}) on ${HOST}:${port()}`);
    const ep = endpoint(creds, running);
    writeEndpoint(NAME, ep);
    return { url: ep.url, pid: running };
  }
  if (running !== undefined && isAlive(running)) await stopDetached(NAME); // alive but not answering: start afresh
  if (await healthy(500)) throw new Error(`${HOST}:${port()} already answers as a MinIO not started by this script; stop it or set LANTERN_MINIO_PORT`);

  const began = Date.now();
  const binary = await ensureMinioBinary();
  const data = join(dir, 'data');
  mkdirSync(data, { recursive: true });
  const { pid, logFile } = startDetached(
    NAME,
    binary,
    // --quiet: no start-up banner (older MinIO releases print the root credentials in it); errors still go to the log.
    ['server', '--quiet', '--address', `${HOST}:${port()}`, '--console-address', `${HOST}:${consolePort()}`, data],
    {
      env: {
        // Through the environment, not argv, so `ps` does not show the secret either.
        MINIO_ROOT_USER: creds.user,
        MINIO_ROOT_PASSWORD: creds.password,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
        MINIO_CALLHOME_ENABLE: 'off',
      },
    },
  );
  log(NAME, `starting pid ${pid} on ${HOST}:${port()} (data: ${data})`);
  try {
    await waitHealthy(pid, logFile);
  } catch (error) {
    await stopDetached(NAME, { graceMs: 2000 });
    throw error;
  }
  const ep = endpoint(creds, pid);
  writeEndpoint(NAME, ep);
  log(NAME, `ready in ${Date.now() - began} ms`);
  return { url: ep.url, pid };
}

async function stop() {
  const stopped = await stopDetached(NAME);
  log(NAME, stopped ? 'stopped' : 'was not running');
  return { stopped };
}

async function status() {
  const pid = readPid(NAME);
  const running = pid !== undefined && isAlive(pid) && (await healthy());
  const ep = readEndpoint(NAME);
  return { running, pid: running ? pid : undefined, url: running ? ep?.url : undefined, version: `${MINIO_MODULE}@${MINIO_VERSION}` };
}

await main(NAME, { start, stop, status, build: async () => ({ binary: await ensureMinioBinary() }) });
