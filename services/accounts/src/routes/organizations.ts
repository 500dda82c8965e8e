import type { TokenService } from '@lantern/auth';
import { errors, schemas, validatorFor, type Role } from '@lantern/domain';
import { jsonBody, pathId, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore } from '@lantern/store';
import { Router } from 'express';

const organizationBody = validatorFor<{ name: string }>(schemas.accounts.organizationBody.$id);
const memberBody = validatorFor<{ email: string; role?: Role }>(schemas.accounts.memberBody.$id);

export function organizationRoutes({ store, tokens }: { store: AccountsStore; tokens: TokenService }): Router {
  const router = Router();
  const auth = requireUser(tokens);
  const body = jsonBody({ limit: 16 * 1024 });

  router.post('/organizations', auth, body, async (req, res) => {
    const { name } = organizationBody.assert(req.body);
    const org = await store.createOrganization({ name: name.trim(), ownerId: userIdOf(res) });
    res.status(201).json(org);
  });

  router.get('/organizations', auth, async (_req, res) => {
    res.json(await store.listMemberships(userIdOf(res)));
  });

  router.post('/organizations/:id/members', auth, body, async (req, res) => {
    const organizationId = pathId(req.params['id'] as string | undefined, 'organization');
    const input = memberBody.assert(req.body);
    const role = await store.getRole(organizationId, userIdOf(res));
    if (!role) throw errors.notFound('organization');
    if (role !== 'owner') throw errors.forbidden('Only an owner of the organization can add members.');
    const user = await store.findUserByEmail(input.email.trim().toLowerCase());
    if (!user) throw errors.notFound('user with this email: they must register first');
    // The caller is an owner; demoting themselves could leave the organization with no owner at all.
    if (user.id === userIdOf(res) && (input.role ?? 'member') !== 'owner') throw errors.conflict('You cannot change your own role: you would leave the organization without this owner.');
    await store.addMember(organizationId, user.id, input.role ?? 'member');
    res.status(201).json({ organizationId, user: { id: user.id, email: user.email, name: user.name }, role: input.role ?? 'member' });
  });
  return router;
}
