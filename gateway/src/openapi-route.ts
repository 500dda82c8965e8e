import { buildOpenApi } from '@lantern/domain';
import { Router } from 'express';

/** GET /openapi.json: built once from the shared schemas. */
export function openApiRouter(): Router {
  const doc = JSON.stringify(buildOpenApi());
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(doc);
  });
  return router;
}
