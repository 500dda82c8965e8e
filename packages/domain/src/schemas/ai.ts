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
    status: {
      type: 'string', enum: ['stored', 'processing', 'ready', 'failed'],
      description: '`stored` once the file is in object storage (waiting to be processed), `processing`, `ready` (searchable) or `failed` (see `error`).',
    },
    createdAt: timestamp,
    chunks: { type: 'integer', minimum: 0, description: 'When ready: how many chunks the text was cut into.' },
    characters: { type: 'integer', minimum: 0, description: 'When ready: the characters of text extracted.' },
    pages: { type: 'integer', minimum: 1, description: 'When ready, for a PDF: its pages.' },
    error: {
      type: 'object', required: ['code', 'message'], description: 'When failed: why.',
      properties: {
        code: { type: 'string', enum: ['encrypted', 'no_text', 'unreadable', 'too_large', 'timeout'] },
        message: { type: 'string' },
      },
    },
  },
} as const;

export const searchBody = {
  $id: 'SearchBody',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: {
      type: 'string', minLength: 1, maxLength: 1000, pattern: '\\S',
      description: 'The words to find, as the user typed them: quotes, `*`, `-`, `NEAR`, `AND`/`OR`, `$` and brackets are ordinary characters; control characters are ignored. Not only white space; at most 1,000 characters.',
    },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    documentIds: { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 100 }, description: 'Only these documents of the tenant.' },
  },
} as const;

const offsets = { type: 'array', minItems: 2, maxItems: 2, items: { type: 'integer', minimum: 0 } } as const;

export const searchResult = {
  $id: 'SearchResult',
  type: 'object',
  required: ['query', 'results'],
  properties: {
    query: { type: 'string' },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['documentId', 'filename', 'chunkIndex', 'score', 'text', 'highlights'],
        properties: {
          documentId: recordId,
          filename: { type: 'string' },
          chunkIndex: { type: 'integer', minimum: 0 },
          page: { type: 'integer', minimum: 1, description: 'For a PDF: the page its first highlight stands on (its first page when nothing is highlighted).' },
          pages: { ...offsets, description: 'For a PDF: [first, last], the pages the chunk spans.' },
          score: { type: 'number', description: 'Higher is a better match; results come in descending score.' },
          text: { type: 'string', description: 'The chunk.' },
          highlights: { type: 'array', items: offsets, description: '[start, end) of each matched word in `text`, in UTF-16 code units.' },
        },
      },
    },
  },
} as const;
