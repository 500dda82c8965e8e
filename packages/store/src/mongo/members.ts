import { errors, newId, toIso } from '@lantern/domain';
import type { Invitation, Member, Membership, PendingInvitation, Role } from '@lantern/domain';
import type { AccountsStore, MemberChange } from '../port.js';
import type { InvitationDoc, RecordStoreDeps } from './collections.js';
import { invitationKey, memberKey } from './collections.js';

type MembersStore = Pick<AccountsStore,
  'listMembers' | 'changeRole' | 'removeMember' | 'createInvitation' | 'listInvitations' | 'acceptInvitation' | 'declineInvitation'
  | 'listOrganizationInvitations' | 'deleteOrganizationInvitation'>;

/** How long an owner's change may hold an organization's lease before another process may take it over. */
const LEASE_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Members, the owners' changes to them and invitations. Without transactions, a change that must not leave an
 * organization without owner (count the owners, then write) holds a lease on the organization's document while
 * it reads and writes: two owners demoting each other at once run one after the other, and the second finds
 * itself the last owner. A lease left by a crashed process ends after LEASE_MS.
 */
export function createMembersStore({ c, guard, now }: RecordStoreDeps): MembersStore {
  async function withLease<T>(organizationId: number, work: () => Promise<T>): Promise<T | null> {
    const holder = newId();
    for (let attempt = 0; ; attempt++) {
      const t = now();
      const { matchedCount } = await c.organizations.updateOne(
        { _id: organizationId, lockUntil: { $not: { $gt: new Date(t) } } },
        { $set: { lock: holder, lockUntil: new Date(t + LEASE_MS) } });
      if (matchedCount === 1) break;
      if ((await c.organizations.findOne({ _id: organizationId }, { projection: { _id: 1 } })) === null) return null;
      if (attempt >= 200) throw errors.unavailable('store');
      await sleep(10 + Math.random() * 20);
    }
    try {
      return await work();
    } finally {
      await c.organizations.updateOne({ _id: organizationId, lock: holder }, { $unset: { lock: '', lockUntil: '' } });
    }
  }

  const roleOf = async (organizationId: number, userId: string): Promise<Role | null> =>
    (await c.memberships.findOne({ _id: memberKey(organizationId, userId) }))?.role ?? null;

  /** The rules of docs/api.md ("Roles"); `role` null removes the member. */
  const change = (organizationId: number, actorId: string, targetId: string, role: Role | null) => guard.run(async () =>
    (await withLease(organizationId, async (): Promise<MemberChange> => {
      const actorRole = await roleOf(organizationId, actorId);
      if (!actorRole) return 'not_found';
      const leaving = role === null && actorId === targetId;
      if (actorRole !== 'owner' && !leaving) return 'forbidden';
      const targetRole = await roleOf(organizationId, targetId);
      if (!targetRole) return 'not_found';
      const org = await c.organizations.findOne({ _id: organizationId }, { projection: { createdBy: 1 } });
      if (org?.createdBy === targetId && actorId !== targetId) return 'forbidden';
      if (targetRole === 'owner' && role !== 'owner' && (await c.memberships.countDocuments({ organizationId, role: 'owner' })) <= 1) return 'last_owner';
      // An owner who stops being one takes back the invitations they sent, before the role changes: an accept that
      // saw them as owner and has not yet taken its invitation then finds it gone (acceptInvitation).
      if (targetRole === 'owner' && role !== 'owner') await c.invitations.deleteMany({ organizationId, invitedBy: targetId });
      if (role === null) await c.memberships.deleteOne({ _id: memberKey(organizationId, targetId) });
      else await c.memberships.updateOne({ _id: memberKey(organizationId, targetId) }, { $set: { role } });
      return 'done';
    })) ?? 'not_found');

  async function toInvitation(doc: InvitationDoc): Promise<Invitation | null> {
    const [org, inviter] = await Promise.all([
      c.organizations.findOne({ _id: doc.organizationId }, { projection: { name: 1 } }),
      c.users.findOne({ _id: doc.invitedBy }, { projection: { name: 1, email: 1 } }),
    ]);
    if (org === null) return null;
    return {
      id: doc.id,
      organization: { id: doc.organizationId, name: org.name },
      role: doc.role,
      invitedBy: inviter === null ? null : { name: inviter.name, email: inviter.email },
      createdAt: toIso(doc.createdAt.getTime()),
      expiresAt: toIso(doc.expiresAt.getTime()),
    };
  }

  /** Whether the invitation still counts: its inviter is an owner of its organization. */
  const inviterIsOwner = async (doc: InvitationDoc) => (await roleOf(doc.organizationId, doc.invitedBy)) === 'owner';

  /** The unexpired invitation `id` of the user's email. */
  async function invitationFor(id: string, userId: string): Promise<InvitationDoc | null> {
    const user = await c.users.findOne({ _id: userId }, { projection: { emailLower: 1 } });
    if (user === null) return null;
    return c.invitations.findOne({ id, emailLower: user.emailLower, expiresAt: { $gt: new Date(now()) } });
  }

  return {
    listMembers: (organizationId, userId) => guard.run(async () => {
      if ((await roleOf(organizationId, userId)) === null) return [];
      const [memberships, org] = await Promise.all([
        c.memberships.find({ organizationId }).toArray(),
        c.organizations.findOne({ _id: organizationId }, { projection: { createdBy: 1 } }),
      ]);
      const users = await c.users.find({ _id: { $in: memberships.map((m) => m.userId) } }, { projection: { email: 1, name: 1 } }).toArray();
      const roles = new Map(memberships.map((m) => [m.userId, m.role]));
      return users.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)).map((u): Member =>
        ({ user: { id: u._id, email: u.email, name: u.name }, role: roles.get(u._id)!, creator: org?.createdBy === u._id }));
    }),

    changeRole: (organizationId, actorId, targetId, role) => change(organizationId, actorId, targetId, role),
    removeMember: (organizationId, actorId, targetId) => change(organizationId, actorId, targetId, null),

    createInvitation: ({ organizationId, email, role, invitedBy, ttlMs }) => guard.run(async () => {
      const [org, inviter] = await Promise.all([
        c.organizations.findOne({ _id: organizationId }, { projection: { _id: 1 } }), c.users.findOne({ _id: invitedBy }, { projection: { _id: 1 } }),
      ]);
      if (org === null || inviter === null) throw errors.notFound('organization or user');
      const emailLower = email.toLowerCase();
      const t = now();
      const doc: InvitationDoc = {
        _id: invitationKey(organizationId, emailLower), id: newId(), organizationId, emailLower, role, invitedBy,
        createdAt: new Date(t), expiresAt: new Date(t + ttlMs),
      };
      const { _id, ...fields } = doc;
      await c.invitations.updateOne({ _id }, { $set: fields }, { upsert: true });
      return (await toInvitation(doc))!;
    }),

    listInvitations: (userId) => guard.run(async () => {
      const user = await c.users.findOne({ _id: userId }, { projection: { emailLower: 1 } });
      if (user === null) return [];
      const all = await c.invitations.find({ emailLower: user.emailLower, expiresAt: { $gt: new Date(now()) } }, { sort: { createdAt: 1, id: 1 } }).toArray();
      const counts = await Promise.all(all.map(inviterIsOwner));
      const docs = all.filter((_, i) => counts[i]);
      return (await Promise.all(docs.map(toInvitation))).filter((i): i is Invitation => i !== null);
    }),

    acceptInvitation: (id, userId) => guard.run(async (): Promise<Membership | null> => {
      const found = await invitationFor(id, userId);
      if (found === null) return null;
      if (!(await inviterIsOwner(found))) {
        await c.invitations.deleteOne({ _id: found._id, id });
        return null;
      }
      // Taken first, so it is used once; an existing member keeps their role (an invitation never lowers one).
      if ((await c.invitations.deleteOne({ _id: found._id, id })).deletedCount !== 1) return null;
      const { organizationId, role } = found;
      await c.memberships.updateOne({ _id: memberKey(organizationId, userId) }, { $setOnInsert: { organizationId, userId, role } }, { upsert: true });
      const [membership, org] = await Promise.all([
        c.memberships.findOne({ _id: memberKey(organizationId, userId) }), c.organizations.findOne({ _id: organizationId }, { projection: { name: 1 } }),
      ]);
      return membership === null || org === null ? null : { id: organizationId, name: org.name, role: membership.role };
    }),

    listOrganizationInvitations: (organizationId) => guard.run(async () => {
      const [all, owners] = await Promise.all([
        c.invitations.find({ organizationId, expiresAt: { $gt: new Date(now()) } }, { sort: { createdAt: 1, id: 1 } }).toArray(),
        c.memberships.find({ organizationId, role: 'owner' }, { projection: { userId: 1 } }).toArray(),
      ]);
      const ownerIds = new Set(owners.map((m) => m.userId));
      const docs = all.filter((d) => ownerIds.has(d.invitedBy));
      const inviters = await c.users.find({ _id: { $in: [...new Set(docs.map((d) => d.invitedBy))] } }, { projection: { name: 1, email: 1 } }).toArray();
      const byId = new Map(inviters.map((u) => [u._id, u]));
      return docs.filter((d) => byId.has(d.invitedBy)).map((d): PendingInvitation => {
        const u = byId.get(d.invitedBy)!;
        return { id: d.id, email: d.emailLower, role: d.role, expiresAt: toIso(d.expiresAt.getTime()), invitedBy: { id: u._id, name: u.name, email: u.email } };
      });
    }),

    deleteOrganizationInvitation: (organizationId, id) => guard.run(async () =>
      (await c.invitations.deleteOne({ organizationId, id })).deletedCount === 1),

    declineInvitation: (id, userId) => guard.run(async () => {
      const found = await invitationFor(id, userId);
      return found !== null && (await c.invitations.deleteOne({ _id: found._id, id })).deletedCount === 1;
    }),
  };
}
