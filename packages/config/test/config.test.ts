import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, type Config } from '@lantern/config';

type Env = Record<string, string | undefined>;

/** The problems loadConfig reports for `env` (none: the test fails with the configuration it got). */
function problemsOf(env: Env): string[] {
  try {
    const config = loadConfig(env);
    throw new Error(`expected a ConfigError, got a configuration: ${JSON.stringify(config)}`);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    expect(err.message).toBe(`Invalid configuration:\n  - ${err.problems.join('\n  - ')}`);
    return err.problems;
  }
}

/** The one problem `env` has. */
function problemOf(env: Env): string {
  const problems = problemsOf(env);
  expect(problems).toHaveLength(1);
  return problems[0]!;
}

/** The whole text a ConfigError puts in front of a person (and into logs). */
function errorText(env: Env): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return `${err.message}\n${err.problems.join('\n')}\n${String(err)}\n${JSON.stringify(err)}`;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

const MONGO = { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: 'mongodb://lantern:pw@mongo.internal:27017/?replicaSet=rs0' };
const KAFKA = { LANTERN_BUS: 'kafka', LANTERN_KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092' };
const MINIO = { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: 'http://AKIAEXAMPLE:minio-secret@minio.internal:9000' };

describe('loadConfig: read budgets', () => {
  it('READ_BUDGET_MS and STREAM_BUDGET_MS are read in ms, and a budget under 100 ms is refused with the name', () => {
    expect(loadConfig({ READ_BUDGET_MS: '2500', STREAM_BUDGET_MS: '60000' })).toMatchObject({ readBudgetMs: 2500, streamBudgetMs: 60_000 });
    expect(() => loadConfig({ READ_BUDGET_MS: '5' })).toThrow(/READ_BUDGET_MS/);
  });

  it('READ_WORKERS is 2 by default, 0 reads on the request thread, and a negative count is refused with the name', () => {
    expect(loadConfig({}).readWorkers).toBe(2);
    expect(loadConfig({ READ_WORKERS: '0' }).readWorkers).toBe(0);
    expect(() => loadConfig({ READ_WORKERS: '-1' })).toThrow(/READ_WORKERS/);
  });
});

describe('loadConfig: document processing', () => {
  it('DOCUMENT_THREADS is 1 and DOCUMENT_LEASE_MS 60 s by default; a thread count of 0 or a lease under 3 s is refused with the name', () => {
    expect(loadConfig({})).toMatchObject({ documentThreads: 1, documentLeaseMs: 60_000 });
    expect(loadConfig({ DOCUMENT_THREADS: '4', DOCUMENT_LEASE_MS: '10000' })).toMatchObject({ documentThreads: 4, documentLeaseMs: 10_000 });
    expect(() => loadConfig({ DOCUMENT_THREADS: '0' })).toThrow(/DOCUMENT_THREADS must be a whole number from 1 to 64/);
    expect(() => loadConfig({ DOCUMENT_LEASE_MS: '500' })).toThrow(/DOCUMENT_LEASE_MS must be a whole number from 3000/);
  });
});

describe('loadConfig: fair limits', () => {
  it('has the documented defaults, and reads each variable', () => {
    expect(loadConfig({}).limits).toEqual({
      ingestPerApplicationPerMinute: 1200, ingestPerOrganizationPerMinute: 6000, uploadsPerUserPerMinute: 30,
      uploadsPerOrganizationPerMinute: 120, maxApiKeysPerApplication: 20, maxOrganizationsPerUser: 10, maxConcurrentReadsPerUser: 4, storageQuotaBytes: 1_073_741_824, maxConcurrentUploads: 4, uploadWaitMs: 20_000,
    });
    expect(loadConfig({
      RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE: '10', RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE: '20', RATE_LIMIT_UPLOADS_PER_MINUTE: '3',
      RATE_LIMIT_UPLOADS_ORGANIZATION_PER_MINUTE: '4', MAX_API_KEYS_PER_APPLICATION: '5', MAX_ORGANIZATIONS_PER_USER: '7', MAX_CONCURRENT_READS_PER_USER: '6', STORAGE_QUOTA_BYTES: '10737418240', MAX_CONCURRENT_UPLOADS: '8', UPLOAD_WAIT_MS: '5000',
    }).limits).toEqual({
      ingestPerApplicationPerMinute: 10, ingestPerOrganizationPerMinute: 20, uploadsPerUserPerMinute: 3,
      uploadsPerOrganizationPerMinute: 4, maxApiKeysPerApplication: 5, maxOrganizationsPerUser: 7, maxConcurrentReadsPerUser: 6, storageQuotaBytes: 10_737_418_240, maxConcurrentUploads: 8, uploadWaitMs: 5000,
    });
  });

  it('refuses a cap of 0 or a negative quota, naming the variable', () => {
    expect(problemsOf({ MAX_API_KEYS_PER_APPLICATION: '0', MAX_CONCURRENT_READS_PER_USER: '0', STORAGE_QUOTA_BYTES: '-1' }).join('\n'))
      .toMatch(/MAX_API_KEYS_PER_APPLICATION[\s\S]*MAX_CONCURRENT_READS_PER_USER[\s\S]*STORAGE_QUOTA_BYTES/);
  });
});

describe('loadConfig: defaults', () => {
  it('an empty environment is the embedded mode: SQLite, the in-process bus, files, 30 days of telemetry', () => {
    const config: Config = loadConfig({});
    expect(config.adapters).toEqual({ store: { kind: 'sqlite' }, bus: { kind: 'memory' }, blobs: { kind: 'fs' } });
    expect(config.retentionDays).toBe(30);
    expect(config).toMatchObject({ readBudgetMs: 10_000, streamBudgetMs: 120_000 });
    expect(config).toMatchObject({ port: 8080, host: '0.0.0.0', dataDir: './data', jwtSecret: undefined, logLevel: 'info' });
  });

  it('empty strings count as unset', () => {
    const config = loadConfig({ LANTERN_STORE: '', LANTERN_BUS: '', LANTERN_BLOBS: '', RETENTION_DAYS: '', LANTERN_MONGO_URL: '', LANTERN_KAFKA_BROKERS: '' });
    expect(config.adapters).toEqual({ store: { kind: 'sqlite' }, bus: { kind: 'memory' }, blobs: { kind: 'fs' } });
    expect(config.retentionDays).toBe(30);
  });

  it('the address variables of adapters not chosen are ignored, even when wrong', () => {
    const config = loadConfig({
      LANTERN_MONGO_URL: 'not a url',
      LANTERN_MONGO_DATABASE: 'a/b',
      LANTERN_KAFKA_BROKERS: 'nope',
      LANTERN_KAFKA_TOPIC_PREFIX: 'bad prefix',
      LANTERN_KAFKA_PARTITIONS: 'many',
      LANTERN_MINIO_URL: 'ftp://x',
      LANTERN_MINIO_BUCKET: 'UPPER',
    });
    expect(config.adapters).toEqual({ store: { kind: 'sqlite' }, bus: { kind: 'memory' }, blobs: { kind: 'fs' } });
  });
});

describe('loadConfig: the distributed adapters', () => {
  it('MongoDB, Kafka and MinIO with their addresses, and the defaults of their options', () => {
    const config = loadConfig({ ...MONGO, ...KAFKA, ...MINIO });
    expect(config.adapters).toEqual({
      store: { kind: 'mongo', url: MONGO.LANTERN_MONGO_URL, database: 'lantern' },
      bus: { kind: 'kafka', brokers: ['kafka-1:9092', 'kafka-2:9092'], topicPrefix: 'lantern.', partitions: 6 },
      blobs: { kind: 'minio', url: MINIO.LANTERN_MINIO_URL, bucket: 'lantern-documents' },
    });
  });

  it('takes the options as given', () => {
    const config = loadConfig({
      LANTERN_STORE: 'mongo',
      LANTERN_MONGO_URL: 'mongodb+srv://u:p@cluster0.example.net/',
      LANTERN_MONGO_DATABASE: 'e2e_1234abcd',
      LANTERN_BUS: 'kafka',
      LANTERN_KAFKA_BROKERS: ' 10.0.0.1:9092 , broker.example.com:19092 ,',
      LANTERN_KAFKA_TOPIC_PREFIX: 'e2e-1234abcd.',
      LANTERN_KAFKA_PARTITIONS: '3',
      LANTERN_BLOBS: 'minio',
      LANTERN_MINIO_URL: 'https://key:secret-key@s3.example.com',
      LANTERN_MINIO_BUCKET: 'e2e-1234abcd',
    });
    expect(config.adapters).toEqual({
      store: { kind: 'mongo', url: 'mongodb+srv://u:p@cluster0.example.net/', database: 'e2e_1234abcd' },
      bus: { kind: 'kafka', brokers: ['10.0.0.1:9092', 'broker.example.com:19092'], topicPrefix: 'e2e-1234abcd.', partitions: 3 },
      blobs: { kind: 'minio', url: 'https://key:secret-key@s3.example.com', bucket: 'e2e-1234abcd' },
    });
  });

  it('a MongoDB URL without credentials is fine (a local deployment without authentication)', () => {
    expect(loadConfig({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: 'mongodb://127.0.0.1:27017' }).adapters.store).toEqual({ kind: 'mongo', url: 'mongodb://127.0.0.1:27017', database: 'lantern' });
  });

  it.each([
    ['LANTERN_STORE', 'postgres', 'LANTERN_STORE must be one of sqlite, mongo (got "postgres")'],
    ['LANTERN_BUS', 'rabbitmq', 'LANTERN_BUS must be one of memory, kafka (got "rabbitmq")'],
    ['LANTERN_BLOBS', 's3', 'LANTERN_BLOBS must be one of fs, minio (got "s3")'],
    ['LANTERN_STORE', 'Mongo', 'LANTERN_STORE must be one of sqlite, mongo (got "Mongo")'],
  ])('%s=%s is refused', (name, value, message) => {
    expect(problemOf({ [name]: value })).toBe(message);
  });
});

describe('loadConfig: what each adapter requires', () => {
  it.each([
    [{ LANTERN_STORE: 'mongo' }, 'LANTERN_MONGO_URL'],
    [{ LANTERN_BUS: 'kafka' }, 'LANTERN_KAFKA_BROKERS'],
    [{ LANTERN_BUS: 'kafka', LANTERN_KAFKA_BROKERS: ' , ,' }, 'LANTERN_KAFKA_BROKERS'],
    [{ LANTERN_BLOBS: 'minio' }, 'LANTERN_MINIO_URL'],
  ])('%j: a problem naming %s', (env, name) => {
    const problem = problemOf(env);
    expect(problem.startsWith(`${name} is required`)).toBe(true);
  });

  it.each([
    ['LANTERN_MONGO_URL', { LANTERN_STORE: 'mongo' }, 'http://mongo.internal:27017', 'mongodb:// or mongodb+srv://'],
    ['LANTERN_MONGO_URL', { LANTERN_STORE: 'mongo' }, 'mongo://mongo.internal:27017', 'mongodb:// or mongodb+srv://'],
    ['LANTERN_MONGO_URL', { LANTERN_STORE: 'mongo' }, 'localhost:27017', 'mongodb:// or mongodb+srv://'],
    ['LANTERN_MONGO_URL', { LANTERN_STORE: 'mongo' }, 'mongodb:localhost', 'mongodb:// or mongodb+srv://'],
    ['LANTERN_MINIO_URL', { LANTERN_BLOBS: 'minio' }, 'ftp://key:secret-key@minio.internal:9000', 'http:// or https://'],
    ['LANTERN_MINIO_URL', { LANTERN_BLOBS: 'minio' }, 's3://key:secret-key@bucket', 'http:// or https://'],
  ])('%s with the wrong scheme (%s=%s) is refused, naming the schemes it takes', (name, choice, value, schemes) => {
    const problem = problemOf({ ...choice, [name]: value });
    expect(problem.startsWith(`${name} must start with ${schemes}`)).toBe(true);
  });

  it.each([['not a url'], ['http://'], ['mongodb://']])('LANTERN_MONGO_URL=%s, not a URL, is refused', (value) => {
    expect(problemOf({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: value })).toMatch(/^LANTERN_MONGO_URL must (be a URL|start with mongodb:\/\/|name at least one host)/);
  });

  it.each([['http://minio.internal:9000'], ['http://key@minio.internal:9000'], ['http://:secret@minio.internal:9000'], ['https://key:@minio.internal']])(
    'LANTERN_MINIO_URL=%s, without both access key and secret, is refused',
    (value) => {
      expect(problemOf({ LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: value })).toBe('LANTERN_MINIO_URL must carry the access key and secret: http://ACCESS_KEY:SECRET@host:port');
    },
  );

  it('upper-case schemes are URLs like any other', () => {
    expect(loadConfig({ LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: 'HTTP://key:secret-key@minio:9000' }).adapters.blobs.kind).toBe('minio');
  });
});

describe('loadConfig: Kafka options', () => {
  it.each([
    ['kafka'],
    ['kafka:'],
    [':9092'],
    ['kafka:port'],
    ['kafka:0'],
    ['kafka:65536'],
    ['kafka:123456'],
    ['kafka:9092:1'],
    ['kafka 1:9092'],
    ['[::1]:9092'],
    ['kafka://kafka:9092'],
  ])('the broker "%s" is not host:port', (bad) => {
    const problem = problemOf({ LANTERN_BUS: 'kafka', LANTERN_KAFKA_BROKERS: `good:9092,${bad}` });
    expect(problem).toMatch(/^LANTERN_KAFKA_BROKERS: ".*" is not host:port/);
    expect(problem).toContain(`"${bad}"`);
  });

  it('names each bad broker of a list, and only those', () => {
    const problems = problemsOf({ LANTERN_BUS: 'kafka', LANTERN_KAFKA_BROKERS: 'a:1,b,c:2,d:x,e:65535' });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^LANTERN_KAFKA_BROKERS: "b" is not host:port/);
    expect(problems[1]).toMatch(/^LANTERN_KAFKA_BROKERS: "d:x" is not host:port/);
  });

  it.each([['0'], ['1001'], ['-1'], ['2.5'], ['six']])('LANTERN_KAFKA_PARTITIONS=%s is refused', (value) => {
    expect(problemOf({ ...KAFKA, LANTERN_KAFKA_PARTITIONS: value })).toBe(`LANTERN_KAFKA_PARTITIONS must be a whole number from 1 to 1000 (got "${value}")`);
  });

  it.each([['1'], ['1000']])('LANTERN_KAFKA_PARTITIONS=%s is taken', (value) => {
    const { bus } = loadConfig({ ...KAFKA, LANTERN_KAFKA_PARTITIONS: value }).adapters;
    expect(bus).toMatchObject({ kind: 'kafka', partitions: Number(value) });
  });

  it.each([['has space.'], ['a/b.'], ['ünï.'], ['x'.repeat(241)]])('LANTERN_KAFKA_TOPIC_PREFIX=%s, not usable in a topic name, is refused', (value) => {
    expect(problemOf({ ...KAFKA, LANTERN_KAFKA_TOPIC_PREFIX: value })).toMatch(/^LANTERN_KAFKA_TOPIC_PREFIX may hold only letters, digits/);
  });
});

