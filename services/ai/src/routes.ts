import type { TokenService } from '@lantern/auth';
import type { BlobStore } from '@lantern/blobs';
import { errors, schemas, validatorFor } from '@lantern/domain';
import { jsonBody, logCounterFailures, queryId, rateLimit, requireUser, requiredText, userIdOf } from '@lantern/http';
import type { Logger } from '@lantern/logging';
import type { Store } from '@lantern/store';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { admitDocument, quotaNotReached } from './admit.js';
import { deleteDocument } from './delete.js';
import type { AnnounceDocument } from './processing/events.js';
import { uploadSlots } from './slots.js';
import { publicDocument } from './knowledge-routes.js';
import { acceptUpload, uploadMiddleware, type StoredUpload } from './upload.js';

export type AiStore = Pick<
  Store,
  'getRole' | 'createTenant' | 'listTenants' | 'getTenant' | 'createDocument' | 'listDocuments' | 'getDocument' | 'getDocumentToDelete' | 'withdrawDocument' | 'removeDocument'
  | 'findDocumentBySha256' | 'organizationStoredBytes' | 'countHit' | 'reprocessDocument' | 'searchChunks' | 'nearestChunks'
>;

/** The upload limits (docs/api.md, "Limits"). */
export interface UploadLimits {
  /** The rate limits below apply (RATE_LIMIT_ENABLED). */
  enabled: boolean;
  perUserPerMinute: number;
  perOrganizationPerMinute: number;
  /** Bytes of documents one organization may keep, all its tenants together. */
  storageQuotaBytes: number;
  /** Uploads this process receives at once, at most UPLOAD_SLOTS_PER_USER of them one user's; the others wait their turn (slots.ts). */
  maxConcurrentUploads?: number;
  /** The longest an upload waits for a slot before 503 `unavailable` (UPLOAD_WAIT_MS). */
  uploadWaitMs?: number;
}

export interface AiDeps {
  store: AiStore;
  blobs: BlobStore;
  tokens: TokenService;
  logger: Logger;
  /** Default: no rate limit, and a quota of 1 GiB per organization. */
  limits?: UploadLimits;
  /** Announces a new document to the document workers (processing/events.ts); without it, they find it at their next look. */
  announce?: AnnounceDocument;
}

/** MAX_CONCURRENT_UPLOADS's and UPLOAD_WAIT_MS's defaults (packages/config). */
const DEFAULT_CONCURRENT_UPLOADS = 4;
const DEFAULT_UPLOAD_WAIT_MS = 20_000;
/** The names of the text fields an upload form may carry beside `file` (the OpenAPI document says the same). */
const FORM_FIELD_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_FORM_FIELD_CHARS = 1024;

const tenantBody = validatorFor<{ name: string; organizationId: number }>(schemas.ai.tenantBody.$id);


