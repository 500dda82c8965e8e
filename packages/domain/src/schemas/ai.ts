import { name, positiveId, recordId, timestamp } from './common.js';

export const tenantBody = {
  $id: 'TenantBody',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'organizationId'],
  properties: { name, organizationId: positiveId },
} as const;

export const tenant = {
  $id: 'Tenant',
  type: 'object',
  required: ['id', 'name', 'organizationId'],
  properties: { id: recordId, name: { type: 'string' }, organizationId: positiveId },
} as const;

export const documentRecord = {
  $id: 'Document',
  type: 'object',
  required: ['id', 'tenantId', 'filename', 'contentType', 'size', 'sha256', 'status', 'createdAt'],
  properties: {
    id: recordId,
    tenantId: recordId,
    filename: { type: 'string', description: 'The client filename, sanitised; metadata only.' },
    contentType: { type: 'string', description: 'Decided from the content, e.g. application/pdf, text/markdown.' },
    size: { type: 'integer', minimum: 1, maximum: 10485760 },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    status: { type: 'string', description: '`stored` once the file is in object storage.' },
    createdAt: timestamp,
  },
} as const;