describe('loadConfig: MongoDB database and MinIO bucket names', () => {
  it.each([['a.b'], ['a/b'], ['a b'], ['a$b'], ['a"b'], ['a\\b'], ['d'.repeat(64)]])('LANTERN_MONGO_DATABASE=%s is refused', (value) => {
    expect(problemOf({ ...MONGO, LANTERN_MONGO_DATABASE: value })).toMatch(/^LANTERN_MONGO_DATABASE must be a MongoDB database name/);
  });

  it.each([['lantern'], ['e2e_1234abcd'], ['Lantern-Prod'], ['d'.repeat(63)]])('LANTERN_MONGO_DATABASE=%s is taken', (value) => {
    expect(loadConfig({ ...MONGO, LANTERN_MONGO_DATABASE: value }).adapters.store).toMatchObject({ database: value });
  });

  it.each([['ab'], ['Lantern'], ['-lantern'], ['lantern-'], ['lantern_docs'], ['b'.repeat(64)], ['has space']])('LANTERN_MINIO_BUCKET=%s is refused', (value) => {
    expect(problemOf({ ...MINIO, LANTERN_MINIO_BUCKET: value })).toBe(
      `LANTERN_MINIO_BUCKET must be a valid bucket name (3-63 lower-case letters, digits, dots, hyphens); got "${value}"`,
    );
  });

  it.each([['abc'], ['lantern.documents'], ['e2e-1234abcd'], ['b'.repeat(63)]])('LANTERN_MINIO_BUCKET=%s is taken', (value) => {
    expect(loadConfig({ ...MINIO, LANTERN_MINIO_BUCKET: value }).adapters.blobs).toMatchObject({ bucket: value });
  });
});

