import type { TokenService } from '@lantern/auth';
import { errors } from '@lantern/domain';
import { pathUuid, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore } from '@lantern/store';
import { Router, type Request } from 'express';

/** An invitation id is a UUID; anything else names none. */
const invitationId = (req: Request): string => pathUuid(req.params['id'] as string | undefined, 'invitation');

/** The invitee's side: their pending invitations, to accept or decline. */
export function invitationRoutes({ store, tokens }: { store: AccountsStore; tokens: TokenService }): Router {
  const router = Router();
  const auth = requireUser(tokens);

  router.get('/invitations', auth, async (_req, res) => {
    res.json(await store.listInvitations(userIdOf(res)));
  });

  router.post('/invitations/:id/accept', auth, async (req, res) => {
    const membership = await store.acceptInvitation(invitationId(req), userIdOf(res));
    if (!membership) throw errors.notFound('invitation');
    res.json(membership);
  });

  router.post('/invitations/:id/decline', auth, async (req, res) => {
    if (!(await store.declineInvitation(invitationId(req), userIdOf(res)))) throw errors.notFound('invitation');
    res.status(204).end();
  });
  return router;
}
