import { createPasswordHasher, type PasswordHasher, type TokenService } from '@lantern/auth';
import { errors, schemas, validatorFor } from '@lantern/domain';
import { jsonBody, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore } from '@lantern/store';
import { Router } from 'express';
import type { AccountThrottles } from './throttles.js';

const registerBody = validatorFor<{ email: string; password: string; name?: string }>(schemas.accounts.registerBody.$id);
const loginBody = validatorFor<{ email: string; password: string }>(schemas.accounts.loginBody.$id);
const passwordChangeBody = validatorFor<{ currentPassword: string; newPassword: string }>(schemas.accounts.passwordChangeBody.$id);

export interface AuthRouteDeps {
  store: AccountsStore;
  tokens: TokenService;
  /** Register and login per client address, password changes per user (throttles.ts). */
  throttles: AccountThrottles;
  /** Tests pass one with cheap scrypt parameters; the default is OWASP's (passwords.ts). */
  passwordHasher?: PasswordHasher;
}

export function authRoutes({ store, tokens, throttles, passwordHasher = createPasswordHasher() }: AuthRouteDeps): Router {
  const router = Router();
  const { perAddress: throttle, perUser: throttleUser } = throttles;
  const auth = requireUser(tokens);
  const body = jsonBody({ limit: 16 * 1024 });
  const passwords = passwordHasher;
  // The decoy is made now, not by the first unknown email (which would then cost two hashes instead of one).
  passwords.decoy().catch(() => undefined);

  router.post('/auth/register', throttle, body, async (req, res) => {
    const input = registerBody.assert(req.body);
    const email = input.email.trim().toLowerCase();
    const user = await store.createUser({ email, name: input.name?.trim() ?? email.split('@')[0]!, passwordHash: await passwords.hash(input.password) });
    res.status(201).json({ token: tokens.issue(user.id, 0), user });
  });

  router.post('/auth/login', throttle, body, async (req, res) => {
    const input = loginBody.assert(req.body);
    const found = await store.findUserByEmail(input.email.trim().toLowerCase());
    // Same work and same answer whether the email exists or not.
    const ok = await passwords.verify(input.password, found?.passwordHash ?? (await passwords.decoy()));
    if (!found || !ok) throw errors.unauthorized('The email or password is wrong.');
    // A hash made with weaker parameters than today's is replaced now, while the password is at hand. Only if it
    // is still the one verified: a password changed meanwhile stays changed.
    if (passwords.needsRehash(found.passwordHash)) {
      await store.setPasswordHash(found.id, found.passwordHash, await passwords.hash(input.password), { revokeTokens: false });
    }
    res.json({ token: tokens.issue(found.id, found.tokenVersion), user: { id: found.id, email: found.email, name: found.name } });
  });

  router.get('/auth/me', auth, async (_req, res) => {
    const userId = userIdOf(res);
    const user = await store.getUser(userId);
    if (!user) throw errors.unauthorized('This account no longer exists.');
    res.json({ user, organizations: await store.listMemberships(userId) });
  });

  // Sign out everywhere: every token issued so far stops working.
  router.post('/auth/logout', auth, async (_req, res) => {
    const userId = userIdOf(res);
    if ((await store.revokeTokens(userId)) === null) throw errors.unauthorized('This account no longer exists.');
    tokens.revoked(userId);
    res.status(204).end();
  });

  // A new password revokes every earlier token; the answer carries a fresh one for this client.
  router.post('/auth/password', auth, throttleUser, body, async (req, res) => {
    const input = passwordChangeBody.assert(req.body);
    const userId = userIdOf(res);
    const user = await store.getStoredUser(userId);
    if (!user) throw errors.unauthorized('This account no longer exists.');
    if (!(await passwords.verify(input.currentPassword, user.passwordHash))) throw errors.forbidden('The current password is wrong.');
    const version = await store.setPasswordHash(userId, user.passwordHash, await passwords.hash(input.newPassword), { revokeTokens: true });
    if (version === null) throw errors.conflict('The password was changed meanwhile: log in again.');
    tokens.revoked(userId);
    res.json({ token: tokens.issue(userId, version), user: { id: user.id, email: user.email, name: user.name } });
  });
  return router;
}
