import { createPasswordHasher, type PasswordHasher, type TokenService } from '@lantern/auth';
import { createServiceApp } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { AccountsStore, LimitsStore } from '@lantern/store';
import type { Express, Router } from 'express';
import { authRoutes } from './routes/auth.js';
import { accountThrottles } from './routes/throttles.js';
import { invitationRoutes } from './routes/invitations.js';
import { organizationRoutes } from './routes/organizations.js';
import { projectRoutes } from './routes/projects.js';

export interface AccountsDeps {
  /** `countHit`: the rate limits below count in the store's windows, shared by every accounts process. */
  store: AccountsStore & Pick<LimitsStore, 'countHit'>;
  tokens: TokenService;
  /** Active API keys per application (MAX_API_KEYS_PER_APPLICATION). */
  maxApiKeysPerApplication?: number;
  /** Organizations a user may create (MAX_ORGANIZATIONS_PER_USER). */
  maxOrganizationsPerUser?: number;
  logger: Logger;
  /** Register and login attempts per client address per minute; password changes and invitations per user. */
  rateLimit?: { enabled: boolean; perMinute: number };
  /** Override the password hasher (tests use cheaper scrypt parameters). */
  passwordHasher?: PasswordHasher;
}

/** Users, organizations, members and invitations, projects, applications and API keys. */
export function createAccountsRouters(deps: AccountsDeps): Router[] {
  // One hasher per process: it bounds how many hashes run at once (memory).
  const passwordHasher = deps.passwordHasher ?? createPasswordHasher();
  const throttles = accountThrottles(deps);
  return [authRoutes({ ...deps, passwordHasher, throttles }), organizationRoutes({ ...deps, throttles }), invitationRoutes(deps), projectRoutes(deps)];
}

export function createAccountsApp(deps: AccountsDeps & { checks?: Record<string, () => Promise<void>> }): Express {
  return createServiceApp({ logger: deps.logger, routers: createAccountsRouters(deps), checks: deps.checks ?? {} });
}
