import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createMinioBlobStore, minioOptionsFromUrl } from '@lantern/blobs/minio';
import { createLantern } from '@lantern/sdk-node';
import { CONSOLE_CSP } from '../src/console-route.js';
import { expectError } from './accounts-helpers.js';
import { FIXTURE_ACCEPTED, FIXTURE_REJECTED, MAX_UPLOAD, createAiTenant, fixture, listDocs, sha256, upload } from './ai-helpers.js';
import { describeAuthorizationMatrix } from './authorization-matrix.shared.js';
import { startCluster, type Cluster } from './distributed/cluster.js';
import { eventually } from './distributed/eventually.js';
import { bearer, createTenancy, log, logBatch, type Tenancy } from './harness.js';
import { logs, traces } from './telemetry-helpers.js';

/**
 * The distributed mode end to end: accounts, ingest, writer, query and ai each a process of its own on mongod,
 * Kafka and MinIO, everything through nginx (gateway/nginx.conf).
 */

const objectExists = async (c: Cluster, tenantId: string, documentId: string): Promise<boolean> => {
  const blobs = await createMinioBlobStore(minioOptionsFromUrl(process.env.LANTERN_TEST_MINIO_URL!, c.env.LANTERN_MINIO_BUCKET!));
  try {
    return await blobs.exists(`tenants/${tenantId}/documents/${documentId}`);
  } finally {
    await blobs.close();
  }
};

