import { limits } from './limits.js';
import { positiveId, uuid } from './schemas/common.js';

/**
 * The pieces of the OpenAPI document (openapi.ts): shared responses with their error body, the parameters several
 * operations take, and the shape of an operation in its table.
 */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export function toComponent(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(toComponent);
  if (schema === null || typeof schema !== 'object') return schema as Json;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$id') continue;
    out[k] = k === '$ref' && typeof v === 'string' && !v.startsWith('#') ? `#/components/schemas/${v}` : toComponent(v);
  }
  return out;
}

export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
export const json = (schema: Json) => ({ content: { 'application/json': { schema } } });
export const list = (id: string) => ({ type: 'array', items: ref(id) });
export const err = (description: string) => ({ description, ...json(ref('Error')) });

export const retryAfter = { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } } };

export const ERRORS: Record<string, Json> = {
  '400': err('invalid_json, validation_failed or missing_parameter; details name the path'),
  '401': err('unauthorized: missing, malformed, expired or revoked credential'),
  '403': err('forbidden: authenticated but not allowed'),
  '404': err('not_found: no such resource, or not visible to the caller'),
  '409': err('conflict'),
  '413': err('payload_too_large'),
  '415': err('unsupported_media_type'),
  '429': { ...err('rate_limited'), headers: retryAfter },
  '503': { ...err('unavailable: a backing system (store, message bus, object storage) is down; nothing was written'), headers: retryAfter },
};

/**
 * 405 for a method the path is not served with (every path: a shared response). `Allow` lists the methods it is
 * served with, HEAD wherever GET is, and OPTIONS, which every path answers 204 with the same `Allow`.
 */
export const METHOD_NOT_ALLOWED: Json = {
  description: 'method_not_allowed: the path is not served with this method; `Allow` lists the ones it is.',
  headers: { Allow: { description: 'The methods of the path, e.g. `GET, HEAD, POST, OPTIONS`.', required: true, schema: { type: 'string' } } },
  ...json(ref('Error')),
};

/** The limits of docs/api.md ("Limits"): what 413 and 429 mean on the operations they apply to. */
export const ingestLimits = {
  '400': err('invalid_json, validation_failed (also for a body nested deeper than 64 levels, refused before parsing) or missing_parameter'),
  '429': { ...err('rate_limited: over the limit of the API key, of its application or of its organization (details name it)'), headers: retryAfter },
};
export const readLimit = { '429': { ...err('too_many_reads: you already have MAX_CONCURRENT_READS_PER_USER (default 4) reads in flight'), headers: retryAfter } };
export const uploadLimits = {
  '413': err('payload_too_large (a file over 10,485,760 bytes) or quota_exceeded (the organization would pass STORAGE_QUOTA_BYTES); nothing is kept'),
  '429': { ...err('rate_limited: over your uploads per minute or your organization\'s (details name it)'), headers: retryAfter },
  '503': { ...err('unavailable: every upload slot of the process (MAX_CONCURRENT_UPLOADS, at most 2 of them yours) stayed busy for UPLOAD_WAIT_MS (default 20 s), or a backing system is down; nothing was stored'), headers: retryAfter },
};
export const organizationCap = {
  '429': { ...err('too_many_organizations: you have created MAX_ORGANIZATIONS_PER_USER (default 10) organizations (Retry-After: 60); deleting or leaving one does not give one back yet'), headers: retryAfter },
};
export const keyCap = { '429': { ...err('too_many_keys: the application has MAX_API_KEYS_PER_APPLICATION (default 20) active keys; revoke one (waiting alone does not help; Retry-After is 60 as on every 429)'), headers: retryAfter } };

/** The 503 of a telemetry read: its budget (docs/api.md, "Read budgets"), or the store down. */
export const READ_503: Json = {
  ...err('read_timeout: the read ran past its time budget (READ_BUDGET_MS for a page, a search or metrics; STREAM_BUDGET_MS for a '
    + 'whole-set stream) before its first record; narrow it or page with the cursor, retrying as is will not help. Or unavailable: the '
    + 'store is down (with Retry-After).'),
  headers: retryAfter,
};

/** What a streamed read's 200 says of the end marker. */
export const streamed = (what: string): string => `${what}, newest first. Without \`limit\` the whole set is streamed; a stream that runs past `
  + 'its budget (STREAM_BUDGET_MS) ends the array with one last element, the end marker: the error body '
  + '`{"error":{"code":"read_timeout","message":"...","details":[{"budgetMs":...}]}}`, so the JSON stays valid (a record never has a '
  + 'top-level `error` field).';

/** The headers of a page of a streamed read when `limit` is given and there is a next page. */
export const pageHeaders = {
  'X-Next-Cursor': { description: 'The `cursor` of the next page; absent on the last page.', schema: { type: 'string' } },
  Link: { description: 'The next page as `<url>; rel="next"`; absent on the last page.', schema: { type: 'string' } },
};

