import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, postRaw } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * The body rules every JSON endpoint of the accounts service shares, endpoint by endpoint: each case is sent
 * to each POST endpoint with a token, and checked to have created nothing.
 */
describe('accounts: request bodies of every POST endpoint', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'body');
  });
  afterAll(() => l.stop());

  /** [path, a valid body] of every POST endpoint that takes a JSON body. */
  const endpoints = (): Array<[string, Record<string, unknown>]> => [
    ['/auth/register', { email: 'fresh@example.com', password: 'correct horse battery' }],
    ['/auth/login', { email: t.email, password: 'correct horse battery' }],
    ['/organizations', { name: 'fresh org' }],
    [`/organizations/${t.organizationId}/members`, { email: t.email, role: 'owner' }],
    ['/projects', { name: 'fresh project', organizationId: t.organizationId }],
    ['/applications', { name: 'fresh app', projectId: t.projectId }],
    [`/applications/${t.applicationId}/api-keys`, { name: 'fresh key' }],
  ];

  /** What the account looks like: anything a wrongly accepted request would have created shows up here. */
  async function snapshot() {
    const get = async (path: string) => (await l.http.get(path).set(bearer(t.token)).expect(200)).body;
    return {
      orgs: await get('/organizations'),
      projects: await get(`/projects?organizationId=${t.organizationId}`),
      apps: await get(`/applications?projectId=${t.projectId}`),
      keys: (await get(`/applications/${t.applicationId}/api-keys`)).length,
    };
  }

  /** Sends `raw` to every endpoint and expects the error each time, and no change to the account. */
  async function expectEverywhere(raw: (valid: Record<string, unknown>) => string, status: number, code: string, contentType?: string) {
    const before = await snapshot();
    for (const [path, valid] of endpoints()) {
      const res = await postRaw(l, path, raw(valid), t.token, contentType);
      expect(`${path} ${res.status} ${res.body?.error?.code}`).toBe(`${path} ${status} ${code}`);
      expectError(res, status, code);
    }
    expect(await snapshot()).toEqual(before);
  }

  /** The valid body as JSON text with `extra` spliced in as the first member. */
  const withMember = (extra: string) => (valid: Record<string, unknown>) => `{${extra},${JSON.stringify(valid).slice(1)}`;

  it('the valid bodies are accepted (the cases below differ from them in one thing only)', async () => {
    for (const [path, valid] of endpoints()) {
      const res = await postRaw(l, path, JSON.stringify(valid), t.token);
      expect(`${path} ${res.status}`).toBe(`${path} ${path === '/auth/login' ? 200 : 201}`);
    }
  });

  it('answers 400 invalid_json for a malformed body', async () => {
    await expectEverywhere((v) => JSON.stringify(v).slice(0, -1), 400, 'invalid_json');
    await expectEverywhere(() => '{"name": "x",}', 400, 'invalid_json');
  });

  it('answers 415 unsupported_media_type for a JSON body sent as text/plain', async () => {
    await expectEverywhere((v) => JSON.stringify(v), 415, 'unsupported_media_type', 'text/plain');
  });

  it('answers 400 validation_failed for a "__proto__" key in the raw JSON', async () => {
    await expectEverywhere(withMember('"__proto__":{"role":"owner","isAdmin":true}'), 400, 'validation_failed');
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });

  it('answers 400 validation_failed for a "constructor" key in the raw JSON', async () => {
    await expectEverywhere(withMember('"constructor":{"prototype":{"isAdmin":true}}'), 400, 'validation_failed');
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });

  it('answers 400 validation_failed for an operator object {"$gt": ""} in place of a value', async () => {
    await expectEverywhere((v) => {
      const [field] = Object.keys(v);
      return JSON.stringify({ ...v, [field!]: { $gt: '' } });
    }, 400, 'validation_failed');
  });

  it('answers 400 validation_failed for an unknown extra field', async () => {
    await expectEverywhere(withMember('"isAdmin":true'), 400, 'validation_failed');
  });

  it('answers 400 validation_failed for a body that is not a JSON object', async () => {
    await expectEverywhere(() => '["name"]', 400, 'validation_failed');
    await expectEverywhere(() => '"a string"', 400, 'validation_failed');
  });

  it('answers 413 payload_too_large for a body over the 16 KiB accounts limit', async () => {
    await expectEverywhere((v) => JSON.stringify({ ...v, name: 'n'.repeat(20_000) }), 413, 'payload_too_large');
  });
});
