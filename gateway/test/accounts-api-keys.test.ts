import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, ISO_MS } from './accounts-helpers.js';
import { bearer, createTenancy, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';

const CREATED_KEYS = ['applicationId', 'createdAt', 'id', 'key', 'name', 'prefix', 'projectId'];

describe('accounts: API keys', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'ka');
    b = await createTenancy(l, 'kb');
  });
  afterAll(() => l.stop());

  const createKey = (token: string, appId: number | string, body?: object) => {
    const req = l.http.post(`/applications/${appId}/api-keys`).set(bearer(token));
    return body ? req.send(body) : req;
  };
  const listKeys = (token: string, appId: number | string) => l.http.get(`/applications/${appId}/api-keys`).set(bearer(token));
  const ingest = (key: string) => l.http.post('/ingest/traces').set('x-api-key', key).send(traceBatch([span()]));

  it('POST answers 201 {id, applicationId, projectId, name, prefix, key, createdAt} and the key ingests', async () => {
    const res = await createKey(a.token, a.applicationId, { name: ' ci ' }).expect(201);
    expect(Object.keys(res.body).filter((k) => k !== 'revokedAt').sort()).toEqual(CREATED_KEYS);
    expect(res.body).toMatchObject({ applicationId: a.applicationId, projectId: a.projectId, name: 'ci' });
    expect(typeof res.body.id).toBe('string');
    expect(res.body.key).toMatch(/^lk_[A-Za-z0-9_-]{43}$/);
    expect(res.body.key.startsWith(res.body.prefix)).toBe(true);
    expect(res.body.prefix.length).toBeLessThan(res.body.key.length);
    expect(res.body.createdAt).toMatch(ISO_MS);
    expect(res.body.revokedAt ?? null).toBeNull();
    expect(res.text).not.toMatch(/hash/i);
    const ingested = await ingest(res.body.key).expect(200);
    expect(ingested.body).toEqual({ accepted: 1, rejected: [] });
  });

  it('POST without a body names the key "default"; every key is different', async () => {
    const one = await createKey(a.token, a.applicationId).expect(201);
    const two = await createKey(a.token, a.applicationId).expect(201);
    expect(one.body.name).toBe('default');
    expect(one.body.key).not.toBe(two.body.key);
    expect(one.body.id).not.toBe(two.body.id);
  });

  it('GET lists the keys with their prefix, never the key itself nor its hash', async () => {
    const created = await createKey(a.token, a.applicationId, { name: 'listed' }).expect(201);
    const res = await listKeys(a.token, a.applicationId).expect(200);
    expect(Array.isArray(res.body)).toBe(true);
    const listed = res.body.find((k: { id: string }) => k.id === created.body.id);
    expect(listed).toMatchObject({ id: created.body.id, applicationId: a.applicationId, projectId: a.projectId, name: 'listed', prefix: created.body.prefix, createdAt: created.body.createdAt });
    for (const k of res.body) {
      expect(Object.keys(k).filter((f) => !['id', 'applicationId', 'projectId', 'name', 'prefix', 'createdAt', 'revokedAt'].includes(f))).toEqual([]);
    }
    expect(res.text).not.toContain(created.body.key);
    expect(res.text).not.toContain(a.apiKey);
    expect(res.text).not.toMatch(/hash|"key"/i);
  });

  it('DELETE /api-keys/{id} answers 204 with no body; the key is then refused for ingest with 401', async () => {
    const created = await createKey(a.token, a.applicationId, { name: 'doomed' }).expect(201);
    await ingest(created.body.key).expect(200);
    const del = await l.http.delete(`/api-keys/${created.body.id}`).set(bearer(a.token)).expect(204);
    expect(del.text).toBe('');
    expectError(await ingest(created.body.key), 401, 'unauthorized');
    const listed = (await listKeys(a.token, a.applicationId).expect(200)).body.find((k: { id: string }) => k.id === created.body.id);
    expect(listed?.revokedAt).toMatch(ISO_MS);
    // The application's other keys keep working.
    await ingest(a.apiKey).expect(200);
  });

  it('answers 404 to another organization for its keys and applications, and the key keeps working', async () => {
    expectError(await createKey(b.token, a.applicationId, { name: 'stolen' }), 404, 'not_found');
    expectError(await listKeys(b.token, a.applicationId), 404, 'not_found');
    expectError(await l.http.delete(`/api-keys/${a.apiKeyId}`).set(bearer(b.token)), 404, 'not_found');
    await ingest(a.apiKey).expect(200);
    const names = (await listKeys(a.token, a.applicationId).expect(200)).body.map((k: { name: string }) => k.name);
    expect(names).not.toContain('stolen');
  });

  it('answers 404 for an application that does not exist or an id of the wrong type', async () => {
    for (const id of ['999999', 'abc', '0', '-3', '1.5', '%24gt']) {
      expectError(await createKey(a.token, id, { name: 'x' }), 404, 'not_found');
      expectError(await listKeys(a.token, id), 404, 'not_found');
    }
  });

  it('DELETE answers 404 for a key id that does not exist', async () => {
    expectError(await l.http.delete('/api-keys/00000000-0000-4000-8000-000000000000').set(bearer(a.token)), 404, 'not_found');
    expectError(await l.http.delete('/api-keys/not-a-key').set(bearer(a.token)), 404, 'not_found');
  });

  it.each([
    ['a name of the wrong type', { name: 7 }],
    ['an empty name', { name: '' }],
    ['a name over 200 characters', { name: 'k'.repeat(201) }],
    ['an unknown extra field', { name: 'k', scopes: ['admin'] }],
    ['a key chosen by the caller', { key: `lk_${'a'.repeat(43)}` }],
    ['an operator object as the name', { name: { $gt: '' } }],
  ])('POST answers 400 validation_failed for %s and creates no key', async (_label, body) => {
    const before = (await listKeys(a.token, a.applicationId).expect(200)).body.length;
    expectError(await createKey(a.token, a.applicationId, body), 400, 'validation_failed');
    expect((await listKeys(a.token, a.applicationId).expect(200)).body).toHaveLength(before);
  });

  it('a key of one application ingests into its own application and project only', async () => {
    const other = await l.http.post('/applications').set(bearer(a.token)).send({ name: 'second', projectId: a.projectId }).expect(201);
    const key = await createKey(a.token, other.body.id, { name: 'second' }).expect(201);
    expect(key.body).toMatchObject({ applicationId: other.body.id, projectId: a.projectId });
    const traceId = span()['traceId'] as string;
    await l.http.post('/ingest/traces').set('x-api-key', key.body.key).send(traceBatch([span({ traceId })])).expect(200);
    const read = await l.http.get(`/logs/project?id=${a.projectId}`).set(bearer(a.token)).expect(200);
    const record = read.body.find((r: { traceId: string }) => r.traceId === traceId);
    expect(record).toMatchObject({ applicationId: other.body.id, projectId: a.projectId });
  });
});
