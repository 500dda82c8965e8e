// bench/console: what the trace-view measurement needs, made through the HTTP API: an account with an organization,
// project, application and API key, and one trace of many spans sent to POST /ingest/traces, read back once stored.
import { randomUUID } from 'node:crypto';

async function call(base, method, path, { token, apiKey, body } = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
    },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Signs up and creates an organization, a project, an application and an API key. */
export async function createAccount(base) {
  const email = `bench-${Date.now()}@example.com`;
  const { token } = await call(base, 'POST', '/auth/register', { body: { email, password: 'bench console password' } });
  const org = await call(base, 'POST', '/organizations', { token, body: { name: 'bench' } });
  const project = await call(base, 'POST', '/projects', { token, body: { organizationId: org.id, name: 'bench' } });
  const app = await call(base, 'POST', '/applications', { token, body: { projectId: project.id, name: 'checkout' } });
  const { key } = await call(base, 'POST', `/applications/${app.id}/api-keys`, { token, body: { name: 'bench' } });
  return { token, organizationId: org.id, projectId: project.id, applicationId: app.id, apiKey: key };
}

/**
 * One trace of `count` spans, three levels deep like a busy request: a root controller span, 50 service spans under
 * it, and the rest spread under those (database calls, outgoing requests, inner services), each starting a little
 * after the one before.
 */
export function makeTrace(count) {
  const traceId = randomUUID();
  const start = Date.now() - 60_000;
  const root = { traceId, spanId: randomUUID(), parentSpanId: null, timestamp: new Date(start).toISOString(), requestMethod: 'controller:GET', requestURL: '/bench/checkout', responseStatus: 200, durationMs: 9_000 };
  const spans = [root];
  const middle = [];
  for (let i = 0; i < Math.min(50, count - 1); i++) {
    const span = { traceId, spanId: randomUUID(), parentSpanId: root.spanId, timestamp: new Date(start + i * 170).toISOString(), requestMethod: `service:step${i}`, requestURL: '/bench/checkout', responseStatus: 200, durationMs: 160 };
    spans.push(span);
    middle.push(span);
  }
  for (let i = 0; spans.length < count; i++) {
    const parent = middle[i % middle.length];
    const kind = i % 3 === 0 ? 'external:postgres' : i % 3 === 1 ? 'external:payments-api' : 'service:price';
    const at = Date.parse(parent.timestamp) + (Math.floor(i / middle.length) % 150);
    spans.push({ traceId, spanId: randomUUID(), parentSpanId: parent.spanId, timestamp: new Date(at).toISOString(), requestMethod: kind, requestURL: kind.startsWith('external:') ? 'http://db.internal/query' : '/bench/checkout', responseStatus: i % 997 === 0 ? 503 : 200, durationMs: 1 + (i % 7) });
  }
  return { traceId, spans };
}

/** Sends the spans in one batch (the API takes up to 10,000 items), then polls until all of them are readable. */
export async function ingestAndWait(base, account, { traceId, spans }, timeoutMs = 60_000) {
  const answer = await call(base, 'POST', '/ingest/traces', { apiKey: account.apiKey, body: { timestamp: new Date().toISOString(), traces: spans } });
  if (answer.accepted !== spans.length) throw new Error(`ingest accepted ${answer.accepted} of ${spans.length}: ${JSON.stringify(answer.rejected.slice(0, 3))}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const records = await call(base, 'GET', `/logs/project?id=${account.projectId}&traceId=${traceId}`, { token: account.token });
    const stored = records.reduce((n, r) => n + r.telemetry.length, 0);
    if (stored >= spans.length) return;
    if (Date.now() > deadline) throw new Error(`${stored} of ${spans.length} spans readable after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