describe('loadConfig: RETENTION_DAYS', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['30', 30],
    ['36500', 36_500],
  ])('RETENTION_DAYS=%s is %d days (0 keeps telemetry forever)', (value, days) => {
    expect(loadConfig({ RETENTION_DAYS: value }).retentionDays).toBe(days);
  });

  it.each([['-1'], ['36501'], ['1.5'], ['thirty'], ['1e3']])('RETENTION_DAYS=%s is refused', (value) => {
    expect(problemOf({ RETENTION_DAYS: value })).toBe(`RETENTION_DAYS must be a whole number from 0 to 36500 (got "${value}")`);
  });
});

describe('loadConfig: every problem at once', () => {
  it('lists each wrong or missing variable by name, in one error', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      RETENTION_DAYS: '-5',
      LANTERN_STORE: 'mongo',
      LANTERN_BUS: 'kafka',
      LANTERN_KAFKA_BROKERS: 'kafka',
      LANTERN_KAFKA_PARTITIONS: '0',
      LANTERN_BLOBS: 'minio',
      LANTERN_MINIO_URL: 'http://minio:9000',
      LANTERN_MINIO_BUCKET: 'X',
    });
    const names = ['PORT', 'RETENTION_DAYS', 'LANTERN_MONGO_URL', 'LANTERN_KAFKA_BROKERS', 'LANTERN_KAFKA_PARTITIONS', 'LANTERN_MINIO_URL', 'LANTERN_MINIO_BUCKET'];
    expect(problems).toHaveLength(names.length);
    for (const name of names) expect(problems.filter((p) => p.startsWith(name))).toHaveLength(1);
  });

  it('an unknown adapter kind is reported along with the other problems, and its addresses are not asked for', () => {
    const problems = problemsOf({ LANTERN_STORE: 'postgres', LANTERN_BUS: 'kafka', LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: 'http://key:secret-key@m:9000' });
    expect(problems).toEqual([
      'LANTERN_STORE must be one of sqlite, mongo (got "postgres")',
      expect.stringMatching(/^LANTERN_KAFKA_BROKERS is required/),
    ]);
  });
});

