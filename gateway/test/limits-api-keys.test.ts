import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, startLantern, type Lantern, type Tenancy } from './harness.js';
import { expectDocumentedRefusal } from './limits-helpers.js';
import { addApplication, sendLogs } from './telemetry-helpers.js';

/** A cap on active (unrevoked) keys per application (issue 18): keys cannot be minted without limit. */
describe('API keys: at most MAX_API_KEYS_PER_APPLICATION active keys per application', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern({ limits: { maxApiKeysPerApplication: 3 } });
    t = await createTenancy(l, 'lim-keys');
  });
  afterAll(() => l.stop());

  const create = (applicationId: number) => l.http.post(`/applications/${applicationId}/api-keys`).set(bearer(t.token)).send({ name: 'k' });
  const activeKeys = async (applicationId: number) =>
    ((await l.http.get(`/applications/${applicationId}/api-keys`).set(bearer(t.token)).expect(200)).body as Array<{ revokedAt: string | null }>)
      .filter((k) => k.revokedAt === null).length;

  it('refuses one key past the cap with 429 too_many_keys and Retry-After 60 (as every 429), creating nothing', async () => {
    await create(t.applicationId).expect(201);
    const third = await create(t.applicationId).expect(201);
    const res = await create(t.applicationId);
    expectError(res, 429, 'too_many_keys');
    expect(res.body.error.details).toEqual([{ maxActiveKeys: 3 }]);
    expect(res.headers['retry-after']).toBe('60');
    expectDocumentedRefusal('POST', '/applications/{id}/api-keys', res);
    expect(await activeKeys(t.applicationId)).toBe(3);

    // Revoking one makes room for one; the revoked key does not count.
    await l.http.delete(`/api-keys/${third.body.id}`).set(bearer(t.token)).expect(204);
    const replacement = await create(t.applicationId).expect(201);
    expectError(await create(t.applicationId), 429, 'too_many_keys');
    // The keys below the cap work.
    await sendLogs(l, replacement.body.key, logBatch([log()])).expect(200);
  });

  it('counts per application: another application of the project has its own cap', async () => {
    const other = await addApplication(l, t, 'lim keys other');
    await create(other.applicationId).expect(201);
    await create(other.applicationId).expect(201);
    expectError(await create(other.applicationId), 429, 'too_many_keys');
  });
});

/**
 * The cap is part of the store's creation: parallel requests cannot all pass a count taken before any of them
 * wrote. On the embedded SQLite store one process runs the requests, so this holds even for a separate count; the
 * race shows across processes on MongoDB (limits.distributed.test.ts), and the store contract checks both stores.
 */
describe('API keys: the cap holds under parallel creations', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern({ limits: { maxApiKeysPerApplication: 20 } });
  });
  afterAll(() => l.stop());

  it('30 parallel POSTs for an application with a cap of 20 create exactly 20; the others are 429 too_many_keys', async () => {
    const t = await createTenancy(l, 'lim-keys-race');
    const app = await l.http.post('/applications').set(bearer(t.token)).send({ name: 'race', projectId: t.projectId }).expect(201);
    const results = await Promise.all(Array.from({ length: 30 }, () =>
      l.http.post(`/applications/${app.body.id}/api-keys`).set(bearer(t.token)).send({ name: 'k' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 429, 'too_many_keys');
    const listed = (await l.http.get(`/applications/${app.body.id}/api-keys`).set(bearer(t.token)).expect(200)).body as Array<{ revokedAt: string | null }>;
    expect(listed.filter((k) => k.revokedAt === null)).toHaveLength(20);
  });
});
