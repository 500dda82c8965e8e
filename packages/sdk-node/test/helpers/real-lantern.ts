import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPasswordHasher } from '@lantern/auth';
import { createEmbedded } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';

/** The whole Lantern (every service, SQLite, in-process bus) listening on a free port, as in gateway/test/harness.ts. */
export interface RealLantern {
  url: string;
  stop(): Promise<void>;
}

export async function startRealLantern(): Promise<RealLantern> {
  const dataDir = await mkdtemp(join(tmpdir(), 'lantern-sdk-test-'));
  const embedded = await createEmbedded({
    dataDir,
    jwtSecret: 'test-secret-that-is-long-enough-0123456789',
    jwtTtlSeconds: 3600,
    rateLimit: { enabled: false, ingestPerMinute: 1000, authPerMinute: 1000 },
    apiKeyCacheMs: 0,
    trustProxy: 0,
    logger: createLogger({ service: 'sdk-test', silent: true }),
    storeFile: ':memory:',
    passwordHasher: createPasswordHasher({ N: 1024, r: 8, p: 1 }),
  });
  const server = http.createServer(embedded.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await embedded.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Account {
  token: string;
  projectId: number;
  applicationId: number;
  apiKey: string;
}

async function api<T>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A user, organization, project and application with an API key, made through the HTTP API; `apps` more applications share the project. */
export async function createAccount(l: RealLantern, apps = 1): Promise<{ account: Account; apiKeys: string[] }> {
  const label = randomUUID().slice(0, 8);
  const reg = await api<{ token: string }>(l.url, 'POST', '/auth/register', { email: `sdk-${label}@example.com`, password: 'correct horse battery', name: label });
  const org = await api<{ id: number }>(l.url, 'POST', '/organizations', { name: `org ${label}` }, reg.token);
  const project = await api<{ id: number }>(l.url, 'POST', '/projects', { name: `project ${label}`, organizationId: org.id }, reg.token);
  const apiKeys: string[] = [];
  let applicationId = 0;
  for (let i = 0; i < apps; i++) {
    const app = await api<{ id: number }>(l.url, 'POST', '/applications', { name: `app ${label} ${i}`, projectId: project.id }, reg.token);
    const key = await api<{ key: string }>(l.url, 'POST', `/applications/${app.id}/api-keys`, { name: 'sdk test' }, reg.token);
    if (i === 0) applicationId = app.id;
    apiKeys.push(key.key);
  }
  return { account: { token: reg.token, projectId: project.id, applicationId, apiKey: apiKeys[0]! }, apiKeys };
}

export interface StoredSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  timestamp: string;
  requestMethod: string;
  requestURL: string;
  responseStatus: number;
  durationMs: number;
  [extra: string]: unknown;
}

export interface TraceRecord {
  id: string;
  projectId: number;
  applicationId: number;
  traceId: string;
  timestamp: string;
  telemetry: StoredSpan[];
}

export interface StoredLog {
  id: string;
  projectId: number;
  applicationId: number;
  traceId?: string;
  level: string;
  type: string;
  message: string;
  timestamp: string;
  clientTimestamp: string;
  [extra: string]: unknown;
}

/** GET /logs/project?id= with the JWT. */
export const readTraces = (l: RealLantern, a: Account) => api<TraceRecord[]>(l.url, 'GET', `/logs/project?id=${a.projectId}`, undefined, a.token);

/** GET /ingest/logs with the JWT. */
export const readLogs = (l: RealLantern, a: Account) => api<StoredLog[]>(l.url, 'GET', '/ingest/logs', undefined, a.token);
