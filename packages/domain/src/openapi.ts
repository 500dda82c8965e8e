import { type Json, type Op, contains, ERRORS, exportMedia, exportParam, id, idempotencyKey, ingestLimits, json, keyCap, list, METHOD_NOT_ALLOWED, organizationCap, pageHeaders, pathInt, pathText, pathUuid, READ_503, readFilters, readLimit, ref, streamed, tenantIdParam, toComponent, uploadLimits } from './openapi-parts.js';
import { limits } from './limits.js';
import { MAX_NAME_LENGTH } from './span-names.js';
import { OTLP_METHOD_NOT_ALLOWED, otlpPaths } from './openapi-otlp.js';
import { allSchemas } from './schemas/index.js';

/**
 * The OpenAPI 3.1 document, generated from the very schemas the services validate with (schemas/):
 * each `$id` becomes a component, each `$ref: 'X'` a `#/components/schemas/X`.
 */
const ops: Record<string, Record<string, Op>> = {
  '/ingest/traces': {
    post: { summary: 'Send a batch of spans', security: 'apiKey', body: ref('TraceBatch'), ok: ['200', 'Valid spans stored (durably); invalid ones listed', ref('IngestResult')], errors: ['400', '401', '413', '415', '429', '503'],
      errorNotes: ingestLimits, params: [idempotencyKey] },
  },
  '/ingest/logs': {
    post: { summary: 'Send a batch of logs', security: 'apiKey', body: ref('LogBatch'), ok: ['200', 'Valid logs stored (durably); invalid ones listed', ref('IngestResult')], errors: ['400', '401', '413', '415', '429', '503'],
      errorNotes: ingestLimits, params: [idempotencyKey] },
    get: { summary: 'All logs of the projects you can see, newest first (streamed)', security: 'jwt', headers: pageHeaders, ok: ['200', streamed('Log entries'), list('LogEntry')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      alsoAs: exportMedia, description: 'An export\'s CSV columns: id, timestamp, level, projectId, applicationId, traceId, spanId, type, message, fields (the other fields as JSON); RFC 4180, CRLF, a header row; a text a spreadsheet would run as a formula gets a leading \'.',
      params: [...readFilters, exportParam, { name: 'level', in: 'query', schema: { type: 'string', maxLength: 64, pattern: '^(trace|debug|info|warn|error|fatal)(,(trace|debug|info|warn|error|fatal))*$' }, description: 'One level, or several separated by commas (`error,fatal`): logs of any of them.' }, { name: 'projectId', in: 'query', schema: id },
        contains('q', 'The log\'s `message`'),
        { name: 'attr', in: 'query', schema: { type: 'array', maxItems: limits.maxAttributeFilters, items: { type: 'string', minLength: 1, maxLength: limits.maxAttributeFilterLength, pattern: '^[^=]' } },
          description: 'Repeatable, all must hold (`attr=chargeId=ch_42&attr=http.route`): `key=value` (the first `=` ends the key), a log with that key and value, compared as text (a number as `500`, a boolean as `true`); or `key` alone, a log with the key, whatever its value. '
            + 'A log\'s keys: its OpenTelemetry `attributes`, its resource\'s and scope\'s attributes (`service.name` too), its `level` and its other fields (a Lantern log\'s own fields, such as `chargeId`), not its `id`, `timestamp`, `traceId`, `spanId` nor `message` (`q` searches it). '
            + 'Indexed: the key-value pairs of a log (its first 512 keys and pairs) are indexed a moment after it is stored; the logs not indexed yet are tested one by one (docs/api.md, "Attribute search").' }] },
  },
  '/logs/project': {
    get: { summary: 'All trace records of a project, newest first (streamed)', security: 'jwt', headers: pageHeaders, ok: ['200', streamed('Trace records'), list('TraceRecord')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      alsoAs: exportMedia, description: 'An export\'s CSV columns: id, traceId, projectId, applicationId, timestamp, spans (their count), service, operation, requestMethod, requestURL, responseStatus, durationMs (of the root span); RFC 4180, CRLF, a header row; a text a spreadsheet would run as a formula gets a leading \'. NDJSON holds each record whole.',
      params: [{ name: 'id', in: 'query', required: true, schema: id, description: 'Project id.' }, ...readFilters, exportParam,
        { name: 'minDurationMs', in: 'query', schema: { type: 'integer', minimum: 0, maximum: limits.maxDurationMs }, description: 'Root span duration at least this.' },
        { name: 'maxDurationMs', in: 'query', schema: { type: 'integer', minimum: 0, maximum: limits.maxDurationMs }, description: 'Root span duration at most this; not below `minDurationMs` (else 400).' },
        { name: 'status', in: 'query', schema: { type: 'string', pattern: '^[1-5]([xX]{2}|[0-9]{2})$', maxLength: 3 }, description: 'Root span status: a code (404) or a class (5xx).' },
        contains('url', 'The root span\'s `requestURL`'),
        { name: 'service', in: 'query', schema: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH }, description: 'The root span\'s service (an OpenTelemetry resource\'s `service.name`), exactly, case included. A Lantern SDK span has none: find its traces by `applicationId`.' },
        { name: 'operation', in: 'query', schema: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH }, description: 'The root span\'s operation, exactly, case included: its OpenTelemetry `name`, else the name part of `requestMethod`; a server span named by its HTTP method alone gets its route after it (`route`, or the `http.route` attribute): `GET /items/:id`.' },
        { name: 'attr', in: 'query', schema: { type: 'array', maxItems: limits.maxAttributeFilters, items: { type: 'string', minLength: 1, maxLength: limits.maxAttributeFilterLength, pattern: '^[^=]' } },
          description: 'Repeatable, all must hold (`attr=http.route=/checkout&attr=user.id`): `key=value` (the first `=` ends the key), a record any of whose spans has that key with that value, compared as text (a number as `500`, a boolean as `true`); or `key` alone, a record any of whose spans has the key, whatever its value. '
            + 'A span\'s keys: its OpenTelemetry `attributes`, its resource\'s and its scope\'s attributes (`service.name` too), and its other top-level fields (`requestMethod`, `requestURL`, `responseStatus`, `name`, a Lantern span\'s own fields), not its ids, time or duration. A list or nested value is found by its key only. '
            + 'Indexed: a record keeps its first 512 distinct keys and key-value pairs (docs/api.md, "Attribute search").' }] },
  },
  '/logs/volume': {
    get: { summary: 'How many logs a project\'s window holds, per bucket and level, and per level and application in all', security: 'jwt', ok: ['200', 'The volume', ref('LogVolume')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      description: 'The window as GET /metrics takes it: `from` before `to`, at most 90 days, widened to whole buckets of a width from 1 minute to 1 day (at most 200 buckets); without `from`, the hour ending at `to` (default now). Counts logs by the time they carry. '
        + 'On SQLite from rollups kept as logs are written (a week reads ~50k rows for one application); on MongoDB counted when read, so a long window of a busy project may pass the read budget (503 read_timeout). `q` and `traceId` are not taken: a volume is of levels and applications.',
      params: [{ name: 'projectId', in: 'query', required: true, schema: id }, { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 } }, { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 } },
        { name: 'applicationId', in: 'query', schema: id },
        { name: 'level', in: 'query', schema: { type: 'string', maxLength: 64, pattern: '^(trace|debug|info|warn|error|fatal)(,(trace|debug|info|warn|error|fatal))*$' }, description: 'Count only these levels (comma-separated).' }] },
  },
  '/logs/facets': {
    get: { summary: 'The top values of chosen keys among the newest logs that match the filters', security: 'jwt', ok: ['200', 'The facets', ref('LogFacets')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      description: 'Reads the newest logs of the project that match the filters (those of GET /ingest/logs), at most 10,000 (`complete` says whether that was all of them), and counts the values of each `key` among them: the 10 most frequent, the others and the logs without the key. '
        + 'A key is one `attr` can search (not a log\'s times, ids or message), looked up in the log\'s own field, then its OpenTelemetry attribute, its resource\'s or scope\'s (`service.name` from `serviceName` too), the first found. A sample, as Kibana\'s field statistics: exact counts per level and application are GET /logs/volume\'s.',
      params: [{ name: 'projectId', in: 'query', required: true, schema: id }, { name: 'key', in: 'query', required: true, schema: { type: 'array', minItems: 1, maxItems: limits.maxAttributeFilters, items: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH } }, description: 'The keys to count, repeated (`key=service.name&key=tenant`), 1 to 8.' },
        ...readFilters.filter((p) => p.name !== 'cursor' && p.name !== 'limit'),
        { name: 'level', in: 'query', schema: { type: 'string', maxLength: 64, pattern: '^(trace|debug|info|warn|error|fatal)(,(trace|debug|info|warn|error|fatal))*$' }, description: 'One level, or several separated by commas.' },
        contains('q', 'The log\'s `message`'),
        { name: 'attr', in: 'query', schema: { type: 'array', maxItems: limits.maxAttributeFilters, items: { type: 'string', minLength: 1, maxLength: limits.maxAttributeFilterLength, pattern: '^[^=]' } }, description: 'As on GET /ingest/logs.' }] },
  },
  '/metrics': {
    get: { summary: 'Request metrics per application from its entry (controller:) spans', security: 'jwt', ok: ['200', 'Metrics', ref('Metrics')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      description: '`from` must be before `to`, and the window at most 90 days (with the defaults: a `from` at most 90 days before now); else 400 validation_failed, rules the schema cannot state across two parameters.',
      params: [{ name: 'from', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'Default: an hour before `to`. Before `to`, at most 90 days before it; the window is widened to whole buckets.' }, { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'Default: now (the window then ends with the current minute).' }, { name: 'projectId', in: 'query', schema: id }, { name: 'applicationId', in: 'query', schema: id }] },
  },
  '/metrics/services': {
    get: { summary: 'The service map of a project: its applications and the calls between them, with calls, errors and p50/p95/p99', security: 'jwt', ok: ['200', 'The map', ref('ServiceMap')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      description: 'The window as GET /metrics takes it (`from` before `to`, at most 90 days; else 400 validation_failed). A call is an entry span of one application whose parent is a span of another application of the project, counted once both are stored (whichever came first), per minute and hour as spans are written: the window reads whole hours from the hour rollups. '
        + 'Applications are the nodes (a Lantern application is one API key: one service). Spans written before this version are not counted as calls.',
      params: [{ name: 'projectId', in: 'query', required: true, schema: id }, { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'As GET /metrics.' },
        { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'As GET /metrics.' }] },
  },
  '/metrics/operations': {
    get: { summary: 'Request metrics per operation (route) of each application: rate, errors, p50/p95/p99 and their series', security: 'jwt', ok: ['200', 'Metrics per operation', ref('OperationMetrics')], errors: ['400', '401', '404', '429', '503'], errorNotes: readLimit, read: true,
      description: 'The window as GET /metrics takes it (`from` before `to`, at most 90 days, whole buckets; else 400 validation_failed); a window over 6 h 40 min (where GET /metrics takes buckets over 2 minutes) takes buckets of an hour or more and is widened to whole hours. From rollups kept per application, operation and minute (and hour) as spans are written: '
        + 'an application\'s hour keeps its first 200 operation names, and the entry spans of any further name count under `operation: null` with those without a name. Spans written before this version count in GET /metrics but not here.',
      params: [{ name: 'from', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'As GET /metrics.' }, { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time', maxLength: 64 }, description: 'As GET /metrics.' },
        { name: 'projectId', in: 'query', schema: id }, { name: 'applicationId', in: 'query', schema: id },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 }, description: 'How many operations to list, the busiest first (default 100); `total` says how many there are.' }] },
  },
  '/ai/tenant': {
    post: { summary: 'Create an AI tenant in an organization you are a member of', security: 'jwt', body: ref('TenantBody'), ok: ['200', 'The tenant', ref('Tenant')], errors: ['400', '401', '403', '409', '413', '415'] },
    get: { summary: 'List the tenants of an organization', security: 'jwt', ok: ['200', 'Tenants', list('Tenant')], errors: ['400', '401', '404'], params: [{ name: 'organizationId', in: 'query', required: true, schema: id }] },
  },
  '/ai/docs': {
    post: { summary: 'Upload a document (multipart part "file", at most 10,485,760 bytes)', security: 'jwt', ok: ['200', 'The stored document, or the tenant\'s existing one with the same bytes', ref('Document')], errors: ['400', '401', '404', '413', '415', '429', '503'],
      errorNotes: uploadLimits,
      body: { type: 'object', required: ['file'], maxProperties: 11, propertyNames: { pattern: '^[A-Za-z0-9_.-]{1,64}$' }, additionalProperties: { type: 'string', maxLength: 1024 }, properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', minLength: 1, description: 'The document: 1 to 10,485,760 bytes (empty: 400; larger: 413). Its type is decided from its content; a binary type not listed above is 415.' } } },
      params: [tenantIdParam],
      description: 'Supported: PDF, DOCX, TXT, MD and other text (JSON, CSV, HTML, XML, YAML...), decided from the content. UTF-16 with a byte-order mark is text; text that is neither UTF-16 nor UTF-8 is labelled ISO-8859-1; UTF-32 and NUL bytes without a UTF-16 mark are 415. Besides `file`, up to 10 text fields (names of 1-64 `A-Za-z0-9_.-`, values of at most 1,024 characters) are allowed and ignored; others are 400.' },
    get: { summary: 'List the documents of a tenant, newest first', security: 'jwt', ok: ['200', 'Documents', list('Document')], errors: ['400', '401', '404'], params: [tenantIdParam] },
  },
  '/ai/docs/{docId}': {
    get: { summary: 'One document: its status, and its counts when ready or its error when failed', security: 'jwt', ok: ['200', 'The document', ref('Document')], errors: ['401', '404'], params: [pathText('docId')] },
    delete: { summary: 'Delete a document in any status: its chunks, its object and its record', security: 'jwt', ok: ['204', 'Deleted'], errors: ['401', '404', '503'], params: [pathText('docId')],
      description: 'From the moment this answers, no search returns the document. The steps, each safe to run again: the document marked `deleting` (gone from every list, lookup and search), its chunks, its object, its record. A 503 (object storage failed) leaves the document withdrawn: a retry goes on from there and answers 204; one nobody retries is finished by a document worker a minute later. Of concurrent DELETEs of one document, one answers 204, the others 404.' },
  },
  '/ai/docs/{docId}/reprocess': {
    post: { summary: 'Process a document again: back to `stored`, its chunks out of search until it is ready again', security: 'jwt', ok: ['202', 'The document, queued', ref('Document')], errors: ['401', '404'], params: [pathText('docId')] },
  },
  '/ai/search': {
    post: { summary: 'Search the ready documents of a tenant: the chunks holding the query\'s words, best first', security: 'jwt', body: ref('SearchBody'), ok: ['200', 'Results', ref('SearchResult')], errors: ['400', '401', '404', '413', '415'],
      params: [tenantIdParam],
      description: 'Lexical (BM25), any of the query\'s words, compared without case or accents; chunks holding the words next to each other rank above chunks where they are scattered. A query of only punctuation is 200 with no results. '
        + 'With semantic search configured (LANTERN_EMBEDDINGS_URL), hybrid: the lexical ranking and the chunks nearest the query\'s embedding (cosine) fused by reciprocal rank (k = 60), `score` the fused score relative to the best (1); a chunk may then match without sharing a word (no highlights). If the provider cannot embed the query, the answer is the lexical one.' },
  },
  '/auth/register': { post: { summary: 'Create an account', security: 'none', body: ref('RegisterBody'), ok: ['201', 'Account and token', ref('AuthResult')], errors: ['400', '409', '413', '415', '429'] } },
  '/auth/login': { post: { summary: 'Log in', security: 'none', body: ref('LoginBody'), ok: ['200', 'Token', ref('AuthResult')], errors: ['400', '401', '413', '415', '429'] } },
  '/auth/me': { get: { summary: 'You and your organizations', security: 'jwt', ok: ['200', 'Me', ref('Me')], errors: ['401'] } },
  '/auth/logout': { post: { summary: 'Sign out everywhere: every token issued so far stops working', security: 'jwt', ok: ['204', 'Signed out'], errors: ['401'] } },
  '/auth/password': {
    post: { summary: 'Change your password: earlier tokens stop working; the answer carries a new one', security: 'jwt', body: ref('PasswordChangeBody'), ok: ['200', 'New token', ref('AuthResult')],
      errors: ['400', '401', '403', '409', '413', '415', '429'], description: '403 when currentPassword is wrong. Rate limited per user.' },
  },
  '/organizations': {
    post: { summary: 'Create an organization (you become its owner)', security: 'jwt', body: ref('OrganizationBody'), ok: ['201', 'Organization', ref('Organization')], errors: ['400', '401', '413', '415', '429'],
      errorNotes: organizationCap },
    get: { summary: 'Your organizations with your role', security: 'jwt', ok: ['200', 'Organizations', list('Organization')], errors: ['401'] },
  },
  '/organizations/{id}/members': {
    post: { summary: 'Invite someone by email to an organization (owners only)', security: 'jwt', body: ref('MemberBody'), ok: ['201', 'Invited', ref('Invited')], errors: ['400', '401', '403', '404', '413', '415', '429'],
      description: 'Creates an invitation (valid 7 days) that the invitee accepts with POST /invitations/{id}/accept; until then nobody is added. '
        + 'The answer is the same whether or not the email has an account. Inviting the same email again replaces the pending invitation. '
        + 'Rate limited per inviting user.', params: [pathInt('id')] },
    get: { summary: 'Members of an organization with their roles (any member)', security: 'jwt', ok: ['200', 'Members', list('Member')], errors: ['400', '401', '404'],
      params: [pathInt('id')] },
  },
  '/organizations/{id}/members/{userId}': {
    patch: { summary: 'Change a member\'s role (owners only)', security: 'jwt', body: ref('RoleBody'), ok: ['200', 'The member', ref('Member')], errors: ['400', '401', '403', '404', '409', '413', '415'],
      description: '403 for anyone but an owner, and for a change to the creator\'s membership by anyone but the creator. 409 when the organization would be left without an owner.',
      params: [pathInt('id'), pathUuid('userId')] },
    delete: { summary: 'Remove a member (owners only), or leave (yourself)', security: 'jwt', ok: ['204', 'Removed'], errors: ['401', '403', '404', '409'],
      description: 'The same rules as the role change: the creator is removed only by themselves, and the last owner not at all (409).',
      params: [pathInt('id'), pathUuid('userId')] },
  },
  '/organizations/{id}/invitations': {
    get: { summary: 'Pending invitations of an organization, oldest first (owners only)', security: 'jwt', ok: ['200', 'Invitations', list('PendingInvitation')], errors: ['400', '401', '403', '404'],
      description: 'Unexpired invitations whose inviter is still an owner. 403 for members that are not owners, 404 for an organization you are not in.',
      params: [pathInt('id')] },
  },
  '/organizations/{id}/invitations/{invitationId}': {
    delete: { summary: 'Withdraw a pending invitation (owners only)', security: 'jwt', ok: ['204', 'Withdrawn'], errors: ['400', '401', '403', '404'],
      description: '403 for members that are not owners; 404 for an organization you are not in, or an invitation it does not have.',
      params: [pathInt('id'), pathUuid('invitationId')] },
  },
  '/invitations': {
    get: { summary: 'Your pending invitations (to your account\'s email), oldest first', security: 'jwt', ok: ['200', 'Invitations', list('Invitation')], errors: ['401'] },
  },
  '/invitations/{id}/accept': {
    post: { summary: 'Accept an invitation: you become a member with its role', security: 'jwt', ok: ['200', 'Your membership', ref('Organization')], errors: ['401', '404'],
      description: 'An existing member keeps their role. 404 for an invitation that is not yours, expired, already used or withdrawn, '
        + 'or whose inviter is no longer an owner of the organization.',
      params: [pathUuid('id')] },
  },
  '/invitations/{id}/decline': {
    post: { summary: 'Decline an invitation', security: 'jwt', ok: ['204', 'Declined'], errors: ['401', '404'], params: [pathUuid('id')] },
  },
  '/projects': {
    post: { summary: 'Create a project (admins and owners)', security: 'jwt', body: ref('ProjectBody'), ok: ['201', 'Project', ref('Project')], errors: ['400', '401', '403', '413', '415'] },
    get: { summary: 'Projects of an organization', security: 'jwt', ok: ['200', 'Projects', list('Project')], errors: ['400', '401', '404'], params: [{ name: 'organizationId', in: 'query', required: true, schema: id }] },
  },
  '/applications': {
    post: { summary: 'Create an application (admins and owners)', security: 'jwt', body: ref('ApplicationBody'), ok: ['201', 'Application', ref('Application')], errors: ['400', '401', '403', '413', '415'] },
    get: { summary: 'Applications of a project', security: 'jwt', ok: ['200', 'Applications', list('Application')], errors: ['400', '401', '404'], params: [{ name: 'projectId', in: 'query', required: true, schema: id }] },
  },
  '/applications/{id}/api-keys': {
    post: { summary: 'Create an API key (admins and owners; the key is shown only in this response)', security: 'jwt', body: ref('ApiKeyBody'), bodyOptional: true, ok: ['201', 'Key', ref('ApiKeyCreated')], errors: ['400', '401', '403', '404', '413', '415', '429'], errorNotes: keyCap,
      description: 'Without a body (or without `name`) the key is named "default".', params: [pathInt('id')] },
    get: { summary: 'API keys of an application (admins and owners; never the key itself)', security: 'jwt', ok: ['200', 'Keys', list('ApiKey')], errors: ['401', '403', '404'], params: [pathInt('id')] },
  },
  '/api-keys/{id}': {
    delete: { summary: 'Revoke an API key (admins and owners; ingest refuses it within 5 s)', security: 'jwt', ok: ['204', 'Revoked'], errors: ['401', '404'], params: [pathText('id')] },
  },
};

/** The documented paths (OpenAPI templates such as `/organizations/{id}/members`) with their methods, lower-case. */
export function documentedRoutes(): Record<string, string[]> {
  return Object.fromEntries([...Object.entries(ops), ...Object.entries(otlpPaths)].map(([path, methods]) => [path, Object.keys(methods)]));
}

function operation(op: Op): Json {
  const out: Record<string, Json> = { summary: op.summary };
  if (op.description) out['description'] = op.description;
  out['security'] = op.security === 'jwt' ? [{ bearer: [] }] : op.security === 'apiKey' ? [{ apiKey: [] }] : [];
  if (op.params) out['parameters'] = op.params as unknown as Json;
  if (op.body) {
    const media = op.summary.startsWith('Upload') ? 'multipart/form-data' : 'application/json';
    out['requestBody'] = { required: !op.bodyOptional, content: { [media]: { schema: op.body } } };
  }
  const [code, description, schema] = op.ok;
  const success: Record<string, Json> = schema === undefined ? { description } : { description, ...json(schema) };
  if (op.alsoAs) success['content'] = { ...(success['content'] as Record<string, Json>), ...op.alsoAs };
  if (op.headers) success['headers'] = op.headers;
  const responses: Record<string, Json> = { [code]: success };
  // Every operation may answer 503 (a backing system down) and every path 405 (another method).
  const statuses = [...new Set([...op.errors, '405', '503'])].sort();
  for (const e of statuses) {
    responses[e] = e === '405' ? { $ref: '#/components/responses/MethodNotAllowed' } : op.errorNotes?.[e] ?? (e === '503' && op.read ? READ_503 : ERRORS[e]!);
  }
  out['responses'] = responses;
  return out;
}

export function buildOpenApi(serverUrl = '/'): Json {
  const components: Record<string, Json> = {};
  for (const s of allSchemas) components[s.$id] = toComponent(s);
  const paths: Record<string, Json> = {};
  for (const [path, methods] of Object.entries(ops)) {
    paths[path] = Object.fromEntries(Object.entries(methods).map(([m, op]) => [m, operation(op)]));
  }
  Object.assign(paths, otlpPaths);
  return {
    openapi: '3.1.0',
    info: { title: 'Lantern API', version: '0.1.0', description: 'Traces, logs and metrics for Node.js services, and AI document tenants. Errors: {"error": {"code", "message", "details"?}}. '
      + 'The HTTP server itself answers, on any path and before any route, 400 bad_request (not HTTP/1.1), 408 request_timeout (HEADERS_TIMEOUT_MS, '
      + 'REQUEST_TIMEOUT_MS) and 431 headers_too_large (headers over 16 KiB), each with that body and Connection: close.' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: components,
      responses: { MethodNotAllowed: METHOD_NOT_ALLOWED, OtlpMethodNotAllowed: OTLP_METHOD_NOT_ALLOWED },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
  };
}
