import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, register } from './accounts-helpers.js';
import { bearer, startLantern, type Lantern } from './harness.js';
import { expectDocumentedRefusal } from './limits-helpers.js';

/** Per-organization limits would multiply with the organizations a user creates: those are capped per user. */
describe('organizations: at most MAX_ORGANIZATIONS_PER_USER created per user', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern({ limits: { maxOrganizationsPerUser: 3 } });
  });
  afterAll(() => l.stop());

  const create = (token: string, name = 'org') => l.http.post('/organizations').set(bearer(token)).send({ name });

  it('refuses one more with 429 too_many_organizations and Retry-After: 60, creating nothing; leaving one gives none back', async () => {
    const u = await register(l, 'org-cap');
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await create(u.token, `o${i}`).expect(201)).body as { id: number });
    const res = await create(u.token, 'one too many');
    expectError(res, 429, 'too_many_organizations');
    expect(res.body.error.details).toEqual([{ maxOrganizations: 3 }]);
    expect(res.body.error.message).toMatch(/deleting or leaving/i);
    expect(res.headers['retry-after']).toBe('60');
    expectDocumentedRefusal('POST', '/organizations', res);
    expect((await l.http.get('/organizations').set(bearer(u.token)).expect(200)).body).toHaveLength(3);

    // Leaving one (after handing it to another owner) does not give one back.
    const heir = await register(l, 'org-heir');
    await l.http.post(`/organizations/${made[0]!.id}/members`).set(bearer(u.token)).send({ email: heir.email, role: 'owner' }).expect(201);
    const [invitation] = (await l.http.get('/invitations').set(bearer(heir.token)).expect(200)).body as Array<{ id: string }>;
    await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(heir.token)).expect(200);
    await l.http.delete(`/organizations/${made[0]!.id}/members/${u.user.id}`).set(bearer(u.token)).expect(204);
    expectError(await create(u.token), 429, 'too_many_organizations');

    // Being invited into an organization is not creating one; another user has their own count.
    await create(heir.token).expect(201);
  });

  it('parallel creations pass the cap only as many times as it allows', async () => {
    const u = await register(l, 'org-race');
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => create(u.token, `r${i}`)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 429, 'too_many_organizations');
    expect((await l.http.get('/organizations').set(bearer(u.token)).expect(200)).body).toHaveLength(3);
  });
});
