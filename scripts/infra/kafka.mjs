#!/usr/bin/env node
// A real Apache Kafka for the distributed tests and local work, without Docker: Kafka's jars from Maven Central
// (scripts/infra/kafka/install.mjs, cached under CACHE), one combined broker+controller in KRaft mode on
// 127.0.0.1, data under STATE/kafka so a stop and a later start resume where it was.
//   node scripts/infra/kafka.mjs start [--fresh] | stop | status | reset
// LANTERN_KAFKA_PORT (19092) and LANTERN_KAFKA_CONTROLLER_PORT (19093) choose the ports, LANTERN_KAFKA_HEAP the
// JVM heap (512m). The endpoint's env: LANTERN_TEST_KAFKA_BROKERS=127.0.0.1:<port>.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { writeConfig } from './kafka/config.mjs';
import { KAFKA_VERSION, installKafka } from './kafka/install.mjs';
import { isAlive, log, main, portFrom, readEndpoint, readPid, startDetached, stateDir, stopDetached, waitForPort, writeEndpoint } from './lib.mjs';

const NAME = 'kafka';
const port = portFrom('LANTERN_KAFKA_PORT', 19092);
const controllerPort = portFrom('LANTERN_KAFKA_CONTROLLER_PORT', 19093);
const heap = process.env.LANTERN_KAFKA_HEAP || '512m';
const dir = stateDir(NAME);
const dataDir = join(dir, 'data');
const logFile = join(dir, `${NAME}.log`);
/** What the data directory was formatted with: the controller's address is part of the quorum's stored state. */
const formattedFile = join(dir, 'formatted.json');

const java = () => (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java');
const jvmArgs = (libs, log4j) => [
  `-Xms${heap}`,
  `-Xmx${heap}`,
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
  `-Dlog4j.configuration=file:${log4j}`,
  '-cp',
  join(libs, '*'),
];

function endpoint(pid) {
  const brokers = `127.0.0.1:${port}`;
  return { env: { LANTERN_TEST_KAFKA_BROKERS: brokers }, brokers: [brokers], port, controllerPort, version: KAFKA_VERSION, pid, log: logFile };
}

const portInUse = (p) =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: p });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Formats the data directory once (a new cluster id); later starts reuse it, so data survives restarts. */
function formatStorage(libs, config) {
  if (existsSync(join(dataDir, 'meta.properties'))) {
    const formatted = existsSync(formattedFile) ? JSON.parse(readFileSync(formattedFile, 'utf8')) : { controllerPort };
    if (formatted.controllerPort !== controllerPort) {
      throw new Error(
        `the data in ${dataDir} was formatted for controller port ${formatted.controllerPort}, not ${controllerPort}; ` +
          'use that port or wipe the data with `start --fresh`',
      );
    }
    return;
  }
  // Kafka's Uuid: 16 random bytes in URL-safe base64 without padding (what `kafka-storage random-uuid` prints).
  const clusterId = randomBytes(16).toString('base64url');
  log(NAME, `formatting ${dataDir} (KRaft, --standalone, cluster ${clusterId})`);
  const r = spawnSync(
    java(),
    [...jvmArgs(libs, config.log4j), 'kafka.tools.StorageTool', 'format', '--standalone', '-t', clusterId, '-c', config.server],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (r.status !== 0) throw new Error(`kafka-storage format failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-2000)}`);
  writeFileSync(formattedFile, `${JSON.stringify({ clusterId, controllerPort, version: KAFKA_VERSION }, null, 2)}\n`);
}

/** The port opens a moment before the broker serves; its log says when it has started. */
async function waitForStarted(pid, fromByte, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = readFileSync(logFile, 'utf8').slice(fromByte);
    if (/Kafka Server started/.test(text)) return;
    if (!isAlive(pid)) throw new Error(`Kafka exited during start-up; the end of ${logFile}:\n${text.slice(-3000)}`);
    if (Date.now() > deadline) throw new Error(`Kafka did not start within ${timeoutMs} ms (log: ${logFile})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function start(args = []) {
  const began = Date.now();
  if (args.includes('--fresh')) await reset();
  const running = readPid(NAME);
  if (running !== undefined && isAlive(running)) {
    await waitForPort(port, { name: 'Kafka', logFile, timeoutMs: 60_000 });
    log(NAME, `already running (pid ${running}) on 127.0.0.1:${port}`);
    writeEndpoint(NAME, endpoint(running));
    return endpoint(running);
  }
  for (const p of [port, controllerPort]) {
    if (await portInUse(p)) {
      throw new Error(`port ${p} is taken by another process (choose others with LANTERN_KAFKA_PORT / LANTERN_KAFKA_CONTROLLER_PORT)`);
    }
  }
  const libs = installKafka();
  const config = writeConfig(dir, { port, controllerPort, dataDir });
  formatStorage(libs, config);
  // The log is appended to across starts; a long-lived checkout keeps one previous generation.
  if (existsSync(logFile) && statSync(logFile).size > 20 * 1024 * 1024) renameSync(logFile, `${logFile}.1`);
  const fromByte = existsSync(logFile) ? statSync(logFile).size : 0;
  log(NAME, `starting Kafka ${KAFKA_VERSION} on 127.0.0.1:${port} (controller ${controllerPort}), data in ${dataDir}`);
  const { pid } = startDetached(NAME, java(), [...jvmArgs(libs, config.log4j), 'kafka.Kafka', config.server]);
  try {
    await waitForPort(port, { name: 'Kafka', logFile, timeoutMs: 120_000 });
    await waitForStarted(pid, fromByte, 120_000);
  } catch (error) {
    await stopDetached(NAME, { graceMs: 5_000 });
    throw error;
  }
  log(NAME, `ready (pid ${pid}) in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  writeEndpoint(NAME, endpoint(pid));
  return endpoint(pid);
}

/** SIGTERM: a controlled shutdown that flushes the logs, so the next start resumes without log recovery. */
async function stop() {
  const stopped = await stopDetached(NAME, { graceMs: 30_000 });
  log(NAME, stopped ? 'stopped' : 'was not running');
}

async function status() {
  const pid = readPid(NAME);
  const running = pid !== undefined && isAlive(pid);
  return { running, ...(running ? { pid, endpoint: readEndpoint(NAME) } : {}) };
}

/** Stops the broker and wipes its data (topics, offsets, the cluster id). */
async function reset() {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(formattedFile, { force: true });
  log(NAME, `wiped ${dataDir}`);
}

await main(NAME, { start, stop, status, reset });
