import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, register, type Registered } from './accounts-helpers.js';
import { BOUNDARY, blobKeys, createAiTenant, listDocs, tempFiles } from './ai-helpers.js';
import { expectServerError, healthz, listenWithLimits, rawConnection } from './abuse-helpers.js';
import { createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectRateLimited, IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';
import { waitFor } from './process-helpers.js';

/**
 * Abusive clients, part 2 (issue 13): bodies sent too slowly, bodies nested too deep, and a login flood, on real
 * sockets against the server every Lantern process runs (createHttpServer). Full-size figures: bench/abuse/run.mjs.
 */
describe('abusive bodies: a trickled upload, JSON nested 100,000 deep', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  let listening: Awaited<ReturnType<typeof listenWithLimits>>;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'abuse-bodies');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'trickle');
    listening = await listenWithLimits(l, { headersTimeoutMs: 500, requestTimeoutMs: 1500 });
  });
  afterAll(async () => {
    await listening.close();
    await l.stop();
  });

  it('cuts an upload trickled slower than the request timeout allows with 408, and keeps nothing of it (no blob, no temp file, no record)', async () => {
    const c = await rawConnection(listening.port);
    const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`);
    const declared = head.length + 10 * 1024 * 1024 - 64;
    c.socket.write(`POST /ai/docs?TenantId=${tenantId} HTTP/1.1\r\nHost: lantern\r\nAuthorization: Bearer ${t.token}\r\n`
      + `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declared}\r\n\r\n`);
    c.socket.write(head);
    // 1 KiB every 50 ms (20 KiB/s): 10 MiB would take more than 8 minutes.
    let sent = 0;
    const drip = setInterval(() => {
      if (c.isClosed()) return;
      c.socket.write(Buffer.alloc(1024, 'a'));
      sent += 1024;
    }, 50);
    try {
      expect((await healthz(listening.port)).status).toBe(200);
      await c.closed;
    } finally {
      clearInterval(drip);
    }
    expect(sent).toBeGreaterThan(8 * 1024);
    expectServerError(c.received(), 408, 'request_timeout');
    // The route's cleanup runs as the part stream errors: nothing is left once it has.
    await waitFor('the partial upload removed', async () => ((await tempFiles(l)).length === 0 ? true : undefined), 10_000);
    expect(await blobKeys(l)).toEqual([]);
    expect(await listDocs(l, t.token, tenantId)).toEqual([]);
  });

  it('answers 400 at once to JSON nested 100,000 levels deep (four at a time), without a stack overflow', async () => {
    const body = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const post = () => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: listening.port, method: 'POST', path: '/ingest/traces', agent: false,
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': t.apiKey } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
    const answers = await Promise.all([post(), post(), post(), post()]);
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(JSON.parse(a.text).error).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('nested deeper than') });
    }
    expect((await healthz(listening.port)).status).toBe(200);
  });
});

describe('abusive clients: a login flood', () => {
  let l: Lantern;
  let victim: Registered;
  let other: Registered;
  beforeAll(async () => {
    // One proxy trusted, so each request can name its client address (X-Forwarded-For), as behind nginx.
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 5 }, trustProxy: 1 });
    victim = await register(l, 'flood-victim');
    other = await register(l, 'flood-other');
  });
  afterAll(() => l.stop());

  it('answers 429 with Retry-After to a flood of wrong-password logins from one address, while another user logs in from theirs', async () => {
    await inOneWindow(5000);
    const attempt = (email: string, password: string, address: string) =>
      l.http.post('/auth/login').set('X-Forwarded-For', address).send({ email, password });
    const flood = await Promise.all(Array.from({ length: 60 }, () => attempt(victim.email, 'wrong password!', '203.0.113.9')));
    const statuses = flood.map((r) => r.status);
    // Five are checked (and refused as wrong); every other is refused before any password is hashed.
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
    expectRateLimited(flood.find((r) => r.status === 429)!, 'your address');
    const ok = await attempt(other.email, 'correct horse battery', '198.51.100.7');
    expect(ok.status).toBe(200);
    expect(typeof ok.body.token).toBe('string');
    // The flooded address stays refused, even with the right password.
    expectError(await attempt(victim.email, 'correct horse battery', '203.0.113.9'), 429, 'rate_limited');
  }, IN_ONE_WINDOW_TIMEOUT);
});
