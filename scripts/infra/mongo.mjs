#!/usr/bin/env node
// `node scripts/infra/mongo.mjs start|stop|status|clean`: a MongoDB wire-protocol server for the distributed tests.
// mongo-java-server (de.bwaldvogel, from Maven Central) on its H2 backend, so data survives a restart, started by
// a small launcher (mongo/LanternMongo.java) compiled here with the JDK's javac. Jars and the compiled launcher
// are cached under CACHE/mongo/<version>; the H2 file, log and pid live under STATE/mongo.
// Listens on 127.0.0.1:27018 (LANTERN_MONGO_PORT); endpoint.json gives LANTERN_TEST_MONGO_URL.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  CACHE, ROOT, isAlive, log, main, mavenJar, portFrom, readEndpoint, readPid, startDetached, stateDir, stopDetached, writeEndpoint,
} from './lib.mjs';

const NAME = 'mongo';
const HOST = '127.0.0.1';
const VERSION = '1.47.0';
/**
 * The runtime closure of mongo/pom.xml (mongo-java-server-h2-backend plus an slf4j provider), as resolved by
 * `mvn dependency:list`: pinned here so that a fresh machine needs no Maven, only a JDK.
 */
const JARS = [
  `de.bwaldvogel:mongo-java-server-core:${VERSION}`,
  `de.bwaldvogel:mongo-java-server-h2-backend:${VERSION}`,
  'com.h2database:h2:2.3.232',
  'org.slf4j:slf4j-api:2.0.17',
  'org.slf4j:slf4j-simple:2.0.17',
  ...['buffer', 'codec', 'codec-base', 'codec-compression', 'codec-marshalling', 'codec-protobuf', 'common', 'handler',
    'resolver', 'transport', 'transport-native-unix-common'].map((a) => `io.netty:netty-${a}:4.2.2.Final`),
];
const LAUNCHER = join(ROOT, 'scripts/infra/mongo/LanternMongo.java');
/** MVStore's background commit interval: what a kill -9 can lose (MongoDB's own journal commits every 100 ms). */
const COMMIT_DELAY_MS = 100;
const START_TIMEOUT_MS = 60_000;

const jdkTool = (tool) => (process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', tool) : tool);
const works = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

/** The JDK (javac and java): installed from Debian when missing and allowed to (root with apt-get), else an error. */
function ensureJdk() {
  if (works(jdkTool('javac'), ['-version']) && works(jdkTool('java'), ['-version'])) return;
  if (process.getuid?.() === 0 && works('apt-get', ['--version'])) {
    log(NAME, 'no JDK found: installing openjdk-17-jdk-headless with apt-get');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'openjdk-17-jdk-headless']]) {
      if (spawnSync('apt-get', args, { stdio: ['ignore', 2, 2], env }).status !== 0) throw new Error(`apt-get ${args[0]} failed`);
    }
    if (works(jdkTool('javac'), ['-version'])) return;
  }
  throw new Error('a JDK 17 or newer is needed (javac and java on PATH, or JAVA_HOME): apt-get install openjdk-17-jdk-headless');
}

/** The classpath of the server: the jars (downloaded and checked once) and the launcher (compiled once per source). */
async function ensureClasspath() {
  const jars = [];
  for (const coordinates of JARS) {
    const [group, artifact, version] = coordinates.split(':');
    const cached = existsSync(join(CACHE, 'maven', ...group.split('.'), artifact, version, `${artifact}-${version}.jar`));
    if (!cached) log(NAME, `downloading ${coordinates} from Maven Central`);
    jars.push(await mavenJar(coordinates));
  }
  const source = readFileSync(LAUNCHER);
  const key = createHash('sha256').update(source).update(JARS.join('\n')).digest('hex').slice(0, 16);
  const classes = join(CACHE, NAME, VERSION, `launcher-${key}`);
  if (!existsSync(join(classes, 'LanternMongo.class'))) {
    log(NAME, 'compiling the launcher');
    const building = `${classes}.${process.pid}.tmp`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    const javac = spawnSync(jdkTool('javac'), ['-d', building, '-cp', jars.join(':'), LAUNCHER], { stdio: ['ignore', 2, 2] });
    if (javac.status !== 0) throw new Error('javac failed on scripts/infra/mongo/LanternMongo.java');
    rmSync(classes, { recursive: true, force: true });
    renameSync(building, classes);
  }
  return [...jars, classes].join(':');
}

const portOpen = (port) =>
  new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

function endpointFor(port, pid) {
  const url = `mongodb://${HOST}:${port}`;
  return { env: { LANTERN_TEST_MONGO_URL: url }, url, host: HOST, port, pid };
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
  ensureJdk();
  const classpath = await ensureClasspath();
  const dataDir = join(stateDir(NAME), 'data');
  mkdirSync(dataDir, { recursive: true });
  const jvm = [
    '-Xms64m', '-Xmx768m', '-XX:+UseSerialGC', // a test server sharing two cores: small heap, one GC thread
    '-Dorg.slf4j.simpleLogger.showDateTime=true', "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSZ",
    // Every non-unique index of every test database logs "not yet implemented" at WARN: kept out of the log.
    '-Dorg.slf4j.simpleLogger.log.de.bwaldvogel.mongo.backend.AbstractMongoDatabase=error',
  ];
  const { pid, logFile } = startDetached(NAME, jdkTool('java'), [
    ...jvm, '-cp', classpath, 'LanternMongo', HOST, String(port), join(dataDir, 'lantern.mv.db'), String(COMMIT_DELAY_MS),
  ]);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await portOpen(port))) {
    if (!isAlive(pid)) throw new Error(`the server exited while starting; log ${logFile}:\n${logTail(logFile)}`);
    if (Date.now() > deadline) {
      await stopDetached(NAME, { graceMs: 5000 });
      throw new Error(`the server did not open ${HOST}:${port} within ${START_TIMEOUT_MS} ms; log ${logFile}:\n${logTail(logFile)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const endpoint = endpointFor(port, pid);
  writeEndpoint(NAME, endpoint);
  log(NAME, `started (pid ${pid}) at ${endpoint.url} in ${Date.now() - began} ms; data in ${dataDir}`);
  return endpoint;
}

async function stop() {
  // SIGTERM runs the launcher's shutdown hook (clients closed, H2 store committed and closed).
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

/** Stops the server and deletes its data (the H2 file): the next start is empty. */
async function clean() {
  await stop();
  rmSync(join(stateDir(NAME), 'data'), { recursive: true, force: true });
  log(NAME, 'data deleted');
  return { cleaned: true };
}

await main(NAME, { start, stop, status, clean });
