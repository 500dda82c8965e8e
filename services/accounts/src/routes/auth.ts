import { decoyHash, hashPassword, verifyPassword, type TokenService } from '@lantern/auth';
import { errors, schemas, validatorFor } from '@lantern/domain';
import { jsonBody, rateLimit, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore } from '@lantern/store';
import { Router } from 'express';

const registerBody = validatorFor<{ email: string; password: string; name?: string }>(schemas.accounts.registerBody.$id);
const loginBody = validatorFor<{ email: string; password: string }>(schemas.accounts.loginBody.$id);

export interface AuthRouteDeps {
  store: AccountsStore;
  tokens: TokenService;
  /** Attempts per client address per minute on register and login (password guessing). */
  rateLimit?: { enabled: boolean; perMinute: number };
  passwordHasher?: (password: string) => Promise<string>;
}

export function authRoutes({ store, tokens, rateLimit: limit, passwordHasher = hashPassword }: AuthRouteDeps): Router {
  const router = Router();
  const throttle = rateLimit({ enabled: limit?.enabled ?? false, max: limit?.perMinute ?? 1, key: (req) => req.ip ?? 'unknown' });
  const body = jsonBody({ limit: 16 * 1024 });

  router.post('/auth/register', throttle, body, async (req, res) => {
    const input = registerBody.assert(req.body);
    const email = input.email.trim().toLowerCase();
    const user = await store.createUser({ email, name: input.name?.trim() ?? email.split('@')[0]!, passwordHash: await passwordHasher(input.password) });
    res.status(201).json({ token: tokens.issue(user.id), user });
  });

  router.post('/auth/login', throttle, body, async (req, res) => {
    const input = loginBody.assert(req.body);
    const found = await store.findUserByEmail(input.email.trim().toLowerCase());
    // Same work and same answer whether the email exists or not.
    const ok = await verifyPassword(input.password, found?.passwordHash ?? (await decoyHash()));
    if (!found || !ok) throw errors.unauthorized('The email or password is wrong.');
    res.json({ token: tokens.issue(found.id), user: { id: found.id, email: found.email, name: found.name } });
  });

  router.get('/auth/me', requireUser(tokens), async (_req, res) => {
    const userId = userIdOf(res);
    const user = await store.getUser(userId);
    if (!user) throw errors.unauthorized('This account no longer exists.');
    res.json({ user, organizations: await store.listMemberships(userId) });
  });
  return router;
}
