import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ISO_MS, addMember, expectError, register, type Registered } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';
import { IN_ONE_WINDOW_TIMEOUT, inOneWindow } from './limits-helpers.js';

describe('accounts: invitations the invitee accepts', () => {
  let l: Lantern;
  let owner: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    owner = await createTenancy(l, 'inviter');
  });
  afterAll(() => l.stop());

  const invite = (email: string, role?: string, token = owner.token, org = owner.organizationId) =>
    l.http.post(`/organizations/${org}/members`).set(bearer(token)).send(role ? { email, role } : { email });
  const pending = async (u: { token: string }) =>
    (await l.http.get('/invitations').set(bearer(u.token)).expect(200)).body as Array<{ id: string; organization: { id: number; name: string }; role: string }>;
  const orgsOf = async (u: { token: string }) => (await l.http.get('/organizations').set(bearer(u.token)).expect(200)).body as Array<{ id: number; role: string }>;

  it('answers the same 201 body, with no user id, whether or not the email has an account', async () => {
    const known = await register(l, 'known');
    const ghost = `ghost-${randomUUID().slice(0, 8)}@example.com`;
    const a = await invite(known.email, 'admin').expect(201);
    const b = await invite(ghost, 'admin').expect(201);
    const shape = (body: Record<string, unknown>) => ({ ...body, email: '<email>', expiresAt: '<t>' });
    expect(shape(a.body)).toEqual(shape(b.body));
    expect(a.body).toEqual({ organizationId: owner.organizationId, email: known.email.toLowerCase(), role: 'admin', expiresAt: expect.stringMatching(ISO_MS) });
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
    expect(a.text).not.toContain(known.user.id);
  });

  it('expires after 7 days', async () => {
    const before = Date.now();
    const res = await invite(`week-${randomUUID().slice(0, 8)}@example.com`).expect(201);
    const ms = Date.parse(res.body.expiresAt) - before;
    expect(ms).toBeGreaterThanOrEqual(7 * 24 * 3600_000 - 1000);
    expect(ms).toBeLessThanOrEqual(7 * 24 * 3600_000 + 60_000);
  });

  it('adds nobody until the invitee accepts; then they are a member with the invited role, once', async () => {
    const invitee = await register(l, 'invitee');
    await invite(invitee.email.toUpperCase(), 'admin').expect(201);
    expect(await orgsOf(invitee)).toEqual([]);
    const [invitation, ...rest] = await pending(invitee);
    expect(rest).toEqual([]);
    expect(invitation).toEqual({
      id: expect.any(String), organization: { id: owner.organizationId, name: 'org inviter' }, role: 'admin',
      invitedBy: { name: 'inviter', email: owner.email }, createdAt: expect.stringMatching(ISO_MS), expiresAt: expect.stringMatching(ISO_MS),
    });
    // Visible only to the invitee: another user can neither accept nor decline it.
    const other = await register(l, 'other');
    expectError(await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(other.token)), 404, 'not_found');
    expectError(await l.http.post(`/invitations/${invitation!.id}/decline`).set(bearer(other.token)), 404, 'not_found');
    expect(await orgsOf(other)).toEqual([]);
    const accepted = await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(invitee.token)).expect(200);
    expect(accepted.body).toEqual({ id: owner.organizationId, name: 'org inviter', role: 'admin' });
    expect(await orgsOf(invitee)).toEqual([{ id: owner.organizationId, name: 'org inviter', role: 'admin' }]);
    expect(await pending(invitee)).toEqual([]);
    expectError(await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(invitee.token)), 404, 'not_found');
  });

  it('lets an invitation made before the account existed be accepted once the invitee registers', async () => {
    const email = `future-${randomUUID().slice(0, 8)}@example.com`;
    await invite(email).expect(201);
    const res = await l.http.post('/auth/register').send({ email, password: 'correct horse battery' }).expect(201);
    const invitee = { token: res.body.token as string };
    const [invitation] = await pending(invitee);
    await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(invitee.token)).expect(200);
    expect(await orgsOf(invitee)).toEqual([{ id: owner.organizationId, name: 'org inviter', role: 'member' }]);
  });

  it('declining removes the invitation and adds nobody', async () => {
    const invitee = await register(l, 'decliner');
    await invite(invitee.email).expect(201);
    const [invitation] = await pending(invitee);
    await l.http.post(`/invitations/${invitation!.id}/decline`).set(bearer(invitee.token)).expect(204);
    expect(await pending(invitee)).toEqual([]);
    expectError(await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(invitee.token)), 404, 'not_found');
    expect(await orgsOf(invitee)).toEqual([]);
  });

  it('replaces a pending invitation when the same email is invited again', async () => {
    const invitee = await register(l, 'twice');
    await invite(invitee.email, 'member').expect(201);
    const [first] = await pending(invitee);
    await invite(invitee.email, 'admin').expect(201);
    const list = await pending(invitee);
    expect(list.map((i) => i.role)).toEqual(['admin']);
    expect(list[0]!.id).not.toBe(first!.id);
    expectError(await l.http.post(`/invitations/${first!.id}/accept`).set(bearer(invitee.token)), 404, 'not_found');
  });

  it('answers 404 for an invitation id that is not a UUID or does not exist, and 401 without a token', async () => {
    const u: Registered = await register(l, 'nobody');
    for (const id of ['nope', randomUUID(), '../x']) expectError(await l.http.post(`/invitations/${encodeURIComponent(id)}/accept`).set(bearer(u.token)), 404, 'not_found');
    expectError(await l.http.get('/invitations'), 401, 'unauthorized');
    expectError(await l.http.post(`/invitations/${randomUUID()}/accept`), 401, 'unauthorized');
  });
});

