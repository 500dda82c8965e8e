import type { TokenService } from '@lantern/auth';
import { errors, schemas, validatorFor, type Role } from '@lantern/domain';
import { jsonBody, pathId, pathUuid, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore, MemberChange } from '@lantern/store';
import { Router, type Request, type Response } from 'express';
import type { AccountThrottles } from './throttles.js';

const organizationBody = validatorFor<{ name: string }>(schemas.accounts.organizationBody.$id);
const memberBody = validatorFor<{ email: string; role?: Role }>(schemas.accounts.memberBody.$id);
const roleBody = validatorFor<{ role: Role }>(schemas.accounts.roleBody.$id);

/** How long an invitation can be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface OrganizationRouteDeps {
  store: AccountsStore;
  tokens: TokenService;
  /** Invitations per inviting user per minute (the auth limit, counted per user; throttles.ts). */
  throttles: Pick<AccountThrottles, 'invitations'>;
  /** Organizations a user may create (MAX_ORGANIZATIONS_PER_USER); one more is 429 too_many_organizations. */
  maxOrganizationsPerUser?: number;
}

/** The member named in the path: a user id is a UUID; anything else names nobody. */
const memberId = (req: Request): string => pathUuid(req.params['userId'] as string | undefined, 'member');

function answer(outcome: MemberChange): void {
  if (outcome === 'not_found') throw errors.notFound('member');
  if (outcome === 'forbidden') throw errors.forbidden('Only an owner can change members, and only the creator of the organization can change their own membership.');
  if (outcome === 'last_owner') throw errors.conflict('The organization must keep an owner: make another member owner first.');
}

export function organizationRoutes({ store, tokens, throttles, maxOrganizationsPerUser = 10 }: OrganizationRouteDeps): Router {
  const router = Router();
  const auth = requireUser(tokens);
  const body = jsonBody({ limit: 16 * 1024 });
  const throttleInvites = throttles.invitations;

  router.post('/organizations', auth, body, async (req, res) => {
    const { name } = organizationBody.assert(req.body);
    // The cap is checked by the store's creation itself (one atomic step), so parallel requests never pass it together.
    const org = await store.createOrganization({ name: name.trim(), ownerId: userIdOf(res) }, { maxCreated: maxOrganizationsPerUser });
    if (!org) throw errors.tooManyOrganizations(maxOrganizationsPerUser);
    res.status(201).json(org);
  });

  router.get('/organizations', auth, async (_req, res) => {
    res.json(await store.listMemberships(userIdOf(res)));
  });

  // An invitation, never a membership: the invitee accepts it (routes/invitations.ts). The answer is the same
  // whether the email has an account or not, and nothing about that account is looked up here.
  router.post('/organizations/:id/members', auth, throttleInvites, body, async (req, res) => {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    const input = memberBody.assert(req.body);
    const role = await store.getRole(organizationId, userIdOf(res));
    if (!role) throw errors.notFound('organization');
    if (role !== 'owner') throw errors.forbidden('Only an owner of the organization can invite members.');
    const email = input.email.trim().toLowerCase();
    const invitation = await store.createInvitation({ organizationId, email, role: input.role ?? 'member', invitedBy: userIdOf(res), ttlMs: INVITATION_TTL_MS });
    res.status(201).json({ organizationId, email, role: invitation.role, expiresAt: invitation.expiresAt });
  });

  router.get('/organizations/:id/members', auth, async (req, res) => {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    const members = await store.listMembers(organizationId, userIdOf(res));
    if (members.length === 0) throw errors.notFound('organization');
    res.json(members);
  });

  /** The organization in the path, if the user is one of its owners: 404 for a non-member, 403 for another member. */
  async function ownedOrganization(req: Request, res: Response): Promise<number> {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    const role = await store.getRole(organizationId, userIdOf(res));
    if (!role) throw errors.notFound('organization');
    if (role !== 'owner') throw errors.forbidden('Only an owner of the organization can see or withdraw its invitations.');
    return organizationId;
  }

  router.get('/organizations/:id/invitations', auth, async (req, res) => {
    res.json(await store.listOrganizationInvitations(await ownedOrganization(req, res)));
  });

  router.delete('/organizations/:id/invitations/:invitationId', auth, async (req, res) => {
    const organizationId = await ownedOrganization(req, res);
    const id = pathUuid(req.params['invitationId'] as string | undefined, 'invitation');
    if (!(await store.deleteOrganizationInvitation(organizationId, id))) throw errors.notFound('invitation');
    res.status(204).end();
  });

  router.patch('/organizations/:id/members/:userId', auth, body, async (req, res) => {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    const target = memberId(req);
    const { role } = roleBody.assert(req.body);
    answer(await store.changeRole(organizationId, userIdOf(res), target, role));
    const member = (await store.listMembers(organizationId, userIdOf(res))).find((m) => m.user.id === target);
    if (!member) throw errors.notFound('member');
    res.json(member);
  });

  router.delete('/organizations/:id/members/:userId', auth, async (req, res) => {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    answer(await store.removeMember(organizationId, userIdOf(res), memberId(req)));
    res.status(204).end();
  });
  return router;
}
