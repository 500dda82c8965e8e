import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, expectError, register, type Registered } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

describe('accounts: members, role changes and the last owner', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  const members = (token: string, org: number) => l.http.get(`/organizations/${org}/members`).set(bearer(token));
  const setRole = (token: string, org: number, userId: string, role: string) => l.http.patch(`/organizations/${org}/members/${userId}`).set(bearer(token)).send({ role });
  const remove = (token: string, org: number, userId: string) => l.http.delete(`/organizations/${org}/members/${userId}`).set(bearer(token));
  const roleOf = async (u: { token: string }, org: number) =>
    ((await l.http.get('/organizations').set(bearer(u.token)).expect(200)).body as Array<{ id: number; role: string }>).find((o) => o.id === org)?.role ?? null;

  /** An organization: its creator, a co-owner, an admin and a member, all through invitations. */
  async function team(label: string): Promise<{ creator: Tenancy; coOwner: Registered; admin: Registered; member: Registered; org: number }> {
    const creator = await createTenancy(l, label);
    const coOwner = await register(l, `${label}-co`);
    const admin = await register(l, `${label}-admin`);
    const member = await register(l, `${label}-member`);
    await addMember(l, creator.token, creator.organizationId, coOwner, 'owner');
    await addMember(l, creator.token, creator.organizationId, admin, 'admin');
    await addMember(l, creator.token, creator.organizationId, member, 'member');
    return { creator, coOwner, admin, member, org: creator.organizationId };
  }

  it('lists the members with their roles and the creator marked, to any member; 404 to anyone else', async () => {
    const t = await team('list');
    const stranger = await register(l, 'stranger');
    const res = await members(t.member.token, t.org).expect(200);
    const byEmail = Object.fromEntries((res.body as Array<{ user: { email: string }; role: string; creator: boolean }>).map((m) => [m.user.email, [m.role, m.creator]]));
    expect(byEmail).toEqual({
      [t.creator.email]: ['owner', true], [t.coOwner.email]: ['owner', false], [t.admin.email]: ['admin', false], [t.member.email]: ['member', false],
    });
    expect(res.text).not.toMatch(/password|hash/i);
    expectError(await members(stranger.token, t.org), 404, 'not_found');
    expectError(await members(t.member.token, 999_999), 404, 'not_found');
  });

  it('lets an owner change a role (200 with the member) and remove a member (204); admins and members get 403', async () => {
    const t = await team('change');
    expectError(await setRole(t.admin.token, t.org, t.member.user.id, 'admin'), 403, 'forbidden');
    expectError(await setRole(t.member.token, t.org, t.member.user.id, 'owner'), 403, 'forbidden');
    expectError(await remove(t.admin.token, t.org, t.member.user.id), 403, 'forbidden');
    expect(await roleOf(t.member, t.org)).toBe('member');
    const res = await setRole(t.coOwner.token, t.org, t.member.user.id, 'admin').expect(200);
    expect(res.body).toEqual({ user: t.member.user, role: 'admin', creator: false });
    expect(await roleOf(t.member, t.org)).toBe('admin');
    await remove(t.coOwner.token, t.org, t.member.user.id).expect(204);
    expect(await roleOf(t.member, t.org)).toBeNull();
    expectError(await l.http.get(`/projects?organizationId=${t.org}`).set(bearer(t.member.token)), 404, 'not_found');
  });

  it('does not let a co-owner demote or remove the creator; the creator can demote the co-owner', async () => {
    const t = await team('creator');
    expectError(await setRole(t.coOwner.token, t.org, t.creator.userId, 'member'), 403, 'forbidden');
    expectError(await remove(t.coOwner.token, t.org, t.creator.userId), 403, 'forbidden');
    expect(await roleOf(t.creator, t.org)).toBe('owner');
    await setRole(t.creator.token, t.org, t.coOwner.user.id, 'admin').expect(200);
    expect(await roleOf(t.coOwner, t.org)).toBe('admin');
  });

  it('never leaves the organization without an owner: the last owner cannot step down or leave (409)', async () => {
    const t = await team('last');
    await remove(t.creator.token, t.org, t.coOwner.user.id).expect(204);
    expectError(await setRole(t.creator.token, t.org, t.creator.userId, 'admin'), 409, 'conflict');
    expectError(await remove(t.creator.token, t.org, t.creator.userId), 409, 'conflict');
    expect(await roleOf(t.creator, t.org)).toBe('owner');
    // With another owner, the creator may step down.
    await setRole(t.creator.token, t.org, t.admin.user.id, 'owner').expect(200);
    await setRole(t.creator.token, t.org, t.creator.userId, 'member').expect(200);
    expect(await roleOf(t.creator, t.org)).toBe('member');
    expectError(await setRole(t.admin.token, t.org, t.admin.user.id, 'admin'), 409, 'conflict');
  });

  it('lets a member leave by removing themselves', async () => {
    const t = await team('leave');
    await remove(t.member.token, t.org, t.member.user.id).expect(204);
    expect(await roleOf(t.member, t.org)).toBeNull();
  });

  it('answers 404 for a user who is not a member, a malformed user id, and an organization of someone else; 400 for a bad role', async () => {
    const t = await team('bad');
    const other = await createTenancy(l, 'bad-other');
    expectError(await setRole(t.creator.token, t.org, randomUUID(), 'admin'), 404, 'not_found');
    expectError(await setRole(t.creator.token, t.org, other.userId, 'admin'), 404, 'not_found');
    expectError(await remove(t.creator.token, t.org, 'not-a-uuid'), 404, 'not_found');
    expectError(await setRole(t.creator.token, other.organizationId, other.userId, 'member'), 404, 'not_found');
    expect(await roleOf(other, other.organizationId)).toBe('owner');
    for (const body of [{}, { role: 'root' }, { role: 'admin', extra: 1 }]) {
      expectError(await l.http.patch(`/organizations/${t.org}/members/${t.member.user.id}`).set(bearer(t.creator.token)).send(body), 400, 'validation_failed');
    }
  });
});
