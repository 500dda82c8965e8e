import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPasswordHasher, type PasswordHasher } from '@lantern/auth';
import type { ChunkingConfig, EmbeddingsConfig, LimitsConfig } from '@lantern/config';
import { createEmbedded, type Embedded } from '@lantern/gateway';
import { createLogger, type Logger } from '@lantern/logging';
import request from 'supertest';

/** Cheap scrypt parameters for tests only (the product uses OWASP's N = 2^17). */
export const fastHash = createPasswordHasher({ N: 1024, r: 8, p: 1 });

export interface Lantern extends Embedded {
  dataDir: string;
  http: ReturnType<typeof request>;
  stop(): Promise<void>;
}

/** Anything the HTTP helpers can talk to: the embedded app under supertest, or a running gateway's URL. */
export type HttpTarget = Pick<Lantern, 'http'>;

export interface StartOptions {
  /** Extract, chunk and index uploads (default false: the upload tests see documents stay `stored`). */
  processDocuments?: boolean;
  rateLimit?: { enabled: boolean; ingestPerMinute: number; authPerMinute: number };
  /** The fair limits; what is left out takes its default. */
  limits?: Partial<LimitsConfig>;
  apiKeyCacheMs?: number;
  /** Use a SQLite file under the data dir instead of memory. */
  fileStore?: boolean;
  /** Where the services log; silent by default. */
  logger?: Logger;
  /** READ_BUDGET_MS and STREAM_BUDGET_MS (default 10 s and 120 s); tests of the budgets make them tiny. */
  readBudgetMs?: number;
  streamBudgetMs?: number;
  /** The password hasher (default fastHash). */
  passwordHasher?: PasswordHasher;
  /** TRUST_PROXY (default 0): 1 lets a test speak for several client addresses with X-Forwarded-For. */
  trustProxy?: number;
  /** LANTERN_CHUNK_TOKENS/OVERLAP (default 800/400). */
  chunking?: ChunkingConfig;
  /** Semantic search's provider (LANTERN_EMBEDDINGS_*; default off). */
  embeddings?: EmbeddingsConfig;
  /** An existing data dir (a restart on a fileStore: pass the first Lantern's, closed with close()); default a new one. */
  dataDir?: string;
}

/** The whole embedded Lantern (every service, real SQLite, in-process bus, filesystem blobs) for supertest. */
export async function startLantern(options: StartOptions = {}): Promise<Lantern> {
  const dataDir = options.dataDir ?? await mkdtemp(join(tmpdir(), 'lantern-test-'));
  const embedded = await createEmbedded({
    dataDir,
    jwtSecret: 'test-secret-that-is-long-enough-0123456789',
    jwtTtlSeconds: 3600,
    rateLimit: options.rateLimit ?? { enabled: false, ingestPerMinute: 1000, authPerMinute: 1000 },
    apiKeyCacheMs: options.apiKeyCacheMs ?? 0,
    trustProxy: options.trustProxy ?? 0,
    logger: options.logger ?? createLogger({ service: 'test', silent: true }),
    ...(options.fileStore ? {} : { storeFile: ':memory:' }),
    passwordHasher: options.passwordHasher ?? fastHash,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.readBudgetMs === undefined ? {} : { readBudgetMs: options.readBudgetMs }),
    ...(options.streamBudgetMs === undefined ? {} : { streamBudgetMs: options.streamBudgetMs }),
    // Uploaded documents stay `stored` unless a test asks for them to be processed (ai-knowledge tests).
    processDocuments: options.processDocuments ?? false,
    ...(options.chunking ? { chunking: options.chunking } : {}),
    ...(options.embeddings ? { embeddings: options.embeddings } : {}),
  });
  return {
    ...embedded,
    dataDir,
    http: request(embedded.app),
    async stop() {
      await embedded.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The embedded app listening on a free port of 127.0.0.1, for tests that need a real socket (raw requests). */
export async function listenOnPort(l: Pick<Lantern, 'app'>): Promise<{ port: number; close(): Promise<void> }> {
  const server = l.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Tenancy {
  token: string;
  userId: string;
  email: string;
  organizationId: number;
  projectId: number;
  applicationId: number;
  apiKey: string;
  apiKeyId: string;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Registers a user and creates an organization, project, application and API key through the HTTP API. */
export async function createTenancy(l: HttpTarget, label = randomUUID().slice(0, 8)): Promise<Tenancy> {
  const email = `user-${label}@example.com`;
  const reg = await l.http.post('/auth/register').send({ email, password: 'correct horse battery', name: label }).expect(201);
  const token: string = reg.body.token;
  const org = await l.http.post('/organizations').set(bearer(token)).send({ name: `org ${label}` }).expect(201);
  const project = await l.http.post('/projects').set(bearer(token)).send({ name: `project ${label}`, organizationId: org.body.id }).expect(201);
  const app = await l.http.post('/applications').set(bearer(token)).send({ name: `app ${label}`, projectId: project.body.id }).expect(201);
  const key = await l.http.post(`/applications/${app.body.id}/api-keys`).set(bearer(token)).send({ name: 'test' }).expect(201);
  return {
    token,
    userId: reg.body.user.id,
    email,
    organizationId: org.body.id,
    projectId: project.body.id,
    applicationId: app.body.id,
    apiKey: key.body.key,
    apiKeyId: key.body.id,
  };
}

export { bearer };

/** A valid span; override any field. */
export function span(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    traceId: randomUUID(),
    spanId: randomUUID(),
    parentSpanId: null,
    timestamp: new Date().toISOString(),
    requestMethod: 'controller:GET',
    requestURL: '/cart',
    responseStatus: 200,
    durationMs: 12,
    ...overrides,
  };
}

/** A valid log; override any field. */
export function log(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { level: 'error', type: 'app', message: 'payment failed', timestamp: new Date().toISOString(), ...overrides };
}

export const traceBatch = (traces: unknown[]) => ({ timestamp: new Date().toISOString(), traces });
export const logBatch = (logs: unknown[]) => ({ timestamp: new Date().toISOString(), logs });
