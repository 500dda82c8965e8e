import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig, type Config } from '@lantern/config';
import { Closers } from '../src/adapters.js';
import type { ServiceName } from '../src/routers.js';
import { distributedProblems } from '../src/services.js';
import { childEnv, killLeftovers, runCli, tempDataDir } from './process-helpers.js';

/**
 * `lantern <service>` refuses a configuration it cannot run with, before it opens anything: exit 2 and a message
 * naming the variables. Starting the services for real, against Kafka, MongoDB and MinIO, is the distributed
 * suite's work (gateway/test/distributed).
 */

const JWT_SECRET = 'process-services-test-secret-0123456789';
/** Nothing listens there: a test that got past the checks by mistake fails fast instead of connecting. */
const MONGO_URL = 'mongodb://127.0.0.1:9/lantern?serverSelectionTimeoutMS=500';
const DISTRIBUTED = {
  LANTERN_STORE: 'mongo',
  LANTERN_MONGO_URL: MONGO_URL,
  LANTERN_BUS: 'kafka',
  LANTERN_KAFKA_BROKERS: '127.0.0.1:9',
  LANTERN_BLOBS: 'minio',
  LANTERN_MINIO_URL: 'http://key:secret-key@127.0.0.1:9',
  JWT_SECRET,
};
const SERVICES: ServiceName[] = ['accounts', 'ingest', 'writer', 'query', 'ai', 'ai-worker'];

const STORE_PROBLEM = /^LANTERN_STORE=mongo \(with LANTERN_MONGO_URL\) is required to run "([\w-]+)" as a process of its own/;
const BUS_PROBLEM = /^LANTERN_BUS=kafka \(with LANTERN_KAFKA_BROKERS\) is required to run "([\w-]+)" as a process of its own/;
const JWT_PROBLEM = /^JWT_SECRET is required to run "([\w-]+)" as a process of its own/;
const BLOBS_PROBLEM = /^LANTERN_BLOBS=minio \(with LANTERN_MINIO_URL\) is required to run "([\w-]+)" as a process of its own/;

