import { generateApiKey, type TokenService } from '@lantern/auth';
import { errors, schemas, validatorFor } from '@lantern/domain';
import { jsonBody, pathId, queryId, requireUser, userIdOf } from '@lantern/http';
import type { AccountsStore, LimitsStore, StoredApiKey } from '@lantern/store';
import { Router } from 'express';

const projectBody = validatorFor<{ name: string; organizationId: number }>(schemas.accounts.projectBody.$id);
const applicationBody = validatorFor<{ name: string; projectId: number }>(schemas.accounts.applicationBody.$id);
const apiKeyBody = validatorFor<{ name?: string }>(schemas.accounts.apiKeyBody.$id);

/** The public view of a key: never the key or its hash. */
function publicKey(k: StoredApiKey) {
  return { id: k.id, applicationId: k.applicationId, projectId: k.projectId, name: k.name, prefix: k.prefix, createdAt: k.createdAt, revokedAt: k.revokedAt };
}

/** Projects, applications and their API keys. */
export function projectRoutes({ store, tokens, maxApiKeysPerApplication = 20 }: {
  store: AccountsStore & Pick<LimitsStore, 'countActiveApiKeys'>;
  tokens: TokenService;
  /** Active keys an application may have (MAX_API_KEYS_PER_APPLICATION); one more is 429 too_many_keys. */
  maxApiKeysPerApplication?: number;
}): Router {
  const router = Router();
  const auth = requireUser(tokens);
  const body = jsonBody({ limit: 16 * 1024 });

  router.post('/projects', auth, body, async (req, res) => {
    const input = projectBody.assert(req.body);
    if (!(await store.getRole(input.organizationId, userIdOf(res)))) throw errors.forbidden('You are not a member of this organization.');
    res.status(201).json(await store.createProject({ name: input.name.trim(), organizationId: input.organizationId }));
  });

  router.get('/projects', auth, async (req, res) => {
    const organizationId = queryId(req, 'organizationId', true);
    if (!(await store.getRole(organizationId, userIdOf(res)))) throw errors.notFound('organization');
    res.json(await store.listProjects(organizationId, userIdOf(res)));
  });

  router.post('/applications', auth, body, async (req, res) => {
    const input = applicationBody.assert(req.body);
    if (!(await store.getProject(input.projectId, userIdOf(res)))) throw errors.forbidden('You are not a member of the organization of this project.');
    res.status(201).json(await store.createApplication({ name: input.name.trim(), projectId: input.projectId }));
  });

  router.get('/applications', auth, async (req, res) => {
    const projectId = queryId(req, 'projectId', true);
    if (!(await store.getProject(projectId, userIdOf(res)))) throw errors.notFound('project');
    res.json(await store.listApplications(projectId, userIdOf(res)));
  });

  router.post('/applications/:id/api-keys', auth, jsonBody({ limit: 16 * 1024, optional: true }), async (req, res) => {
    const applicationId = pathId(req.params['id'] as string | undefined, 'application');
    const input = apiKeyBody.assert(req.body ?? {});
    const app = await store.getApplication(applicationId, userIdOf(res));
    if (!app) throw errors.notFound('application');
    if ((await store.countActiveApiKeys(applicationId)) >= maxApiKeysPerApplication) throw errors.tooManyKeys(maxApiKeysPerApplication);
    const key = generateApiKey();
    const stored = await store.createApiKey({ applicationId, projectId: app.projectId, name: input.name?.trim() ?? 'default', prefix: key.prefix, hash: key.hash });
    res.status(201).json({ ...publicKey(stored), key: key.key });
  });

  router.get('/applications/:id/api-keys', auth, async (req, res) => {
    const applicationId = pathId(req.params['id'] as string | undefined, 'application');
    if (!(await store.getApplication(applicationId, userIdOf(res)))) throw errors.notFound('application');
    res.json((await store.listApiKeys(applicationId, userIdOf(res))).map(publicKey));
  });

  router.delete('/api-keys/:id', auth, async (req, res) => {
    const id = String(req.params['id'] ?? '');
    if (!(await store.getApiKey(id, userIdOf(res)))) throw errors.notFound('API key');
    await store.revokeApiKey(id);
    res.status(204).end();
  });
  return router;
}
