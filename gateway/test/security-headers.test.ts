import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { PASSWORD } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Every API answer carries `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`: successes, errors,
 * streamed reads, health. The console's files keep their own caching (console-route.test.ts) and nosniff.
 */
describe('security headers on API responses', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'headers');
  });
  afterAll(() => l.stop());

  const expectHeaders = (label: string, res: Response) => {
    expect({ label, cache: res.headers['cache-control'], nosniff: res.headers['x-content-type-options'] })
      .toEqual({ label, cache: 'no-store', nosniff: 'nosniff' });
  };

  it('on the token from /auth/login and /auth/register', async () => {
    expectHeaders('login', await l.http.post('/auth/login').send({ email: t.email, password: PASSWORD }).expect(200));
    expectHeaders('register', await l.http.post('/auth/register').send({ email: `h-${Date.now()}@example.com`, password: PASSWORD }).expect(201));
  });

  it('on JSON reads, streamed reads, ingest, no-content answers and health', async () => {
    await l.http.post('/ingest/logs').set('x-api-key', t.apiKey).send(logBatch([log()])).expect(200).then((r) => expectHeaders('ingest', r));
    expectHeaders('me', await l.http.get('/auth/me').set(bearer(t.token)).expect(200));
    expectHeaders('projects', await l.http.get(`/projects?organizationId=${t.organizationId}`).set(bearer(t.token)).expect(200));
    expectHeaders('streamed logs', await l.http.get('/ingest/logs').set(bearer(t.token)).expect(200));
    expectHeaders('streamed traces', await l.http.get(`/logs/project?id=${t.projectId}&limit=1`).set(bearer(t.token)).expect(200));
    expectHeaders('metrics', await l.http.get('/metrics').set(bearer(t.token)).expect(200));
    expectHeaders('openapi', await l.http.get('/openapi.json').expect(200));
    expectHeaders('healthz', await l.http.get('/healthz').expect(200));
    expectHeaders('readyz', await l.http.get('/readyz').expect(200));
    expectHeaders('204', await l.http.delete(`/api-keys/${t.apiKeyId}`).set(bearer(t.token)).expect(204));
  });

  it('on errors: 400, 401, 404 and 413', async () => {
    expectHeaders('400', await l.http.get('/projects').set(bearer(t.token)).expect(400));
    expectHeaders('401', await l.http.get('/auth/me').expect(401));
    expectHeaders('404', await l.http.get('/no/such/path').expect(404));
    expectHeaders('413', await l.http.post('/organizations').set(bearer(t.token)).send({ name: 'n'.repeat(40_000) }).expect(413));
  });

  it('on compressed answers too', async () => {
    const res = await l.http.get('/openapi.json').set('Accept-Encoding', 'gzip').expect(200);
    expect(res.headers['content-encoding']).toBe('gzip');
    expectHeaders('gzip', res);
  });
});
