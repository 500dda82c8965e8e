import { generateApiKey, type TokenService } from '@lantern/auth';
import { errors, ROLE_RANK, schemas, validatorFor, type Application } from '@lantern/domain';
import { jsonBody, pathId, queryId, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore, StoredApiKey } from '@lantern/store';
import { Router } from 'express';

const projectBody = validatorFor<{ name: string; organizationId: number }>(schemas.accounts.projectBody.$id);
const applicationBody = validatorFor<{ name: string; projectId: number }>(schemas.accounts.applicationBody.$id);
const apiKeyBody = validatorFor<{ name?: string }>(schemas.accounts.apiKeyBody.$id);

/** The public view of a key: never the key or its hash. */
function publicKey(k: StoredApiKey) {
  return { id: k.id, applicationId: k.applicationId, projectId: k.projectId, name: k.name, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt };
}

const ADMINS_ONLY = 'This needs the admin or owner role in the organization.';

/** The application for an admin or owner: 404 when the caller cannot see it at all, 403 for a member. */
async function adminApplication(store: AccountsStore, id: number, userId: string): Promise<Application> {
  const app = await store.getApplication(id, userId, 'admin');
  if (app) return app;
  if (await store.getApplication(id, userId)) throw errors.forbidden(ADMINS_ONLY);
  throw errors.notFound('application');
}

/** Projects, applications and their API keys: members read, admins and owners manage (docs/api.md, "Roles"). */
export function projectRoutes({ store, tokens, maxApiKeysPerApplication = 20 }: {
  store: AccountsStore;
  tokens: TokenService;
  /** Active keys an application may have (MAX_API_KEYS_PER_APPLICATION); one more is 429 too_many_keys. */
  maxApiKeysPerApplication?: number;
}): Router {
  const router = Router();
  const auth = requireUser(tokens);
  const body = jsonBody({ limit: 16 * 1024 });

  router.post('/projects', auth, body, async (req, res) => {
    const input = projectBody.assert(req.body);
    const role = await store.getRole(input.organizationId, userIdOf(res));
    if (!role) throw errors.forbidden('You are not a member of this organization.');
    if (ROLE_RANK[role] < ROLE_RANK.admin) throw errors.forbidden(ADMINS_ONLY);
    res.status(201).json(await store.createProject({ name: input.name.trim(), organizationId: input.organizationId }));
  });

  router.get('/projects', auth, async (req, res) => {
    const organizationId = queryId(req, 'organizationId', true);
    if (!(await store.getRole(organizationId, userIdOf(res)))) throw errors.notFound('organization');
    res.json(await store.listProjects(organizationId, userIdOf(res)));
  });

  router.post('/applications', auth, body, async (req, res) => {
    const input = applicationBody.assert(req.body);
    if (!(await store.getProject(input.projectId, userIdOf(res), 'admin'))) throw errors.forbidden(`You are not a member of the organization of this project, or not an admin or owner. ${ADMINS_ONLY}`);
    res.status(201).json(await store.createApplication({ name: input.name.trim(), projectId: input.projectId }));
  });

  router.get('/applications', auth, async (req, res) => {
    const projectId = queryId(req, 'projectId', true);
    if (!(await store.getProject(projectId, userIdOf(res)))) throw errors.notFound('project');
    res.json(await store.listApplications(projectId, userIdOf(res)));
  });

  router.post('/applications/:id/api-keys', auth, jsonBody({ limit: 16 * 1024, optional: true }), async (req, res) => {
    const applicationId = pathId(req.params['id'] as string | undefined, 'application');
    const input = apiKeyBody.assert(req.body);
    const app = await adminApplication(store, applicationId, userIdOf(res));
    const key = generateApiKey();
    // The cap is checked by the store's creation itself (one atomic step), so parallel requests never pass it together.
    const stored = await store.createApiKey({ applicationId, projectId: app.projectId, name: input.name?.trim() ?? 'default', prefix: key.prefix, hash: key.hash },
      { maxActive: maxApiKeysPerApplication });
    if (!stored) throw errors.tooManyKeys(maxApiKeysPerApplication);
    res.status(201).json({ ...publicKey(stored), key: key.key });
  });

  router.get('/applications/:id/api-keys', auth, async (req, res) => {
    const applicationId = pathId(req.params['id'] as string | undefined, 'application');
    await adminApplication(store, applicationId, userIdOf(res));
    res.json((await store.listApiKeys(applicationId, userIdOf(res))).map(publicKey));
  });

  router.delete('/api-keys/:id', auth, async (req, res) => {
    const id = String(req.params['id'] ?? '');
    // Keys are visible to admins and owners only (the store's query): to a member, an unknown key.
    if (!(await store.getApiKey(id, userIdOf(res)))) throw errors.notFound('API key');
    await store.revokeApiKey(id);
    res.status(204).end();
  });
  return router;
}