describe('distributed: register to read-back through nginx', () => {
  let c: Cluster;
  let t: Tenancy;
  beforeAll(async () => {
    c = await startCluster();
    t = await createTenancy(c, 'e2e');
  }, 180_000);
  afterAll(() => c?.stop());

  it('nginx answers its own /healthz, and /readyz of the services behind it', async () => {
    await c.http.get('/healthz').expect(200, { status: 'ok' });
    await c.http.get('/readyz').expect(200);
    for (const procs of Object.values(c.procs)) {
      for (const p of procs) {
        const ready = await fetch(`http://127.0.0.1:${p.port}/readyz`);
        expect([p.service, ready.status]).toEqual([p.service, 200]);
      }
    }
  });

  it('nginx serves the console: index.html at / with the embedded mode\'s headers, its bundle, the API\'s 404 beyond', async () => {
    const page = await c.http.get('/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Lantern</title>');
    expect(page.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const js = await c.http.get(script!).expect(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectError(await c.http.get('/assets/missing.js'), 404, 'not_found');
  });

  it('an app instrumented with the SDK sends through the gateway; its traces and logs are read back', async () => {
    const lantern = createLantern({ apiKey: t.apiKey, ingestUrl: c.url, flushIntervalMs: 60_000, flushOnExit: false });
    const app = http.createServer(
      lantern.wrap(async (req, res) => {
        await lantern.service('work', async () => lantern.log.info('did the work', { path: req.url }));
        res.end('ok');
      }),
    );
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 20; i++) expect((await fetch(`${base}/orders/${i}`)).status).toBe(200);
    } finally {
      app.close();
    }
    const stats = await lantern.close({ timeoutMs: 20_000 });
    expect(stats.traces).toMatchObject({ sent: 40, dropped: 0 });
    expect(stats.logs).toMatchObject({ sent: 20, dropped: 0 });
    await eventually(async () => {
      const records = await traces(c, t, { limit: 100 });
      expect(records).toHaveLength(20);
      for (const r of records) expect(r.telemetry.map((s) => s.requestMethod).sort()).toEqual(['controller:GET', 'service:work']);
      const entries = await logs(c, t, { limit: 100 });
      expect(entries.filter((e) => e.message === 'did the work')).toHaveLength(20);
    });
    // The metrics routes nginx sends to query: per operation (the SDK names each request by its method) and the map.
    const operations = await c.http.get('/metrics/operations').set(bearer(t.token)).expect(200);
    expect(operations.body.operations).toEqual([expect.objectContaining({ applicationId: t.applicationId, operation: 'GET', requests: 20 })]);
    const map = await c.http.get(`/metrics/services?projectId=${t.projectId}`).set(bearer(t.token)).expect(200);
    expect(map.body).toMatchObject({ nodes: [{ applicationId: t.applicationId, requests: 20 }], edges: [] });
  });

  it('X-Request-Id: the caller\'s reaches the service and comes back; without one, nginx makes one the service uses', async () => {
    const given = await c.http.get('/auth/me').set(bearer(t.token)).set('X-Request-Id', 'e2e-request-0001').expect(200);
    expect(given.headers['x-request-id']).toBe('e2e-request-0001');
    const made = await c.http.get('/auth/me').set(bearer(t.token)).expect(200);
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/); // nginx's $request_id, not the service's UUID
  });

  it('GET /ingest/logs goes to query and POST /ingest/logs to ingest', async () => {
    const read = await c.http.get('/ingest/logs').set(bearer(t.token)).expect(200);
    expect(Array.isArray(read.body)).toBe(true);
    await c.http.post('/ingest/logs').set('x-api-key', t.apiKey).send(logBatch([log({ message: 'routed' })])).expect(200, { accepted: 1, rejected: [] });
  });

  describe('documents in MinIO', () => {
    let tenantId: string;
    beforeAll(async () => {
      tenantId = await createAiTenant(c, t.token, t.organizationId, 'e2e documents');
    });

    it.each(Object.keys(FIXTURE_ACCEPTED))('stores %s as an object byte for byte', async (name) => {
      const bytes = fixture(name);
      const res = await upload(c, t.token, tenantId, bytes, name).expect(200);
      expect(res.body).toMatchObject({ filename: name, contentType: FIXTURE_ACCEPTED[name], size: bytes.length, sha256: sha256(bytes) });
      expect(await objectExists(c, tenantId, res.body.id)).toBe(true);
    });

    it.each(Object.entries(FIXTURE_REJECTED))('refuses %s (%i) and keeps nothing', async (name, [status, code]) => {
      const before = await listDocs(c, t.token, tenantId);
      expectError(await upload(c, t.token, tenantId, fixture(name), name), status, code);
      expect(await listDocs(c, t.token, tenantId)).toEqual(before);
    });

    it('a file of exactly 10 MiB passes nginx and is stored; one byte more is refused by ai with the API\'s 413', async () => {
      const max = Buffer.alloc(MAX_UPLOAD, 'a');
      const ok = await upload(c, t.token, tenantId, max, 'max.txt').expect(200);
      expect(ok.body.size).toBe(MAX_UPLOAD);
      const over = await upload(c, t.token, tenantId, Buffer.alloc(MAX_UPLOAD + 1, 'a'), 'over.txt');
      expectError(over, 413, 'payload_too_large');
      expect((await listDocs(c, t.token, tenantId)).map((d) => d.filename)).not.toContain('over.txt');
    }, 60_000);

    it('DELETE removes the record and the object', async () => {
      const res = await upload(c, t.token, tenantId, Buffer.from('to be deleted\n'), 'gone.txt').expect(200);
      await c.http.delete(`/ai/docs/${res.body.id}`).set(bearer(t.token)).expect(204);
      expect(await objectExists(c, tenantId, res.body.id)).toBe(false);
    });
  });

  /** A raw request over a real socket (supertest will not send TRACE). */
  const raw = (method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> =>
    new Promise((resolve, reject) => {
      const { hostname, port } = new URL(c.url);
      const req = http.request({ host: hostname, port, method, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('405 with Allow and the error body through nginx: a method nginx refuses itself (TRACE), and one routed to a service that does not serve it', async () => {
    for (const [method, path, allow] of [['TRACE', '/projects', 'GET, HEAD, POST, OPTIONS'], ['DELETE', '/ingest/logs', 'GET, HEAD, POST, OPTIONS'], ['PUT', '/metrics', 'GET, HEAD, OPTIONS']] as const) {
      const res = await raw(method, path);
      expect({ method, path, status: res.status, allow: res.headers['allow'] }).toEqual({ method, path, status: 405, allow });
      expect(JSON.parse(res.body).error.code).toBe('method_not_allowed');
    }
  });

  // Last in this cluster: it spends the address's login allowance at nginx for some seconds.
  it('nginx limits logins per address on every spelling the services route (case, trailing slash), with the API\'s 429', async () => {
    // GET, so that what passes nginx is the service's 405 (before its own login throttle), never a login.
    const statuses: number[] = [];
    let refused: { status: number; headers: http.IncomingHttpHeaders; body: string } | undefined;
    for (let i = 0; i < 150; i++) {
      const res = await raw('GET', i % 2 ? '/Auth/Login/' : '/AUTH/REGISTER');
      statuses.push(res.status);
      if (res.status === 429) refused ??= res;
    }
    expect(statuses.filter((s) => s === 405).length).toBeGreaterThanOrEqual(100); // the burst
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(refused!.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused!.body).error.code).toBe('rate_limited');
  });
});

describe('distributed: the authorization matrix through nginx', () => {
  describeAuthorizationMatrix(async () => {
    const c = await startCluster();
    return {
      http: c.http,
      settle: (check) => eventually(check),
      documentStored: (tenantId, documentId) => objectExists(c, tenantId, documentId),
      stop: () => c.stop(),
    };
  });
});
