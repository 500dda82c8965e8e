/**
 * The HTTP API used directly (fetch), for what a test or the benchmark prepares without the console: an account
 * with an organization, project, application and API key, and waiting until a trace is readable.
 */

export interface Account {
  email: string;
  password: string;
  token: string;
  organizationId: number;
  projectId: number;
  applicationId: number;
  apiKey: string;
}

async function call<T>(baseUrl: string, method: string, path: string, token?: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Registers a user and creates an organization, a project, an application and an API key. */
export async function createAccount(baseUrl: string, name = 'e2e'): Promise<Account> {
  const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'a long e2e password';
  const { token } = await call<{ token: string }>(baseUrl, 'POST', '/auth/register', undefined, { email, password });
  const org = await call<{ id: number }>(baseUrl, 'POST', '/organizations', token, { name: `${name} org` });
  const project = await call<{ id: number }>(baseUrl, 'POST', '/projects', token, { organizationId: org.id, name: `${name} project` });
  const app = await call<{ id: number }>(baseUrl, 'POST', '/applications', token, { projectId: project.id, name: `${name} app` });
  const key = await call<{ key: string }>(baseUrl, 'POST', `/applications/${app.id}/api-keys`, token, { name: 'e2e' });
  return { email, password, token, organizationId: org.id, projectId: project.id, applicationId: app.id, apiKey: key.key };
}

/** Polls `GET /logs/project?traceId=` until the trace has at least `spans` spans; returns how many it has. */
export async function waitForTrace(baseUrl: string, account: Account, traceId: string, spans = 1, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = await call<Array<{ telemetry: unknown[] }>>(baseUrl, 'GET', `/logs/project?id=${account.projectId}&traceId=${traceId}`, account.token);
    const count = records.reduce((n, r) => n + r.telemetry.length, 0);
    if (count >= spans) return count;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} has ${count} of ${spans} spans after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends one batch of spans or logs with an application's API key, as an SDK would; fails unless ingest answers 200. */
export async function ingest(baseUrl: string, apiKey: string, kind: 'traces' | 'logs', items: object[]): Promise<void> {
  const res = await fetch(`${baseUrl}/ingest/${kind}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ timestamp: new Date().toISOString(), [kind]: items }),
  });
  if (res.status !== 200) throw new Error(`POST /ingest/${kind}: ${res.status} ${(await res.text()).slice(0, 300)}`);
}
