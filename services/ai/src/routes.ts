import type { TokenService } from '@lantern/auth';
import type { BlobStore } from '@lantern/blobs';
import { errors, schemas, validatorFor } from '@lantern/domain';
import { jsonBody, queryId, requireUser, requiredText, userIdOf } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { Store, StoredDocument } from '@lantern/store';
import { Router, type RequestHandler } from 'express';
import { acceptUpload, uploadMiddleware, type StoredUpload } from './upload.js';

export type AiStore = Pick<Store, 'getRole' | 'createTenant' | 'listTenants' | 'getTenant' | 'createDocument' | 'listDocuments' | 'getDocument' | 'deleteDocument'>;

export interface AiDeps {
  store: AiStore;
  blobs: BlobStore;
  tokens: TokenService;
  logger: Logger;
}

const tenantBody = validatorFor<{ name: string; organizationId: number }>(schemas.ai.tenantBody.$id);

/** The public document record: everything but the object key. */
function publicDocument({ objectKey: _key, ...doc }: StoredDocument) {
  return doc;
}

/** Tenants and their documents. */
export function createAiRouter({ store, blobs, tokens, logger }: AiDeps): Router {
  const router = Router();
  const auth = requireUser(tokens);

  router.post('/ai/tenant', auth, jsonBody({ limit: 16 * 1024 }), async (req, res) => {
    const input = tenantBody.assert(req.body);
    const role = await store.getRole(input.organizationId, userIdOf(res));
    if (!role) throw errors.forbidden('You are not a member of this organization.');
    // A tenant is an organization's container, like a project: admins and owners create them (docs/api.md, "Roles").
    if (role === 'member') throw errors.forbidden('Creating a tenant needs the admin or owner role in the organization.');
    res.status(200).json(await store.createTenant({ name: input.name.trim(), organizationId: input.organizationId }));
  });

  router.get('/ai/tenant', auth, async (req, res) => {
    const organizationId = queryId(req, 'organizationId', true);
    if (!(await store.getRole(organizationId, userIdOf(res)))) throw errors.notFound('organization');
    res.json(await store.listTenants(organizationId, userIdOf(res)));
  });

  const findTenant: RequestHandler = async (req, res, next) => {
    const tenantId = requiredText(req, 'TenantId');
    if (!(await store.getTenant(tenantId, userIdOf(res)))) throw errors.notFound('tenant');
    res.locals['tenantId'] = tenantId;
    next();
  };
  const multipartOnly: RequestHandler = (req, _res, next) => {
    if (!req.is('multipart/form-data')) throw errors.unsupportedMedia('Upload the document as multipart/form-data with a part named "file".');
    next();
  };

  router.post('/ai/docs', auth, findTenant, multipartOnly, uploadMiddleware(blobs), async (req, res) => {
    const tenantId = res.locals['tenantId'] as string;
    const file = req.file as (Express.Multer.File & StoredUpload) | undefined;
    if (!file) throw errors.validation('No file: send the document in a multipart part named "file".');
    const record = await acceptUpload(blobs, tenantId, file, file.originalname);
    try {
      await store.createDocument(record);
    } catch (err) {
      await blobs.delete(record.objectKey).catch(() => undefined);
      throw err;
    }
    logger.info('document stored', { tenantId, documentId: record.id, size: record.size, contentType: record.contentType });
    res.status(200).json(publicDocument(record));
  });

  router.get('/ai/docs', auth, findTenant, async (_req, res) => {
    res.json((await store.listDocuments(res.locals['tenantId'] as string, userIdOf(res))).map(publicDocument));
  });

  router.delete('/ai/docs/:docId', auth, async (req, res) => {
    const doc = await store.getDocument(String(req.params['docId'] ?? ''), userIdOf(res));
    if (!doc) throw errors.notFound('document');
    try {
      await blobs.delete(doc.objectKey);
    } catch {
      throw errors.unavailable('object storage');
    }
    // Concurrent DELETEs of one document all pass the lookup; only the one that removes the record answers
    // 204, the others 404 as a later DELETE would.
    if (!(await store.deleteDocument(doc.id))) throw errors.notFound('document');
    res.status(204).end();
  });
  return router;
}
