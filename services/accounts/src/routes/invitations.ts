import type { TokenService } from '@lantern/auth';
import { errors } from '@lantern/domain';
import { requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore } from '@lantern/store';
import { Router, type Request } from 'express';

/** An invitation id is a UUID; anything else names none. */
function invitationId(req: Request): string {
  const id = String(req.params['id'] ?? '');
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw errors.notFound('invitation');
  return id.toLowerCase();
}

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