describe('accounts: an invitation counts only while its inviter is an owner; owners list and withdraw them', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  const inviteAs = (token: string, org: number, email: string, role = 'member') =>
    l.http.post(`/organizations/${org}/members`).set(bearer(token)).send({ email, role });
  const pendingOf = async (u: { token: string }) => (await l.http.get('/invitations').set(bearer(u.token)).expect(200)).body as Array<{ id: string; organization: { id: number } }>;

  it('a removed owner cannot come back through an owner invitation they left for their own email', async () => {
    const creator = await createTenancy(l, `creator-${randomUUID().slice(0, 6)}`);
    const former = await register(l, 'former');
    await addMember(l, creator.token, creator.organizationId, former, 'owner');
    await inviteAs(former.token, creator.organizationId, former.email, 'owner').expect(201);
    const [own] = await pendingOf(former);
    await l.http.delete(`/organizations/${creator.organizationId}/members/${former.user.id}`).set(bearer(creator.token)).expect(204);
    expect(await pendingOf(former)).toEqual([]);
    expectError(await l.http.post(`/invitations/${own!.id}/accept`).set(bearer(former.token)), 404, 'not_found');
    expect((await l.http.get('/organizations').set(bearer(former.token)).expect(200)).body).toEqual([]);
  });

  it('a demoted owner\'s pending invitations are gone and cannot be accepted, and they can invite no more', async () => {
    const creator = await createTenancy(l, `creator-${randomUUID().slice(0, 6)}`);
    const former = await register(l, 'demoted');
    const friend = await register(l, 'friend');
    await addMember(l, creator.token, creator.organizationId, former, 'owner');
    await inviteAs(former.token, creator.organizationId, friend.email, 'owner').expect(201);
    const [invitation] = await pendingOf(friend);
    await l.http.patch(`/organizations/${creator.organizationId}/members/${former.user.id}`).set(bearer(creator.token)).send({ role: 'admin' }).expect(200);
    expectError(await l.http.post(`/invitations/${invitation!.id}/accept`).set(bearer(friend.token)), 404, 'not_found');
    expect((await l.http.get(`/organizations/${creator.organizationId}/invitations`).set(bearer(creator.token)).expect(200)).body).toEqual([]);
    expectError(await inviteAs(former.token, creator.organizationId, friend.email, 'owner'), 403, 'forbidden');
  });

  it('GET /organizations/{id}/invitations lists the pending ones to owners; DELETE withdraws one (204), then 404', async () => {
    const owner = await createTenancy(l, `lister-${randomUUID().slice(0, 6)}`);
    const admin = await register(l, 'admin');
    const member = await register(l, 'member');
    const stranger = await createTenancy(l, `stranger-${randomUUID().slice(0, 6)}`);
    await addMember(l, owner.token, owner.organizationId, admin, 'admin');
    await addMember(l, owner.token, owner.organizationId, member, 'member');
    const invitee = await register(l, 'invitee');
    await inviteAs(owner.token, owner.organizationId, invitee.email.toUpperCase(), 'admin').expect(201);
    const path = `/organizations/${owner.organizationId}/invitations`;
    const listed = await l.http.get(path).set(bearer(owner.token)).expect(200);
    expect(listed.body).toEqual([{
      id: expect.any(String), email: invitee.email.toLowerCase(), role: 'admin', expiresAt: expect.stringMatching(ISO_MS),
      invitedBy: { id: owner.userId, name: expect.any(String), email: owner.email },
    }]);
    const id = listed.body[0].id as string;
    expect((await pendingOf(invitee)).map((i) => i.id)).toEqual([id]);
    expectError(await l.http.get(path).set(bearer(admin.token)), 403, 'forbidden');
    expectError(await l.http.get(path).set(bearer(member.token)), 403, 'forbidden');
    expectError(await l.http.get(path).set(bearer(stranger.token)), 404, 'not_found');
    expectError(await l.http.get(path), 401, 'unauthorized');
    expectError(await l.http.delete(`${path}/${id}`).set(bearer(admin.token)), 403, 'forbidden');
    expectError(await l.http.delete(`${path}/${id}`).set(bearer(stranger.token)), 404, 'not_found');
    // An owner of another organization cannot withdraw it through their own.
    expectError(await l.http.delete(`/organizations/${stranger.organizationId}/invitations/${id}`).set(bearer(stranger.token)), 404, 'not_found');
    await l.http.delete(`${path}/${id}`).set(bearer(owner.token)).expect(204);
    expectError(await l.http.delete(`${path}/${id}`).set(bearer(owner.token)), 404, 'not_found');
    expectError(await l.http.delete(`${path}/not-a-uuid`).set(bearer(owner.token)), 404, 'not_found');
    expect((await l.http.get(path).set(bearer(owner.token)).expect(200)).body).toEqual([]);
    expect(await pendingOf(invitee)).toEqual([]);
    expectError(await l.http.post(`/invitations/${id}/accept`).set(bearer(invitee.token)), 404, 'not_found');
  });
});

describe('accounts: invitations are rate limited per inviting user', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1000, authPerMinute: 3 } });
  });
  afterAll(() => l.stop());

  it('answers 429 rate_limited with Retry-After past the limit, for known and unknown emails alike, and counts each owner apart', async () => {
    await inOneWindow(8_000); // the limit's windows are aligned on the minute
    const one = await createTenancy(l, 'rl-one');
    const two = await createTenancy(l, 'rl-two');
    const invite = (t: Tenancy, i: number) => l.http.post(`/organizations/${t.organizationId}/members`).set(bearer(t.token)).send({ email: `n${i}-${randomUUID().slice(0, 6)}@example.com` });
    for (let i = 0; i < 3; i++) await invite(one, i).expect(201);
    const refused = await invite(one, 3);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectError(await l.http.post(`/organizations/${one.organizationId}/members`).set(bearer(one.token)).send({ email: two.email }), 429, 'rate_limited');
    await invite(two, 0).expect(201);
  }, IN_ONE_WINDOW_TIMEOUT);
});
