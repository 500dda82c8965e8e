import { describe, expect, it } from '@jest/globals';
import { newId } from '@lantern/domain';
import { ISO, makeUser, makeWorld, sleep, UUID } from './fixtures.js';
import type { StoreContext } from './fixtures.js';

const DAY = 24 * 60 * 60 * 1000;

/** Members, the rules of role changes and removals, and invitations. */
export function membersContract(ctx: StoreContext): void {
  describe('members and role changes', () => {
    /** An organization with its creator, a second owner, an admin and a member. */
    async function team() {
      const { user: creator, org } = await makeWorld(ctx.store);
      const [owner, admin, member] = [await makeUser(ctx.store, 'owner'), await makeUser(ctx.store, 'admin'), await makeUser(ctx.store, 'member')];
      await ctx.store.addMember(org.id, owner.id, 'owner');
      await ctx.store.addMember(org.id, admin.id, 'admin');
      await ctx.store.addMember(org.id, member.id, 'member');
      return { org, creator, owner, admin, member };
    }

    it('lists the members by user id with their roles and the creator marked, to members only', async () => {
      const { org, creator, owner, admin, member } = await team();
      const stranger = await makeUser(ctx.store, 'stranger');
      const expected = [
        { user: creator, role: 'owner', creator: true }, { user: owner, role: 'owner', creator: false },
        { user: admin, role: 'admin', creator: false }, { user: member, role: 'member', creator: false },
      ].sort((a, b) => (a.user.id < b.user.id ? -1 : 1));
      expect(await ctx.store.listMembers(org.id, member.id)).toEqual(expected);
      expect(await ctx.store.listMembers(org.id, stranger.id)).toEqual([]);
      expect(await ctx.store.listMembers(org.id + 1000, creator.id)).toEqual([]);
    });

    it('lets an owner change roles and remove members; anyone else is forbidden, and a stranger not_found', async () => {
      const { org, owner, admin, member } = await team();
      const stranger = await makeUser(ctx.store, 'stranger');
      expect(await ctx.store.changeRole(org.id, owner.id, member.id, 'admin')).toBe('done');
      expect(await ctx.store.getRole(org.id, member.id)).toBe('admin');
      expect(await ctx.store.changeRole(org.id, admin.id, member.id, 'member')).toBe('forbidden');
      expect(await ctx.store.removeMember(org.id, admin.id, member.id)).toBe('forbidden');
      expect(await ctx.store.changeRole(org.id, stranger.id, member.id, 'member')).toBe('not_found');
      expect(await ctx.store.changeRole(org.id, owner.id, stranger.id, 'member')).toBe('not_found');
      expect(await ctx.store.removeMember(org.id, owner.id, member.id)).toBe('done');
      expect(await ctx.store.getRole(org.id, member.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, admin.id)).toBe('admin');
    });

    it('lets any member leave, but protects the creator from everyone but themselves', async () => {
      const { org, creator, owner, member } = await team();
      expect(await ctx.store.removeMember(org.id, member.id, member.id)).toBe('done');
      expect(await ctx.store.changeRole(org.id, owner.id, creator.id, 'member')).toBe('forbidden');
      expect(await ctx.store.removeMember(org.id, owner.id, creator.id)).toBe('forbidden');
      expect(await ctx.store.getRole(org.id, creator.id)).toBe('owner');
      expect(await ctx.store.changeRole(org.id, creator.id, creator.id, 'admin')).toBe('done');
      expect(await ctx.store.getRole(org.id, creator.id)).toBe('admin');
      expect(await ctx.store.removeMember(org.id, owner.id, creator.id)).toBe('forbidden');
    });

    it('never leaves an organization without an owner: the last owner cannot be demoted or removed, nor leave', async () => {
      const { org, creator, owner } = await team();
      expect(await ctx.store.removeMember(org.id, creator.id, owner.id)).toBe('done');
      expect(await ctx.store.changeRole(org.id, creator.id, creator.id, 'admin')).toBe('last_owner');
      expect(await ctx.store.removeMember(org.id, creator.id, creator.id)).toBe('last_owner');
      expect(await ctx.store.changeRole(org.id, creator.id, creator.id, 'owner')).toBe('done');
      expect(await ctx.store.getRole(org.id, creator.id)).toBe('owner');
    });

    it('keeps one owner when two owners step down at the same time', async () => {
      for (let round = 0; round < 5; round++) {
        const { user: a, org } = await makeWorld(ctx.store, `race${round}`);
        const b = await makeUser(ctx.store, 'b');
        await ctx.store.addMember(org.id, b.id, 'owner');
        const outcomes = await Promise.all([ctx.store.changeRole(org.id, a.id, a.id, 'member'), ctx.store.removeMember(org.id, b.id, b.id)]);
        expect(outcomes.slice().sort()).toEqual(['done', 'last_owner']);
        const owners = (await ctx.store.listMembers(org.id, outcomes[0] === 'done' ? b.id : a.id)).filter((m) => m.role === 'owner');
        expect(owners).toHaveLength(1);
      }
    });
  });

  describe('invitations', () => {
    it('creates an invitation the invitee lists by their email in any case, whether they registered before or after', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const email = `Later-${newId()}@Example.test`;
      const invitation = await ctx.store.createInvitation({ organizationId: org.id, email, role: 'admin', invitedBy: owner.id, ttlMs: 7 * DAY });
      expect(invitation).toEqual({
        id: expect.stringMatching(UUID), organization: { id: org.id, name: org.name }, role: 'admin',
        invitedBy: { name: owner.name, email: owner.email }, createdAt: expect.stringMatching(ISO), expiresAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * DAY);
      const invitee = await ctx.store.createUser({ email: email.toLowerCase(), name: 'later', passwordHash: 'h' });
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([invitation]);
      expect(await ctx.store.listInvitations(owner.id)).toEqual([]);
      expect(await ctx.store.getRole(org.id, invitee.id)).toBeNull();
    });

    it('replaces a pending invitation of the same email to the same organization', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const invitee = await makeUser(ctx.store, 'invitee');
      const first = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'member', invitedBy: owner.id, ttlMs: DAY });
      const second = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email.toUpperCase(), role: 'owner', invitedBy: owner.id, ttlMs: DAY });
      expect(second.id).not.toBe(first.id);
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([second]);
      expect(await ctx.store.acceptInvitation(first.id, invitee.id)).toBeNull();
    });

    it('accepting makes the invitee a member with the invited role, once; nobody else can accept it', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const invitee = await makeUser(ctx.store, 'invitee');
      const other = await makeUser(ctx.store, 'other');
      const invitation = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'admin', invitedBy: owner.id, ttlMs: DAY });
      expect(await ctx.store.acceptInvitation(invitation.id, other.id)).toBeNull();
      expect(await ctx.store.declineInvitation(invitation.id, other.id)).toBe(false);
      expect(await ctx.store.acceptInvitation(invitation.id, invitee.id)).toEqual({ id: org.id, name: org.name, role: 'admin' });
      expect(await ctx.store.getRole(org.id, invitee.id)).toBe('admin');
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([]);
      expect(await ctx.store.acceptInvitation(invitation.id, invitee.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, other.id)).toBeNull();
    });

    it('an existing member who accepts keeps their role: an invitation never lowers one', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const invitation = await ctx.store.createInvitation({ organizationId: org.id, email: owner.email, role: 'member', invitedBy: owner.id, ttlMs: DAY });
      expect(await ctx.store.acceptInvitation(invitation.id, owner.id)).toEqual({ id: org.id, name: org.name, role: 'owner' });
      expect(await ctx.store.getRole(org.id, owner.id)).toBe('owner');
    });

    it('declining removes the invitation without a membership', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const invitee = await makeUser(ctx.store, 'invitee');
      const invitation = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'member', invitedBy: owner.id, ttlMs: DAY });
      expect(await ctx.store.declineInvitation(invitation.id, invitee.id)).toBe(true);
      expect(await ctx.store.declineInvitation(invitation.id, invitee.id)).toBe(false);
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([]);
      expect(await ctx.store.acceptInvitation(invitation.id, invitee.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, invitee.id)).toBeNull();
    });

    it('an expired invitation is neither listed nor accepted', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const invitee = await makeUser(ctx.store, 'invitee');
      const invitation = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'member', invitedBy: owner.id, ttlMs: 20 });
      await sleep(40);
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([]);
      expect(await ctx.store.acceptInvitation(invitation.id, invitee.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, invitee.id)).toBeNull();
    });

    it('an invitation counts only while its inviter is an owner: a demoted owner\'s invitation is gone, even one they sent after', async () => {
      const { user: creator, org } = await makeWorld(ctx.store);
      const former = await makeUser(ctx.store, 'former');
      await ctx.store.addMember(org.id, former.id, 'owner');
      const invitee = await makeUser(ctx.store, 'invitee');
      const before = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'owner', invitedBy: former.id, ttlMs: DAY });
      const kept = await ctx.store.createInvitation({ organizationId: org.id, email: `kept-${newId()}@example.test`, role: 'member', invitedBy: creator.id, ttlMs: DAY });
      expect(await ctx.store.changeRole(org.id, creator.id, former.id, 'admin')).toBe('done');
      expect(await ctx.store.listInvitations(invitee.id)).toEqual([]);
      expect(await ctx.store.acceptInvitation(before.id, invitee.id)).toBeNull();
      expect((await ctx.store.listOrganizationInvitations(org.id)).map((i) => i.id)).toEqual([kept.id]);
      // One sent in the race between the owner check and the demotion is refused at accept, and deleted.
      const late = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email, role: 'owner', invitedBy: former.id, ttlMs: DAY });
      expect(await ctx.store.acceptInvitation(late.id, invitee.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, invitee.id)).toBeNull();
      await ctx.store.changeRole(org.id, creator.id, former.id, 'owner');
      expect(await ctx.store.acceptInvitation(late.id, invitee.id)).toBeNull();
    });

    it('a removed owner\'s invitations, even one to their own email, cannot be accepted', async () => {
      const { user: creator, org } = await makeWorld(ctx.store);
      const former = await makeUser(ctx.store, 'former');
      await ctx.store.addMember(org.id, former.id, 'owner');
      const own = await ctx.store.createInvitation({ organizationId: org.id, email: former.email, role: 'owner', invitedBy: former.id, ttlMs: DAY });
      expect(await ctx.store.removeMember(org.id, creator.id, former.id)).toBe('done');
      expect(await ctx.store.acceptInvitation(own.id, former.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, former.id)).toBeNull();
      const late = await ctx.store.createInvitation({ organizationId: org.id, email: former.email, role: 'owner', invitedBy: former.id, ttlMs: DAY });
      expect(await ctx.store.listInvitations(former.id)).toEqual([]);
      expect(await ctx.store.acceptInvitation(late.id, former.id)).toBeNull();
      expect(await ctx.store.getRole(org.id, former.id)).toBeNull();
    });

    it('lists an organization\'s pending invitations oldest first, and withdraws one of its own only', async () => {
      const { user: owner, org } = await makeWorld(ctx.store);
      const { user: otherOwner, org: other } = await makeWorld(ctx.store, 'other');
      const invitee = await makeUser(ctx.store, 'invitee');
      const a = await ctx.store.createInvitation({ organizationId: org.id, email: invitee.email.toUpperCase(), role: 'admin', invitedBy: owner.id, ttlMs: DAY });
      await sleep(5);
      const b = await ctx.store.createInvitation({ organizationId: org.id, email: `b-${newId()}@example.test`, role: 'member', invitedBy: owner.id, ttlMs: DAY });
      const elsewhere = await ctx.store.createInvitation({ organizationId: other.id, email: invitee.email, role: 'member', invitedBy: otherOwner.id, ttlMs: DAY });
      await ctx.store.createInvitation({ organizationId: org.id, email: `gone-${newId()}@example.test`, role: 'member', invitedBy: owner.id, ttlMs: 1 });
      await sleep(20);
      expect(await ctx.store.listOrganizationInvitations(org.id)).toEqual([
        { id: a.id, email: invitee.email.toLowerCase(), role: 'admin', expiresAt: a.expiresAt, invitedBy: { id: owner.id, name: owner.name, email: owner.email } },
        { id: b.id, email: expect.stringMatching(/^b-/), role: 'member', expiresAt: b.expiresAt, invitedBy: { id: owner.id, name: owner.name, email: owner.email } },
      ]);
      expect(await ctx.store.deleteOrganizationInvitation(org.id, elsewhere.id)).toBe(false);
      expect(await ctx.store.deleteOrganizationInvitation(org.id, a.id)).toBe(true);
      expect(await ctx.store.deleteOrganizationInvitation(org.id, a.id)).toBe(false);
      expect(await ctx.store.acceptInvitation(a.id, invitee.id)).toBeNull();
      expect((await ctx.store.listInvitations(invitee.id)).map((i) => i.id)).toEqual([elsewhere.id]);
      expect((await ctx.store.listOrganizationInvitations(org.id)).map((i) => i.id)).toEqual([b.id]);
    });

    it('answers 404 for an invitation to an organization that does not exist', async () => {
      const owner = await makeUser(ctx.store, 'owner');
      await expect(ctx.store.createInvitation({ organizationId: 999_999, email: 'x@example.test', role: 'member', invitedBy: owner.id, ttlMs: DAY }))
        .rejects.toMatchObject({ status: 404, code: 'not_found' });
    });
  });
}