/** Tenants and their documents. */
export function createAiRouter({ store, blobs, tokens, logger, limits, announce }: AiDeps): Router {
  const router = Router();
  const auth = requireUser(tokens);
  const quotaBytes = limits?.storageQuotaBytes ?? 1024 * 1024 * 1024;
  // Counted in the store's windows, shared by every AI process (docs/deploy.md).
  const onCounterError = logCounterFailures(logger);
  const uploadLimit = (scope: string, max: number, key: (res: Response) => string) =>
    rateLimit({ enabled: limits?.enabled ?? false, max, scope, counter: store, onCounterError, key: (_req, res) => key(res) });
  const perUser = uploadLimit('your uploads', limits?.perUserPerMinute ?? 1, (res) => `upload-user:${userIdOf(res)}`);
  const perOrganization = uploadLimit('this organization\'s uploads', limits?.perOrganizationPerMinute ?? 1, (res) => `upload-org:${String(res.locals['organizationId'])}`);

  router.post('/ai/tenant', auth, jsonBody({ limit: 16 * 1024 }), async (req, res) => {
    const input = tenantBody.assert(req.body);
    const role = await store.getRole(input.organizationId, userIdOf(res));
    if (!role) throw errors.forbidden('You are not a member of this organization.');
    // contract.md: the caller must be a member of the organization (else 403), any role (docs/api.md, "Roles").
    res.status(200).json(await store.createTenant({ name: input.name.trim(), organizationId: input.organizationId }));
  });

  router.get('/ai/tenant', auth, async (req, res) => {
    const organizationId = queryId(req, 'organizationId', true);
    if (!(await store.getRole(organizationId, userIdOf(res)))) throw errors.notFound('organization');
    res.json(await store.listTenants(organizationId, userIdOf(res)));
  });

  const findTenant: RequestHandler = async (req, res, next) => {
    const tenantId = requiredText(req, 'TenantId');
    const tenant = await store.getTenant(tenantId, userIdOf(res));
    if (!tenant) throw errors.notFound('tenant');
    res.locals['tenantId'] = tenantId;
    res.locals['organizationId'] = tenant.organizationId;
    next();
  };
  const multipartOnly: RequestHandler = (req, _res, next) => {
    if (!req.is('multipart/form-data')) throw errors.unsupportedMedia('Upload the document as multipart/form-data with a part named "file".');
    next();
  };

  const uploadChecks = [auth, perUser, findTenant, perOrganization, multipartOnly, quotaNotReached({ store, quotaBytes })];
  const slot = uploadSlots({ max: limits?.maxConcurrentUploads ?? DEFAULT_CONCURRENT_UPLOADS, maxWaitMs: limits?.uploadWaitMs ?? DEFAULT_UPLOAD_WAIT_MS });
  router.post('/ai/docs', uploadChecks, slot, uploadMiddleware(blobs), async (req: Request, res: Response) => {
    const tenantId = res.locals['tenantId'] as string;
    const file = req.file as (Express.Multer.File & StoredUpload) | undefined;
    if (!file) throw errors.validation('No file: send the document in a multipart part named "file".');
    // Other text fields are allowed and ignored, as the OpenAPI document states them (FORM_FIELD_NAME, 1,024 characters).
    const refused = Object.entries((req.body ?? {}) as Record<string, unknown>)
      .find(([name, value]) => !FORM_FIELD_NAME.test(name) || typeof value !== 'string' || [...value].length > MAX_FORM_FIELD_CHARS);
    if (refused) {
      await blobs.delete(file.objectKey);
      throw errors.validation(`The form field "${refused[0].slice(0, 64)}" is not allowed: names are 1-64 of A-Z a-z 0-9 _ . -, values at most ${MAX_FORM_FIELD_CHARS} characters.`, [{ path: `/${refused[0].slice(0, 64)}` }]);
    }
    const record = await acceptUpload(blobs, tenantId, file, file.originalname);
    const { document, existing } = await admitDocument({ store, blobs, logger, quotaBytes }, res.locals['organizationId'] as number, record);
    if (existing) logger.info('document already stored', { tenantId, documentId: document.id, size: document.size });
    else {
      logger.info('document stored', { tenantId, documentId: document.id, size: document.size, contentType: document.contentType });
      announce?.(document);
    }
    res.status(200).json(publicDocument(document));
  });

  router.get('/ai/docs', auth, findTenant, async (_req, res) => {
    res.json((await store.listDocuments(res.locals['tenantId'] as string, userIdOf(res))).map(publicDocument));
  });

  router.delete('/ai/docs/:docId', auth, async (req, res) => {
    // A document withdrawn by a DELETE that failed half-way (503) is found too: its retry goes on from there.
    const doc = await store.getDocumentToDelete(String(req.params['docId'] ?? ''), userIdOf(res));
    if (!doc) throw errors.notFound('document');
    // Concurrent DELETEs of one document all pass the lookup; only the one that removes the record answers
    // 204, the others 404 as a later DELETE would.
    if (!(await deleteDocument(store, blobs, doc))) throw errors.notFound('document');
    res.status(204).end();
  });
  return router;
}
