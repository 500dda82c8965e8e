import type { Database } from 'better-sqlite3';
import { newId, toIso } from '@lantern/domain';
import type { Invitation, Member, Membership, PendingInvitation, Role } from '@lantern/domain';
import type { AccountsStore, MemberChange } from '../port.js';
import { guard } from './errors.js';

/** A membership `m` whose role ranks at least `@minRank` (ROLE_RANK: member 1, admin 2, owner 3). */
export const MIN_RANK = "(CASE m.role WHEN 'owner' THEN 3 WHEN 'admin' THEN 2 ELSE 1 END) >= @minRank";

interface InvitationRow {
  id: string;
  organization_id: number;
  organization_name: string;
  role: Role;
  inviter_name: string | null;
  inviter_email: string | null;
  created_ms: number;
  expires_ms: number;
}

const INVITATION_COLUMNS = `i.id, i.organization_id, o.name AS organization_name, i.role, inv.name AS inviter_name,
  inv.email AS inviter_email, i.created_ms, i.expires_ms`;
const INVITATION_JOINS = 'JOIN organizations o ON o.id = i.organization_id LEFT JOIN users inv ON inv.id = i.invited_by';

function toInvitation(r: InvitationRow): Invitation {
  return {
    id: r.id,
    organization: { id: r.organization_id, name: r.organization_name },
    role: r.role,
    invitedBy: r.inviter_name === null ? null : { name: r.inviter_name, email: r.inviter_email! },
    createdAt: toIso(r.created_ms),
    expiresAt: toIso(r.expires_ms),
  };
}

type MembersStore = Pick<AccountsStore,
  'listMembers' | 'changeRole' | 'removeMember' | 'createInvitation' | 'listInvitations' | 'acceptInvitation' | 'declineInvitation'
  | 'listOrganizationInvitations' | 'deleteOrganizationInvitation'>;

/** An invitation `i` whose inviter is still an owner of its organization (only those count). */
const INVITER_IS_OWNER = `EXISTS (SELECT 1 FROM memberships w WHERE w.organization_id = i.organization_id
  AND w.user_id = i.invited_by AND w.role = 'owner')`;