export interface Op {
  summary: string;
  security: 'jwt' | 'apiKey' | 'none';
  body?: Json;
  /** The request may come without a body. */
  bodyOptional?: boolean;
  /** Headers of the success response. */
  headers?: Record<string, Json>;
  params?: Array<{ name: string; in: 'query' | 'path' | 'header'; required?: boolean; schema: Json; description?: string }>;
  ok: [string, string, Json?];
  /** Other media types of the success response (an export's), beside its JSON. */
  alsoAs?: Record<string, Json>;
  errors: string[];
  /** What an error status means for this operation, where it says more than the shared one (its code). */
  errorNotes?: Record<string, Json>;
  description?: string;
  /** A telemetry read: its 503 is the read budget's (READ_503). */
  read?: boolean;
}

/** An integer id (organizations, projects, applications): a whole number as JSON Schema reads one (`7`, `7.0`), in plain decimal (`7.5`, `+7`, `07`, `7e0` are 400). */
export const id = positiveId as unknown as Json;
/** A path id of an integer-keyed resource: any other text names nothing (404). */
export const pathInt = (name: string): NonNullable<Op['params']>[number] => ({ name, in: 'path', required: true, schema: id, description: 'An integer id; any other text names nothing: 404.' });
/** A path id of a UUID-keyed record (users, invitations): any other text names nothing (404). */
export const pathUuid = (name: string): NonNullable<Op['params']>[number] => ({ name, in: 'path', required: true, schema: uuid as unknown as Json, description: 'A UUID; any other text names nothing: 404.' });
/** A path id the store looks up as given (documents, API keys): an unknown one is 404. */
export const pathText = (name: string): NonNullable<Op['params']>[number] => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 }, description: 'The record id (a UUID) as returned; an unknown one is 404.' });
/** The tenant of the document operations: looked up as given (at most 1,024 characters: longer is 400), an unknown one is 404. */
export const tenantIdParam: NonNullable<Op['params']>[number] = {
  name: 'TenantId', in: 'query', required: true, schema: { type: 'string', minLength: 1, maxLength: 1024 },
  description: 'The tenant\'s id, as POST /ai/tenant returned it. Absent or empty: 400 missing_parameter; a tenant you cannot see: 404.',
};
export const FROM_BEFORE_TO = '`from` must be before `to` when both are given (400 validation_failed otherwise: a rule the schema cannot state across two parameters).';
export const readFilters: NonNullable<Op['params']> = [
  { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: `Inclusive lower bound, with an offset. ${FROM_BEFORE_TO}` },
  { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: `Exclusive upper bound, with an offset. ${FROM_BEFORE_TO}` },
  { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000 }, description: 'Page size; the next page is in X-Next-Cursor and Link rel="next".' },
  { name: 'cursor', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 256 }, description: 'From X-Next-Cursor of the previous page; any text this service did not issue is 400 validation_failed.' },
  { name: 'applicationId', in: 'query', schema: id },
  { name: 'traceId', in: 'query', schema: uuid as unknown as Json },
];

/** A substring filter of a read: its text is taken literally, ASCII letters without regard to case. */
export const contains = (name: string, field: string): NonNullable<Op['params']>[number] => ({
  name, in: 'query', schema: { type: 'string', minLength: 1, maxLength: limits.maxSearchLength },
  description: `${field} contains this text: literal (\`%\`, \`_\`, \`*\` and regular-expression characters are plain characters), `
    + 'ASCII letters compared without regard to case, other characters exactly. It narrows the rows the other filters select (for `q`, '
    + 'a trigram index finds rare texts); the read budget bounds it: past it, 503 read_timeout.',
});

export const idempotencyKey: NonNullable<Op['params']>[number] = {
  name: 'Idempotency-Key', in: 'header', schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,200}$' },
  description: '1-200 visible ASCII characters. A repeated key from the same application within 24 h is answered 200 and not stored again.',
};


/** `format` of the two reads, and the media types an export answers with. */
export const exportParam: NonNullable<Op['params']>[number] = {
  name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'ndjson', 'csv'] },
  description: 'json (default): the JSON array. ndjson or csv: an export of every record the filters match (as an attachment), read page by page '
    + 'on the server, so it has no time cap and memory does not grow with it; `limit` caps it, `cursor` starts it. A read past its budget ends an '
    + 'NDJSON export with one line holding its error body; a CSV export is cut there (an incomplete download).',
};
/** The media types of an export (the columns of its CSV are in the operation's description). */
export const exportMedia: Record<string, Json> = {
  'application/x-ndjson': { schema: { type: 'string' } } as unknown as Json,
  'text/csv': { schema: { type: 'string' } } as unknown as Json,
};
