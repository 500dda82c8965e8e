import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { allowedMethods, documentedRoutes } from '@lantern/domain';
import { expectError, postRaw } from './accounts-helpers.js';
import { bearer, createTenancy, listenOnPort, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Issue 13: a path the API serves, asked with a method it does not serve, is 405 with `Allow` and the error body
 * (the embedded gateway: one app, every router); and a JSON body that is not an object is 400 everywhere.
 */

/** A raw request over a real socket: fetch refuses TRACE, which is the method the fuzzer sent. */
function raw(port: number, method: string, path: string): Promise<{ status: number; allow: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers['allow'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('405 Method Not Allowed with Allow, in the embedded gateway', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  it('answers TRACE /projects 405 (was 404), Allow: GET, HEAD, POST, OPTIONS, with the error body', async () => {
    const server = await listenOnPort(l);
    try {
      const res = await raw(server.port, 'TRACE', '/projects');
      expect(res.status).toBe(405);
      expect(res.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(JSON.parse(res.body)).toEqual({ error: { code: 'method_not_allowed', message: expect.any(String), details: [{ allow: ['GET', 'HEAD', 'POST', 'OPTIONS'] }] } });
    } finally {
      await server.close();
    }
  });

  it.each([
    ['delete', '/ingest/logs', 'GET, HEAD, POST, OPTIONS'],
    ['get', '/ingest/traces', 'POST, OPTIONS'],
    ['put', '/organizations/1/members', 'GET, HEAD, POST, OPTIONS'],
    ['get', '/organizations/1/members/9b2f1c1e-8a5d-4a43-9d1c-1b1e7d9d0f3a', 'PATCH, DELETE, OPTIONS'],
    ['patch', '/api-keys/anything', 'DELETE, OPTIONS'],
    ['post', '/metrics', 'GET, HEAD, OPTIONS'],
    ['delete', '/projects/', 'GET, HEAD, POST, OPTIONS'],
    ['post', '/openapi.json', 'GET, HEAD, OPTIONS'],
  ] as const)('answers %s %s 405 with Allow: %s, before any credential is asked for', async (method, path, allow) => {
    const res = await l.http[method](path);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers['allow']).toBe(allow);
  });

  it('answers OPTIONS 204 with Allow, and serves HEAD wherever GET is served', async () => {
    const options = await l.http.options('/applications/3/api-keys');
    expect(options.status).toBe(204);
    expect(options.headers['allow']).toBe('GET, HEAD, POST, OPTIONS');
    expect((await l.http.head('/projects')).status).toBe(401);
  });

  it('keeps 404 for paths the API does not have', async () => {
    expectError(await l.http.delete('/nothing/here'), 404, 'not_found');
    expectError(await l.http.get('/projects/1/nothing'), 404, 'not_found');
  });

  it('has one route table for the routers and the guard: every route the app serves is in it, and every entry is served', () => {
    // What the Express app really routes (each router's routes, and the app's own /healthz and /readyz), as
    // "METHOD /path/{}" ...
    interface Layer { route?: { path: string | string[]; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } }
    const served = new Set<string>();
    const walk = (stack: Layer[]) => {
      for (const layer of stack) {
        if (layer.route) {
          const paths = ([] as string[]).concat(layer.route.path);
          for (const m of Object.keys(layer.route.methods)) {
            for (const path of paths) if (m !== '_all') served.add(`${m.toUpperCase()} ${path.replace(/:\w+/g, '{}')}`);
          }
        } else if (layer.handle?.stack) walk(layer.handle.stack);
      }
    };
    walk((l.app as unknown as { router: { stack: Layer[] } }).router.stack);
    // The console's files (gateway/src/console-route.ts) are pages, not the API: not in its table (POST / is 404).
    for (const page of ['GET /', 'GET /index.html', 'GET /favicon.ico']) expect(served.delete(page)).toBe(true);
    // ... against the table the guard answers from (the OpenAPI document's paths, /openapi.json, /healthz, /readyz).
    const table = new Set<string>();
    for (const [template, methods] of Object.entries({ ...documentedRoutes(), '/openapi.json': ['get'], '/healthz': ['get'], '/readyz': ['get'] })) {
      for (const m of methods) table.add(`${m.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '{}')}`);
    }
    expect([...served].sort()).toEqual([...table].sort());
    // And the guard lets each through, for a concrete path.
    for (const entry of table) {
      const [method, template] = entry.split(' ') as [string, string];
      expect({ entry, allowed: allowedMethods(template.replace(/\{\}/g, '1'))?.includes(method) }).toEqual({ entry, allowed: true });
    }
  });
});

describe('a JSON body that is not an object is 400 validation_failed', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'bodies');
  });
  afterAll(() => l.stop());

  const NOT_OBJECTS = ['null', '[]', '[{"name":"x"}]', '1', '"name"', 'true'];

  it.each(NOT_OBJECTS)('POST /applications/{id}/api-keys, whose body is optional, refuses %s (null was 201)', async (body) => {
    const res = await postRaw(l, `/applications/${t.applicationId}/api-keys`, body, t.token);
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.message).toMatch(/must be a JSON object/);
  });

  it('still creates a key without a body at all', async () => {
    const res = await l.http.post(`/applications/${t.applicationId}/api-keys`).set(bearer(t.token));
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('default');
  });

  it.each(NOT_OBJECTS)('every other JSON body refuses %s too', async (body) => {
    expectError(await postRaw(l, '/organizations', body, t.token), 400, 'validation_failed');
    expectError(await postRaw(l, '/auth/login', body), 400, 'validation_failed');
    expectError(await postRaw(l, '/ai/tenant', body, t.token), 400, 'validation_failed');
    const ingest = await l.http.post('/ingest/logs').set('x-api-key', t.apiKey).set('Content-Type', 'application/json').send(body);
    expectError(ingest, 400, 'validation_failed');
  });
});