/** Members, the owners' changes to them (checked and written in one transaction) and invitations. */
export function createMembersStore(db: Database, now: () => number): MembersStore {
  const q = {
    role: db.prepare<[number, string], Role>('SELECT role FROM memberships WHERE organization_id = ? AND user_id = ?').pluck(),
    creator: db.prepare<[number], string>('SELECT user_id FROM organization_creators WHERE organization_id = ?').pluck(),
    owners: db.prepare<[number], number>("SELECT count(*) FROM memberships WHERE organization_id = ? AND role = 'owner'").pluck(),
    setRole: db.prepare<[Role, number, string]>('UPDATE memberships SET role = ? WHERE organization_id = ? AND user_id = ?'),
    remove: db.prepare<[number, string]>('DELETE FROM memberships WHERE organization_id = ? AND user_id = ?'),
    members: db.prepare<[{ organizationId: number; userId: string }], { id: string; email: string; name: string; role: Role; creator: number }>(
      `SELECT u.id, u.email, u.name, m.role, coalesce(c.user_id = u.id, 0) AS creator
       FROM memberships me JOIN memberships m ON m.organization_id = me.organization_id JOIN users u ON u.id = m.user_id
       LEFT JOIN organization_creators c ON c.organization_id = m.organization_id
       WHERE me.organization_id = @organizationId AND me.user_id = @userId ORDER BY u.id`),
    purgeExpired: db.prepare<[number]>('DELETE FROM invitations WHERE expires_ms <= ?'),
    upsertInvitation: db.prepare(`INSERT INTO invitations (id, organization_id, email_lower, role, invited_by, created_ms, expires_ms)
      VALUES (@id, @organizationId, @email, @role, @invitedBy, @created, @expires)
      ON CONFLICT (organization_id, email_lower) DO UPDATE SET id = excluded.id, role = excluded.role,
        invited_by = excluded.invited_by, created_ms = excluded.created_ms, expires_ms = excluded.expires_ms`),
    invitation: db.prepare<[string], InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations i ${INVITATION_JOINS} WHERE i.id = ?`),
    invitations: db.prepare<[string, number], InvitationRow>(`SELECT ${INVITATION_COLUMNS}
      FROM users u JOIN invitations i ON i.email_lower = u.email_lower ${INVITATION_JOINS}
      WHERE u.id = ? AND i.expires_ms > ? AND ${INVITER_IS_OWNER} ORDER BY i.created_ms, i.id`),
    invitationFor: db.prepare<[string, string, number], { organization_id: number; role: Role; inviter_is_owner: number }>(`SELECT i.organization_id, i.role,
      ${INVITER_IS_OWNER} AS inviter_is_owner
      FROM invitations i JOIN users u ON u.email_lower = i.email_lower WHERE i.id = ? AND u.id = ? AND i.expires_ms > ?`),
    deleteInvitation: db.prepare<[string]>('DELETE FROM invitations WHERE id = ?'),
    deleteSentBy: db.prepare<[number, string]>('DELETE FROM invitations WHERE organization_id = ? AND invited_by = ?'),
    pending: db.prepare<[number, number], { id: string; email_lower: string; role: Role; expires_ms: number; inviter_id: string; inviter_name: string; inviter_email: string }>(
      `SELECT i.id, i.email_lower, i.role, i.expires_ms, inv.id AS inviter_id, inv.name AS inviter_name, inv.email AS inviter_email
       FROM invitations i JOIN users inv ON inv.id = i.invited_by
       WHERE i.organization_id = ? AND i.expires_ms > ? AND ${INVITER_IS_OWNER} ORDER BY i.created_ms, i.id`),
    withdraw: db.prepare<[string, number]>('DELETE FROM invitations WHERE id = ? AND organization_id = ?'),
    joinOnce: db.prepare<[number, string, Role]>(`INSERT INTO memberships (organization_id, user_id, role) VALUES (?, ?, ?)
      ON CONFLICT (organization_id, user_id) DO NOTHING`),
    membership: db.prepare<[number, string], Membership>(`SELECT o.id, o.name, m.role FROM memberships m
      JOIN organizations o ON o.id = m.organization_id WHERE m.organization_id = ? AND m.user_id = ?`),
  };

  /** The rules of docs/api.md ("Roles"), read and applied in one write transaction. */
  const change = db.transaction((organizationId: number, actorId: string, targetId: string, role: Role | null): MemberChange => {
    const actorRole = q.role.get(organizationId, actorId);
    if (!actorRole) return 'not_found';
    const leaving = role === null && actorId === targetId;
    if (actorRole !== 'owner' && !leaving) return 'forbidden';
    const targetRole = q.role.get(organizationId, targetId);
    if (!targetRole) return 'not_found';
    if (q.creator.get(organizationId) === targetId && actorId !== targetId) return 'forbidden';
    if (targetRole === 'owner' && role !== 'owner' && q.owners.get(organizationId)! <= 1) return 'last_owner';
    // An owner who stops being one takes back the invitations they sent (accepting checks the inviter too).
    if (targetRole === 'owner' && role !== 'owner') q.deleteSentBy.run(organizationId, targetId);
    if (role === null) q.remove.run(organizationId, targetId);
    else q.setRole.run(role, organizationId, targetId);
    return 'done';
  });

  const createInvitation = db.transaction((row: { id: string; organizationId: number; email: string; role: Role; invitedBy: string; created: number; expires: number }) => {
    q.purgeExpired.run(row.created);
    q.upsertInvitation.run(row);
    return toInvitation(q.invitation.get(row.id)!);
  });

  const accept = db.transaction((id: string, userId: string): Membership | null => {
    const found = q.invitationFor.get(id, userId, now());
    if (!found) return null;
    if (found.inviter_is_owner !== 1) {
      q.deleteInvitation.run(id);
      return null;
    }
    // An existing member keeps their role: an invitation never lowers one (nor removes the last owner).
    q.joinOnce.run(found.organization_id, userId, found.role);
    q.deleteInvitation.run(id);
    return q.membership.get(found.organization_id, userId)!;
  });

  return {
    async listMembers(organizationId, userId) {
      return guard(() => q.members.all({ organizationId, userId })).map((r): Member =>
        ({ user: { id: r.id, email: r.email, name: r.name }, role: r.role, creator: r.creator === 1 }));
    },
    async changeRole(organizationId, actorId, targetId, role) {
      return guard(() => change.immediate(organizationId, actorId, targetId, role));
    },
    async removeMember(organizationId, actorId, targetId) {
      return guard(() => change.immediate(organizationId, actorId, targetId, null));
    },
    async createInvitation({ organizationId, email, role, invitedBy, ttlMs }) {
      const created = now();
      const row = { id: newId(), organizationId, email: email.toLowerCase(), role, invitedBy, created, expires: created + ttlMs };
      return guard(() => createInvitation.immediate(row), { foreignKey: 'organization or user' });
    },
    async listInvitations(userId) {
      return guard(() => q.invitations.all(userId, now())).map(toInvitation);
    },
    async acceptInvitation(id, userId) {
      return guard(() => accept.immediate(id, userId));
    },
    async listOrganizationInvitations(organizationId) {
      return guard(() => q.pending.all(organizationId, now())).map((r): PendingInvitation => ({
        id: r.id, email: r.email_lower, role: r.role, expiresAt: toIso(r.expires_ms),
        invitedBy: { id: r.inviter_id, name: r.inviter_name, email: r.inviter_email },
      }));
    },
    async deleteOrganizationInvitation(organizationId, id) {
      return guard(() => q.withdraw.run(id, organizationId).changes > 0);
    },
    async declineInvitation(id, userId) {
      return guard(() => {
        if (!q.invitationFor.get(id, userId, now())) return false;
        return q.deleteInvitation.run(id).changes > 0;
      });
    },
  };
}