describe('distributedProblems', () => {
  const config = (env: Record<string, string>): Config => loadConfig(env);

  it.each([
    ['accounts', [STORE_PROBLEM, JWT_PROBLEM]],
    ['ingest', [STORE_PROBLEM, BUS_PROBLEM]],
    ['writer', [STORE_PROBLEM, BUS_PROBLEM]],
    ['query', [STORE_PROBLEM, JWT_PROBLEM]],
    ['ai', [STORE_PROBLEM, BUS_PROBLEM, BLOBS_PROBLEM, JWT_PROBLEM]],
    ['ai-worker', [STORE_PROBLEM, BUS_PROBLEM, BLOBS_PROBLEM]],
  ] as Array<[ServiceName, RegExp[]]>)('"%s" with the embedded defaults: what it needs, named', (service, expected) => {
    const problems = distributedProblems(service, config({}));
    expect(problems).toHaveLength(expected.length);
    problems.forEach((problem, i) => {
      expect(problem).toMatch(expected[i]!);
      expect(expected[i]!.exec(problem)![1]).toBe(service);
    });
  });

  it.each(SERVICES)('"%s" with MongoDB, Kafka, MinIO and a JWT secret: no problem', (service) => {
    expect(distributedProblems(service, config(DISTRIBUTED))).toEqual([]);
  });

  it.each(SERVICES)('"%s" with MongoDB and a JWT secret but the in-process bus: ingest, writer, ai and ai-worker object', (service) => {
    const problems = distributedProblems(service, config({ ...DISTRIBUTED, LANTERN_BUS: 'memory' }));
    if (service === 'ingest' || service === 'writer' || service === 'ai' || service === 'ai-worker') {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(BUS_PROBLEM);
    } else expect(problems).toEqual([]);
  });

  it.each(SERVICES)('"%s" without JWT_SECRET: accounts, query and ai object; ingest, writer and ai-worker do not check tokens', (service) => {
    const { JWT_SECRET: _omitted, ...env } = DISTRIBUTED;
    const problems = distributedProblems(service, config(env));
    if (service === 'ingest' || service === 'writer' || service === 'ai-worker') expect(problems).toEqual([]);
    else {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(JWT_PROBLEM);
    }
  });

  it.each(SERVICES)('"%s" with documents on the filesystem: only ai and ai-worker object', (service) => {
    const problems = distributedProblems(service, config({ ...DISTRIBUTED, LANTERN_BLOBS: 'fs' }));
    if (service === 'ai' || service === 'ai-worker') {
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(BLOBS_PROBLEM);
    } else expect(problems).toEqual([]);
  });

  it.each(SERVICES)('"%s" with the SQLite store: refused, whatever else is set', (service) => {
    const problems = distributedProblems(service, config({ ...DISTRIBUTED, LANTERN_STORE: 'sqlite' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(STORE_PROBLEM);
  });
});

describe('Closers', () => {
  const resource = (name: string, log: string[], fail?: Error) => ({
    name,
    async close() {
      log.push(name);
      if (fail) throw fail;
    },
  });

  it('closes in the reverse order of opening, resources and functions alike', async () => {
    const log: string[] = [];
    const closers = new Closers();
    const store = resource('store', log);
    expect(closers.add(store)).toBe(store);
    closers.push(async () => {
      log.push('writer');
    });
    closers.add(resource('bus', log));
    await closers.closeAll();
    expect(log).toEqual(['bus', 'writer', 'store']);
  });

  it('runs every close even when some fail, then rethrows the first failure', async () => {
    const log: string[] = [];
    const closers = new Closers();
    const first = new Error('store close failed');
    const second = new Error('bus close failed');
    closers.add(resource('store', log, new Error('not the first to fail')));
    closers.add(resource('blobs', log));
    closers.add(resource('bus', log, first));
    closers.push(() => Promise.reject(second));
    closers.push(async () => {
      log.push('writer');
    });
    // Closed in reverse: writer, the rejecting function, bus, blobs, store. `second` fails first.
    await expect(closers.closeAll()).rejects.toBe(second);
    expect(log).toEqual(['writer', 'bus', 'blobs', 'store']);
  });

  it('a close that rejects with undefined still makes closeAll reject', async () => {
    const closers = new Closers();
    closers.push(() => Promise.reject(undefined));
    await expect(closers.closeAll()).rejects.toBeUndefined();
  });

  it('waits for each close before the next', async () => {
    const log: string[] = [];
    const closers = new Closers();
    closers.push(async () => {
      log.push('store');
    });
    closers.push(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      log.push('writer stopped');
    });
    await closers.closeAll();
    expect(log).toEqual(['writer stopped', 'store']);
  });

  it('closes each thing once: a second closeAll does nothing', async () => {
    const log: string[] = [];
    const closers = new Closers();
    closers.add(resource('store', log));
    await closers.closeAll();
    await closers.closeAll();
    expect(log).toEqual(['store']);
  });

  it('a falsy rejection is rethrown too', async () => {
    const closers = new Closers();
    closers.push(() => Promise.reject(0));
    await expect(closers.closeAll()).rejects.toBe(0);
  });

  it('guard returns what was opened, and closes nothing while it succeeds', async () => {
    const log: string[] = [];
    const closers = new Closers();
    const value = await closers.guard(async () => {
      closers.add(resource('store', log));
      return 42;
    });
    expect(value).toBe(42);
    expect(log).toEqual([]);
    await closers.closeAll();
    expect(log).toEqual(['store']);
  });

  it('guard: a start-up failing halfway closes what was opened so far (in reverse) and rethrows the start-up error', async () => {
    const log: string[] = [];
    const closers = new Closers();
    const failure = new Error('kafka unreachable');
    await expect(
      closers.guard(async () => {
        closers.add(resource('store', log));
        closers.add(resource('bus', log, new Error('bus close failed too')));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(log).toEqual(['bus', 'store']);
    // All closed: nothing left for a later closeAll.
    await closers.closeAll();
    expect(log).toEqual(['bus', 'store']);
  });
});

describe('`lantern <service>` with an unfit configuration, as processes', () => {
  let data: Awaited<ReturnType<typeof tempDataDir>>;
  beforeAll(async () => {
    data = await tempDataDir();
  });
  afterAll(async () => {
    killLeftovers();
    await data.remove();
  });

  const problemLines = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('  - ')).map((l) => l.slice(4));

  it('`lantern ingest` with the embedded defaults exits 2 naming LANTERN_STORE=mongo and LANTERN_BUS=kafka', async () => {
    const run = await runCli(['ingest'], childEnv({ DATA_DIR: data.dir, PORT: '0' }));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith('Invalid configuration for "lantern ingest":\n')).toBe(true);
    const problems = problemLines(run.stderr);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(STORE_PROBLEM);
    expect(problems[1]).toMatch(BUS_PROBLEM);
    expect(run.stderr).toContain('docs/deploy.md');
  });

  it('`lantern query` without JWT_SECRET exits 2 naming JWT_SECRET (and nothing else when the store is MongoDB)', async () => {
    const run = await runCli(['query'], childEnv({ DATA_DIR: data.dir, PORT: '0', LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: MONGO_URL }));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.startsWith('Invalid configuration for "lantern query":\n')).toBe(true);
    const problems = problemLines(run.stderr);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(JWT_PROBLEM);
  });

  it('`lantern writer` with a wrong variable exits 2 naming it, before the distributed checks', async () => {
    const run = await runCli(['writer'], childEnv({ DATA_DIR: data.dir, PORT: '0', ...DISTRIBUTED, RETENTION_DAYS: 'forever' }));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('RETENTION_DAYS must be a whole number from 0 to 36500 (got "forever")');
    expect(run.stderr).not.toContain('lantern writer');
  });

  it('`lantern ai` with a wrong MinIO URL exits 2 naming it, without showing the secret', async () => {
    const secret = 'minio-Secret-9f8e7d';
    const run = await runCli(['ai'], childEnv({ DATA_DIR: data.dir, PORT: '0', ...DISTRIBUTED, LANTERN_MINIO_URL: `minio://key:${secret}@127.0.0.1:9` }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('LANTERN_MINIO_URL must start with http:// or https://');
    expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
  });

  it('`lantern start` with LANTERN_STORE=mongo and no URL exits 2 naming LANTERN_MONGO_URL', async () => {
    const run = await runCli(['start'], childEnv({ DATA_DIR: data.dir, PORT: '0', LANTERN_STORE: 'mongo' }));
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('running on');
    const problems = problemLines(run.stderr);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^LANTERN_MONGO_URL is required/);
  });

  it('an unknown command prints the usage, with the six services, and exits 2', async () => {
    const run = await runCli(['gateway'], childEnv({ DATA_DIR: data.dir }));
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/^Usage: lantern <command>/);
    expect(run.stdout).toContain('accounts | ingest | writer | query | ai | ai-worker');
    expect(run.stderr).toBe('');
  });
});