describe('loadConfig: no error message shows a password', () => {
  const SECRET = 'S3cr3tPassw0rd';
  const cases: Array<[string, Env]> = [
    // A MongoDB URL with a wrong scheme, a malformed one, one with a password in its options.
    ['mongo: scheme', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:${SECRET}@mongo:27017/db` }],
    ['http: scheme', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `http://u:${SECRET}@mongo:27017` }],
    ['no scheme', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `u:${SECRET}@mongo:27017` }],
    ['no slashes', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb:u:${SECRET}@mongo` }],
    ['only a password', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb:${SECRET}@mongo` }],
    ['hosts list of a wrong scheme', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:${SECRET}@h1:27017,h2:27017/db` }],
    ['no host after the credentials', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb://u:${SECRET}@/db` }],
    ['an empty host in a seed list', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb://u:${SECRET}@h1:27017,,h2:27017/db` }],
    ['"@" in the password', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:${SECRET}@x@mongo:27017` }],
    ['"/" in the password', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:123/${SECRET}@mongo` }],
    ['"#" in the password', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:123#${SECRET}@mongo` }],
    ['"?" in the password', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://u:${SECRET.slice(0, 6)}?${SECRET.slice(6)}@mongo` }],
    ['password in the options', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://mongo:27017/?tlsCertificateKeyFilePassword=${SECRET}` }],
    ['password in the options, no scheme', { LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo:27017/?tlsCertificateKeyFilePassword=${SECRET}` }],
    // A MinIO URL with its secret.
    ['ftp: scheme', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `ftp://key:${SECRET}@minio:9000` }],
    ['s3: scheme', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `s3://key:${SECRET}@minio:9000` }],
    ['no scheme', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `key:${SECRET}@minio:9000` }],
    ['no host', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `http://key:${SECRET}@` }],
    ['no access key', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `http://:${SECRET}@minio:9000` }],
    ['"?" in the secret, wrong scheme', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `ftp://key:123?${SECRET}@minio:9000` }],
    ['bad port', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `http://key:${SECRET}@minio:port` }],
    ['secret only', { LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `http://${SECRET}@minio:9000` }],
    // A URL set in the wrong variable.
    ['URL as LANTERN_STORE', { LANTERN_STORE: `mongodb://u:${SECRET}@mongo:27017` }],
    ['URL as LANTERN_BLOBS', { LANTERN_BLOBS: `http://key:${SECRET}@minio:9000` }],
    ['URL as the broker list', { LANTERN_BUS: 'kafka', LANTERN_KAFKA_BROKERS: `kafka:9092,user:${SECRET}@kafka:9092` }],
    ['URL as the bucket', { ...MINIO, LANTERN_MINIO_BUCKET: `http://key:${SECRET}@minio:9000` }],
    ['URL as the database', { ...MONGO, LANTERN_MONGO_DATABASE: `mongodb://u:${SECRET}@mongo` }],
    ['URL as the topic prefix', { ...KAFKA, LANTERN_KAFKA_TOPIC_PREFIX: `u:${SECRET}@kafka` }],
    ['URL as PORT', { PORT: `http://u:${SECRET}@host:80` }],
    ['URL as RATE_LIMIT_ENABLED', { RATE_LIMIT_ENABLED: `http://u:${SECRET}@host` }],
  ];

  it.each(cases)('%s: %j', (_label, env) => {
    const text = errorText(env);
    expect(text).not.toContain(SECRET);
    // Not even a part of it (a message cut at a "?" or "/" would show the start).
    expect(text).not.toContain(SECRET.slice(0, 6));
    expect(text).not.toContain(encodeURIComponent(SECRET));
  });

  it('a URL with a wrong scheme is still shown, without its credentials, so the person sees what is wrong', () => {
    expect(problemOf({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongo://admin:${SECRET}@mongo.internal:27017/lantern` })).toBe(
      'LANTERN_MONGO_URL must start with mongodb:// or mongodb+srv:// and name a host (got "mongo://***@mongo.internal:27017/lantern")',
    );
    expect(problemOf({ LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `ftp://key:${SECRET}@minio:9000` })).toBe(
      'LANTERN_MINIO_URL must start with http:// or https:// and name a host (got "ftp://***@minio:9000/")',
    );
    expect(problemOf({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: 'postgres://db.internal:5432/x?sslpassword=abc' })).toBe(
      'LANTERN_MONGO_URL must start with mongodb:// or mongodb+srv:// and name a host (got "postgres://db.internal:5432/x?…")',
    );
  });

  it('a malformed value with an "@" is not shown at all', () => {
    expect(problemOf({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `u:${SECRET}@mongo:27017` })).toBe(
      'LANTERN_MONGO_URL must start with mongodb:// or mongodb+srv:// and name a host (got (not shown: it may hold a password))',
    );
    expect(problemOf({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb://u:${SECRET}@/db` })).toBe(
      'LANTERN_MONGO_URL must name at least one host: mongodb://[user:password@]host[:port][,host[:port]…][/database][?options] (got (not shown: it may hold a password))',
    );
  });

  it('a MongoDB seed list of several hosts (a replica set) is taken as given', () => {
    const url = `mongodb://u:${SECRET}@h1:27017,h2:27017,h3:27017/db?replicaSet=rs0`;
    expect(loadConfig({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: url }).adapters.store).toEqual({ kind: 'mongo', url, database: 'lantern' });
  });

  it('a MinIO key or secret shorter than MinIO accepts is refused without showing it', () => {
    const problem = problemOf({ LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: 'http://key:S3cr3t@minio:9000' });
    expect(problem).toBe('LANTERN_MINIO_URL: the access key must have at least 3 characters and the secret at least 8');
  });

  it('a valid configuration keeps the URLs whole (the adapters need the credentials)', () => {
    const config = loadConfig({ LANTERN_STORE: 'mongo', LANTERN_MONGO_URL: `mongodb://u:${SECRET}@mongo:27017`, LANTERN_BLOBS: 'minio', LANTERN_MINIO_URL: `http://key:${SECRET}@minio:9000` });
    expect(config.adapters.store).toMatchObject({ url: `mongodb://u:${SECRET}@mongo:27017` });
    expect(config.adapters.blobs).toMatchObject({ url: `http://key:${SECRET}@minio:9000` });
  });
});

describe('loadConfig: the HTTP server\'s timeouts and connection cap', () => {
  it('has the documented defaults, and reads each variable', () => {
    expect(loadConfig({}).server).toEqual({ headersTimeoutMs: 15_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 65_000, maxConnections: 10_000 });
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '60000', KEEP_ALIVE_TIMEOUT_MS: '75000', MAX_CONNECTIONS: '2000' }).server)
      .toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 75_000, maxConnections: 2000 });
  });

  it('refuses a timeout of 0 (no bound) or a cap of 0, naming the variable', () => {
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '0', REQUEST_TIMEOUT_MS: '0', KEEP_ALIVE_TIMEOUT_MS: '0', MAX_CONNECTIONS: '0' }).join('\n'))
      .toMatch(/HEADERS_TIMEOUT_MS[\s\S]*REQUEST_TIMEOUT_MS[\s\S]*KEEP_ALIVE_TIMEOUT_MS[\s\S]*MAX_CONNECTIONS must be a whole number from 1/);
  });

  it('refuses a headers timeout longer than the request timeout (Node would refuse to start)', () => {
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toEqual([
      'HEADERS_TIMEOUT_MS (20000) must not be more than REQUEST_TIMEOUT_MS (10000): the headers are part of the request',
    ]);
  });
});
