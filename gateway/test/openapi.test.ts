import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Response } from 'supertest';
import { PASSWORD, register } from './accounts-helpers.js';
import { bearer, createTenancy, log, logBatch, span, startLantern, traceBatch, type Lantern } from './harness.js';
import { iso, sendLogs, sendTraces } from './telemetry-helpers.js';

/**
 * GET /openapi.json: a valid OpenAPI 3.1 document that lists every endpoint of the seed and the contract with
 * their parameters and security, whose references resolve and whose schemas compile, and, the point of it,
 * that describes what the service really answers: every 2xx body of a real request validates against the
 * documented response schema, with no undocumented field, and every error answered is documented.
 */

// ajv is a dependency of @lantern/domain only: loaded from that package, the library the product validates with.
type AjvModule = typeof import('../../packages/domain/node_modules/ajv/dist/2020.js');
type AjvInstance = InstanceType<AjvModule['Ajv2020']>;
type FormatsModule = typeof import('../../packages/domain/node_modules/ajv-formats/dist/index.js');
const requireFromTest = createRequire(import.meta.url);
const { Ajv2020 } = requireFromTest('../../packages/domain/node_modules/ajv/dist/2020.js') as AjvModule;
const formats = requireFromTest('../../packages/domain/node_modules/ajv-formats') as FormatsModule & { default?: FormatsModule['default'] };
const addFormats = (formats.default ?? formats) as unknown as (ajv: AjvInstance) => void;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
interface Parameter { name: string; in: string; required?: boolean; schema: Obj }
interface Operation {
  description?: string;
  security: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: Obj }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Obj }>; headers?: Record<string, Obj> }>;
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Obj>; securitySchemes: Record<string, Obj> };
}

const COMPONENTS = 'https://lantern.test/components';
const REF_PREFIX = '#/components/schemas/';

/** Every `$ref` in a JSON value. */
function refsIn(value: Json, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

/** Resolves a local JSON Pointer (`#/a/b`) in the document, or undefined. */
function resolvePointer(doc: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: Json | undefined = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) return undefined;
    node = (node as Obj)[key];
  }
  return node;
}

/** The schema with its `#/components/schemas/X` references pointed at the components registered in ajv. */
function absolute(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX) ? `${COMPONENTS}#/$defs/${v.slice(REF_PREFIX.length)}` : absolute(v)]));
}

/**
 * The fields of `value` its schema does not document: objects whose schema lists `properties` and does not say
 * `additionalProperties: true` must not carry others (a field the document does not name is one no client knows).
 */
function undocumented(doc: Doc, schema: Obj | undefined, value: unknown, path = ''): string[] {
  if (schema === undefined || value === null || typeof value !== 'object') return [];
  if (typeof schema['$ref'] === 'string') return undocumented(doc, resolvePointer(doc as unknown as Json, schema['$ref']) as Obj, value, path);
  if (Array.isArray(value)) return value.flatMap((v, i) => undocumented(doc, schema['items'] as Obj | undefined, v, `${path}/${i}`));
  for (const branch of ['anyOf', 'oneOf'] as const) {
    const options = schema[branch] as Obj[] | undefined;
    if (options) return options.map((o) => undocumented(doc, o, value, path)).reduce((a, b) => (a.length <= b.length ? a : b));
  }
  const properties = schema['properties'] as Record<string, Obj> | undefined;
  if (!properties) return [];
  const extras = schema['additionalProperties'] === true ? [] : Object.keys(value).filter((k) => !(k in properties)).map((k) => `${path}/${k}`);
  return [...extras, ...Object.entries(value).flatMap(([k, v]) => undocumented(doc, properties[k], v, `${path}/${k}`))];
}

describe('GET /openapi.json', () => {
  let l: Lantern;
  let doc: Doc;
  /** The document as served, its shared responses still references. */
  let raw: Doc;
  let ajv: AjvInstance;
  beforeAll(async () => {
    l = await startLantern();
    const res = await l.http.get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    raw = JSON.parse(res.text) as Doc;
    // The document as a client reads it: shared responses (`$ref: '#/components/responses/X'`) in place.
    doc = JSON.parse(res.text) as Doc;
    for (const methods of Object.values(doc.paths)) {
      for (const o of Object.values(methods)) {
        for (const [status, r] of Object.entries(o.responses)) {
          const target = (r as unknown as Obj)['$ref'];
          if (typeof target === 'string') o.responses[status] = resolvePointer(raw as unknown as Json, target) as unknown as Operation['responses'][string];
        }
      }
    }
    ajv = new Ajv2020({ strict: true, strictTypes: false, allowUnionTypes: true, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: COMPONENTS, $defs: absolute(doc.components.schemas as unknown as Json) } as object);
  });
  afterAll(() => l.stop());

  const op = (method: string, path: string): Operation => {
    const found = doc.paths[path]?.[method.toLowerCase()];
    if (!found) throw new Error(`${method} ${path} is not in the document`);
    return found;
  };

  /** The status documented for a response of `method path`, and its JSON schema (undefined for no content). */
  function documented(method: string, path: string, status: number): { schema: Obj | undefined } {
    const response = op(method, path).responses[String(status)];
    expect({ operation: `${method} ${path}`, status, documented: response !== undefined }).toEqual({ operation: `${method} ${path}`, status, documented: true });
    return { schema: response!.content?.['application/json']?.schema };
  }

  /** Validates a real response against the document: status documented, body valid, no undocumented field. */
  function expectDocumented(method: string, path: string, res: Response): void {
    const { schema } = documented(method, path, res.status);
    const where = `${method} ${path} ${res.status}`;
    if (schema === undefined) {
      expect({ where, body: res.text }).toEqual({ where, body: '' });
      return;
    }
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const validate = ajv.compile(absolute(schema) as object);
    const body = JSON.parse(res.text) as unknown;
    const valid = validate(body);
    expect({ where, errors: valid ? [] : validate.errors }).toEqual({ where, errors: [] });
    expect({ where, undocumented: undocumented(doc, schema, body) }).toEqual({ where, undocumented: [] });
  }

  describe('the document', () => {
    it('is OpenAPI 3.1.0 with the JSON Schema 2020-12 dialect, bearer and apiKey security schemes', () => {
      expect(doc.openapi).toBe('3.1.0');
      expect((doc as unknown as Obj)['jsonSchemaDialect']).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(doc.components.securitySchemes).toEqual({
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      });
    });

    // [method, path, security, success status, required parameters as "in:name"]
    const OPERATIONS: Array<[string, string, 'bearer' | 'apiKey' | 'none', number, string[]]> = [
      // The seed
      ['POST', '/ai/tenant', 'bearer', 200, []],
      ['POST', '/ai/docs', 'bearer', 200, ['query:TenantId']],
      ['GET', '/logs/project', 'bearer', 200, ['query:id']],
      ['GET', '/ingest/logs', 'bearer', 200, []],
      ['GET', '/metrics', 'bearer', 200, []],
      ['GET', '/metrics/operations', 'bearer', 200, []],
      ['GET', '/metrics/services', 'bearer', 200, ['query:projectId']],
      ['GET', '/logs/volume', 'bearer', 200, ['query:projectId']],
      ['GET', '/logs/facets', 'bearer', 200, ['query:projectId', 'query:key']],
      ['POST', '/ingest/traces', 'apiKey', 200, []],
      ['POST', '/ingest/logs', 'apiKey', 200, []],
      // The seed's planned endpoints, built
      ['GET', '/ai/tenant', 'bearer', 200, ['query:organizationId']],
      ['GET', '/ai/docs', 'bearer', 200, ['query:TenantId']],
      ['DELETE', '/ai/docs/{docId}', 'bearer', 204, ['path:docId']],
      ['GET', '/ai/docs/{docId}', 'bearer', 200, ['path:docId']],
      ['POST', '/ai/docs/{docId}/reprocess', 'bearer', 202, ['path:docId']],
      ['POST', '/ai/search', 'bearer', 200, ['query:TenantId']],
      // The contract's accounts table
      ['POST', '/auth/register', 'none', 201, []],
      ['POST', '/auth/login', 'none', 200, []],
      ['GET', '/auth/me', 'bearer', 200, []],
      ['POST', '/organizations', 'bearer', 201, []],
      ['GET', '/organizations', 'bearer', 200, []],
      ['POST', '/organizations/{id}/members', 'bearer', 201, ['path:id']],
      // Issue 18: invitations, members, sign-out and password change
      ['GET', '/organizations/{id}/members', 'bearer', 200, ['path:id']],
      ['PATCH', '/organizations/{id}/members/{userId}', 'bearer', 200, ['path:id', 'path:userId']],
      ['DELETE', '/organizations/{id}/members/{userId}', 'bearer', 204, ['path:id', 'path:userId']],
      ['GET', '/organizations/{id}/invitations', 'bearer', 200, ['path:id']],
      ['DELETE', '/organizations/{id}/invitations/{invitationId}', 'bearer', 204, ['path:id', 'path:invitationId']],
      ['GET', '/invitations', 'bearer', 200, []],
      ['POST', '/invitations/{id}/accept', 'bearer', 200, ['path:id']],
      ['POST', '/invitations/{id}/decline', 'bearer', 204, ['path:id']],
      ['POST', '/auth/logout', 'bearer', 204, []],
      ['POST', '/auth/password', 'bearer', 200, []],
      ['POST', '/projects', 'bearer', 201, []],
      ['GET', '/projects', 'bearer', 200, ['query:organizationId']],
      ['POST', '/applications', 'bearer', 201, []],
      ['GET', '/applications', 'bearer', 200, ['query:projectId']],
      ['POST', '/applications/{id}/api-keys', 'bearer', 201, ['path:id']],
      ['GET', '/applications/{id}/api-keys', 'bearer', 200, ['path:id']],
      ['DELETE', '/api-keys/{id}', 'bearer', 204, ['path:id']],
      // Issue 14: OTLP/HTTP ingest
      ['POST', '/v1/traces', 'apiKey', 200, []],
      ['POST', '/v1/logs', 'apiKey', 200, []],
    ];

    it.each(OPERATIONS)('documents %s %s with its security, success status and required parameters', (method, path, security, status, params) => {
      const o = op(method, path);
      expect(o.security).toEqual(security === 'none' ? [] : [{ [security]: [] }]);
      const successes = Object.keys(o.responses).filter((s) => s.startsWith('2'));
      expect(successes).toEqual([String(status)]);
      const required = (o.parameters ?? []).filter((p) => p.required).map((p) => `${p.in}:${p.name}`).sort();
      expect(required).toEqual([...params].sort());
      expect(o.responses['401'] !== undefined).toBe(security !== 'none' || path === '/auth/login');
    });

    it('documents nothing beyond those operations', () => {
      const listed = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
      expect(listed).toEqual(OPERATIONS.map(([m, p]) => `${m} ${p}`).sort());
    });

    it('spells the tenant query parameter TenantId, with a capital T, and the project read\'s parameter id', () => {
      for (const method of ['POST', 'GET']) {
        const names = (op(method, '/ai/docs').parameters ?? []).map((p) => p.name);
        expect(names).toContain('TenantId');
        expect(names).not.toContain('tenantId');
      }
      const id = op('GET', '/logs/project').parameters!.find((p) => p.name === 'id')!;
      expect(id).toMatchObject({ in: 'query', required: true, schema: { type: 'integer', minimum: 1 } });
    });

    it('declares every path template variable as a required path parameter, and no other path parameter', () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        const vars = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        for (const [method, o] of Object.entries(methods)) {
          const pathParams = (o.parameters ?? []).filter((p) => p.in === 'path');
          expect({ op: `${method} ${path}`, params: pathParams.map((p) => p.name).sort() }).toEqual({ op: `${method} ${path}`, params: vars });
          expect(pathParams.every((p) => p.required === true)).toBe(true);
        }
      }
    });

    it('resolves every $ref in the document', () => {
      const refs = refsIn(doc as unknown as Json);
      expect(refs.length).toBeGreaterThan(20);
      const broken = refs.filter((ref) => resolvePointer(doc as unknown as Json, ref) === undefined);
      expect(broken).toEqual([]);
    });

    it('compiles every component schema with ajv (JSON Schema 2020-12, strict mode)', () => {
      const names = Object.keys(doc.components.schemas);
      expect(names).toEqual(expect.arrayContaining(['Error', 'Span', 'TraceRecord', 'LogEntry', 'Metrics', 'Tenant', 'Document', 'IngestResult', 'ApiKeyCreated']));
      for (const name of names) {
        expect(() => ajv.compile({ $ref: `${COMPONENTS}#/$defs/${name}` })).not.toThrow();
      }
    });

    it('compiles every request, response and parameter schema', () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, o] of Object.entries(methods)) {
          const schemas = [
            ...Object.values(o.requestBody?.content ?? {}).map((c) => c.schema),
            ...Object.values(o.responses).flatMap((r) => Object.values(r.content ?? {}).map((c) => c.schema)),
            ...(o.parameters ?? []).map((p) => p.schema),
          ];
          for (const schema of schemas) expect({ op: `${method} ${path}`, compiles: (() => { ajv.compile(absolute(schema) as object); return true; })() }).toEqual({ op: `${method} ${path}`, compiles: true });
        }
      }
    });

    it('declares on every operation 405 (the shared MethodNotAllowed response: Allow and the Error body; OtlpMethodNotAllowed with a Status on /v1/*) and 503', () => {
      const shared = resolvePointer(raw as unknown as Json, '#/components/responses/MethodNotAllowed') as Obj;
      expect(shared).toMatchObject({ headers: { Allow: { required: true } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
      for (const [path, methods] of Object.entries(raw.paths)) {
        for (const [method, o] of Object.entries(methods)) {
          const where = `${method} ${path}`;
          // OTLP/HTTP answers every error of /v1/* with a google.rpc.Status: its 405 has the same Allow, with that body.
          const shared405 = path.startsWith('/v1/') ? '#/components/responses/OtlpMethodNotAllowed' : '#/components/responses/MethodNotAllowed';
          expect({ where, r405: o.responses['405'], has503: o.responses['503'] !== undefined }).toEqual({ where, r405: { $ref: shared405 }, has503: true });
        }
      }
    });

    it('declares 400, 413 and 415 on every operation with a JSON body, and the constraints of ids and TenantId', () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, o] of Object.entries(methods)) {
          if (!o.requestBody?.content['application/json']) continue;
          expect({ op: `${method} ${path}`, statuses: ['400', '413', '415'].filter((st) => o.responses[st] === undefined) }).toEqual({ op: `${method} ${path}`, statuses: [] });
        }
      }
      const param = (method: string, path: string, name: string) => op(method, path).parameters!.find((p) => p.name === name)!.schema;
      expect(param('GET', '/projects', 'organizationId')).toEqual({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
      expect(param('GET', '/ai/docs', 'TenantId')).toMatchObject({ type: 'string', minLength: 1, maxLength: 1024 });
      expect(param('PATCH', '/organizations/{id}/members/{userId}', 'userId')).toMatchObject({ format: 'uuid', pattern: expect.any(String) });
      expect(param('POST', '/invitations/{id}/accept', 'id')).toMatchObject({ format: 'uuid' });
      expect(op('GET', '/metrics').description).toMatch(/`from` must be before `to`, and the window at most 90 days/);
      expect(op('POST', '/ai/docs').requestBody!.content['multipart/form-data']!.schema).toMatchObject({ properties: { file: { minLength: 1 } } });
    });

    it('documents the Error body for every error response (a google.rpc.Status on /v1/*)', () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, o] of Object.entries(methods)) {
          for (const [status, response] of Object.entries(o.responses)) {
            if (Number(status) < 400) continue;
            // The contract's one exception: OTLP/HTTP's errors are a google.rpc.Status, in JSON or protobuf as the request was.
            const body = path.startsWith('/v1/') ? 'OtlpStatus' : 'Error';
            expect({ op: `${method} ${path} ${status}`, schema: response.content?.['application/json']?.schema }).toEqual({ op: `${method} ${path} ${status}`, schema: { $ref: `#/components/schemas/${body}` } });
            if (body === 'OtlpStatus') expect(response.content?.['application/x-protobuf']).toBeDefined();
          }
        }
      }
    });
  });

  describe('real responses match the document', () => {
    it('accounts: register, login, me, organizations, members, projects, applications and API keys', async () => {
      const owner = await register(l, 'oa-owner');
      const friend = await register(l, 'oa-friend');
      const reg = await l.http.post('/auth/register').send({ email: `oa-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD }).expect(201);
      expectDocumented('POST', '/auth/register', reg);
      expectDocumented('POST', '/auth/login', await l.http.post('/auth/login').send({ email: owner.email, password: PASSWORD }).expect(200));
      const auth = bearer(owner.token);
      const org = await l.http.post('/organizations').set(auth).send({ name: 'oa org' }).expect(201);
      expectDocumented('POST', '/organizations', org);
      expectDocumented('GET', '/organizations', await l.http.get('/organizations').set(auth).expect(200));
      expectDocumented('GET', '/auth/me', await l.http.get('/auth/me').set(auth).expect(200));
      expectDocumented('POST', '/organizations/{id}/members', await l.http.post(`/organizations/${org.body.id}/members`).set(auth).send({ email: friend.email, role: 'admin' }).expect(201));
      const invitations = await l.http.get('/invitations').set(bearer(friend.token)).expect(200);
      expectDocumented('GET', '/invitations', invitations);
      expectDocumented('POST', '/invitations/{id}/accept', await l.http.post(`/invitations/${invitations.body[0].id}/accept`).set(bearer(friend.token)).expect(200));
      expectDocumented('GET', '/organizations/{id}/members', await l.http.get(`/organizations/${org.body.id}/members`).set(auth).expect(200));
      expectDocumented('PATCH', '/organizations/{id}/members/{userId}', await l.http.patch(`/organizations/${org.body.id}/members/${friend.user.id}`).set(auth).send({ role: 'member' }).expect(200));
      expectDocumented('DELETE', '/organizations/{id}/members/{userId}', await l.http.delete(`/organizations/${org.body.id}/members/${friend.user.id}`).set(auth).expect(204));
      await l.http.post(`/organizations/${org.body.id}/members`).set(auth).send({ email: friend.email }).expect(201);
      const again = (await l.http.get('/invitations').set(bearer(friend.token)).expect(200)).body[0].id as string;
      expectDocumented('POST', '/invitations/{id}/decline', await l.http.post(`/invitations/${again}/decline`).set(bearer(friend.token)).expect(204));
      await l.http.post(`/organizations/${org.body.id}/members`).set(auth).send({ email: friend.email }).expect(201);
      const pendingList = await l.http.get(`/organizations/${org.body.id}/invitations`).set(auth).expect(200);
      expect(pendingList.body).toHaveLength(1);
      expectDocumented('GET', '/organizations/{id}/invitations', pendingList);
      expectDocumented('DELETE', '/organizations/{id}/invitations/{invitationId}',
        await l.http.delete(`/organizations/${org.body.id}/invitations/${pendingList.body[0].id}`).set(auth).expect(204));
      const project = await l.http.post('/projects').set(auth).send({ name: 'oa project', organizationId: org.body.id }).expect(201);
      expectDocumented('POST', '/projects', project);
      expectDocumented('GET', '/projects', await l.http.get(`/projects?organizationId=${org.body.id}`).set(auth).expect(200));
      const app = await l.http.post('/applications').set(auth).send({ name: 'oa app', projectId: project.body.id }).expect(201);
      expectDocumented('POST', '/applications', app);
      expectDocumented('GET', '/applications', await l.http.get(`/applications?projectId=${project.body.id}`).set(auth).expect(200));
      const key = await l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).send({ name: 'ci' }).expect(201);
      expectDocumented('POST', '/applications/{id}/api-keys', key);
      const unnamed = await l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).expect(201);
      expectDocumented('POST', '/applications/{id}/api-keys', unnamed);
      expectDocumented('DELETE', '/api-keys/{id}', await l.http.delete(`/api-keys/${unnamed.body.id}`).set(auth).expect(204));
      // The list then holds a live key and a revoked one.
      const keys = await l.http.get(`/applications/${app.body.id}/api-keys`).set(auth).expect(200);
      expect(keys.body).toHaveLength(2);
      expectDocumented('GET', '/applications/{id}/api-keys', keys);
      // Last: both revoke the owner's earlier tokens.
      const changed = await l.http.post('/auth/password').set(auth).send({ currentPassword: PASSWORD, newPassword: 'a new password' }).expect(200);
      expectDocumented('POST', '/auth/password', changed);
      expectDocumented('POST', '/auth/logout', await l.http.post('/auth/logout').set(bearer(changed.body.token)).expect(204));
    });

    it('documents a request body as optional where the service takes none', async () => {
      // POST /applications/{id}/api-keys answers 201 without a body (the key is named "default").
      expect(op('POST', '/applications/{id}/api-keys').requestBody?.required).toBe(false);
      for (const [method, path] of [['POST', '/organizations'], ['POST', '/projects'], ['POST', '/ai/tenant'], ['POST', '/ingest/traces'], ['POST', '/ai/docs']]) {
        expect({ op: `${method} ${path}`, required: op(method!, path!).requestBody?.required }).toEqual({ op: `${method} ${path}`, required: true });
      }
    });

    it('telemetry: ingest (with a rejected item), traces, paged traces, logs and metrics', async () => {
      const t = await register(l, 'ot');
      const auth = bearer(t.token);
      const org = await l.http.post('/organizations').set(auth).send({ name: 'ot org' }).expect(201);
      const project = await l.http.post('/projects').set(auth).send({ name: 'ot project', organizationId: org.body.id }).expect(201);
      const app = await l.http.post('/applications').set(auth).send({ name: 'ot app', projectId: project.body.id }).expect(201);
      const key = (await l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).expect(201)).body.key as string;

      const now = Date.now();
      const root = span({ timestamp: iso(now - 60_000), custom: { region: 'eu' } });
      const child = span({ traceId: root['traceId'], parentSpanId: root['spanId'], requestMethod: 'service:load', timestamp: iso(now - 59_990), responseStatus: undefined, durationMs: undefined });
      const { parentSpanId: _p, ...rootWithoutParent } = span({ timestamp: iso(now - 30_000), responseStatus: 503 });
      const traces = await sendTraces(l, key, traceBatch([root, child, rootWithoutParent, { spanId: 'nope' }])).expect(200);
      expect(traces.body.rejected).toHaveLength(1);
      expectDocumented('POST', '/ingest/traces', traces);
      const logs = await sendLogs(l, key, logBatch([log({ traceId: root['traceId'], extra: { k: 1 } }), log({ level: 'info', message: 'no trace' }), log({ level: 'loud' })])).expect(200);
      expect(logs.body.rejected).toHaveLength(1);
      expectDocumented('POST', '/ingest/logs', logs);

      expectDocumented('GET', '/logs/project', await l.http.get(`/logs/project?id=${project.body.id}`).set(auth).expect(200));
      const page = await l.http.get(`/logs/project?id=${project.body.id}&limit=1`).set(auth).expect(200);
      expectDocumented('GET', '/logs/project', page);
      const headers = Object.keys(op('GET', '/logs/project').responses['200']!.headers ?? {}).map((h) => h.toLowerCase());
      expect(page.headers['x-next-cursor']).toBeDefined();
      expect(headers).toEqual(expect.arrayContaining(['x-next-cursor', 'link']));
      expectDocumented('GET', '/ingest/logs', await l.http.get('/ingest/logs').set(auth).expect(200));
      expectDocumented('GET', '/ingest/logs', await l.http.get('/ingest/logs?limit=1').set(auth).expect(200));
      const metrics = await l.http.get('/metrics').set(auth).expect(200);
      expect(metrics.body.applications).toHaveLength(1);
      expectDocumented('GET', '/metrics', metrics);
      // A window without requests: percentiles are null.
      const empty = await l.http.get(`/metrics?applicationId=${app.body.id}&from=${iso(now - 7_200_000)}&to=${iso(now - 3_600_000)}`).set(auth).expect(200);
      expectDocumented('GET', '/metrics', empty);
      const perOperation = await l.http.get('/metrics/operations').set(auth).expect(200);
      expect(perOperation.body.operations).toEqual([expect.objectContaining({ operation: 'GET', requests: 2, errors: 1 })]);
      expectDocumented('GET', '/metrics/operations', perOperation);
      expectDocumented('GET', '/metrics/operations', await l.http.get(`/metrics/operations?from=${iso(now - 7_200_000)}&to=${iso(now - 3_600_000)}`).set(auth).expect(200));
      const map = await l.http.get(`/metrics/services?projectId=${project.body.id}`).set(auth).expect(200);
      expect(map.body.nodes).toEqual([expect.objectContaining({ applicationId: app.body.id, requests: 2 })]);
      expectDocumented('GET', '/metrics/services', map);
    });

    it('AI: create and list tenants, upload, list and delete documents', async () => {
      const t = await register(l, 'oai');
      const auth = bearer(t.token);
      const org = await l.http.post('/organizations').set(auth).send({ name: 'oai org' }).expect(201);
      const tenant = await l.http.post('/ai/tenant').set(auth).send({ name: 'oai tenant', organizationId: org.body.id }).expect(200);
      expectDocumented('POST', '/ai/tenant', tenant);
      expectDocumented('GET', '/ai/tenant', await l.http.get(`/ai/tenant?organizationId=${org.body.id}`).set(auth).expect(200));
      const upload = await l.http.post(`/ai/docs?TenantId=${tenant.body.id}`).set(auth)
        .attach('file', Buffer.from('# Notes\n\nSome *markdown*.\n'), { filename: 'notes.md', contentType: 'text/markdown' }).expect(200);
      expectDocumented('POST', '/ai/docs', upload);
      expectDocumented('GET', '/ai/docs', await l.http.get(`/ai/docs?TenantId=${tenant.body.id}`).set(auth).expect(200));
      expectDocumented('GET', '/ai/docs/{docId}', await l.http.get(`/ai/docs/${upload.body.id}`).set(auth).expect(200));
      expectDocumented('POST', '/ai/docs/{docId}/reprocess', await l.http.post(`/ai/docs/${upload.body.id}/reprocess`).set(auth).expect(202));
      expectDocumented('POST', '/ai/search', await l.http.post(`/ai/search?TenantId=${tenant.body.id}`).set(auth).send({ query: 'anything' }).expect(200));
      expectDocumented('DELETE', '/ai/docs/{docId}', await l.http.delete(`/ai/docs/${upload.body.id}`).set(auth).expect(204));
    });

    it('errors: each error answered is documented for its operation, with the Error body', async () => {
      const a = await register(l, 'oe-a');
      const b = await register(l, 'oe-b');
      const auth = bearer(a.token);
      const org = (await l.http.post('/organizations').set(auth).send({ name: 'oe org' }).expect(201)).body.id as number;
      const app = await (async () => {
        const project = await l.http.post('/projects').set(auth).send({ name: 'oe p', organizationId: org }).expect(201);
        return l.http.post('/applications').set(auth).send({ name: 'oe app', projectId: project.body.id }).expect(201);
      })();
      const key = (await l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).expect(201)).body.key as string;
      const tenant = (await l.http.post('/ai/tenant').set(auth).send({ name: 'oe tenant', organizationId: org }).expect(200)).body.id as string;
      const big = { name: 'n'.repeat(20_000) };

      const cases: Array<[string, string, () => Promise<Response>, number]> = [
        ['POST', '/auth/register', () => l.http.post('/auth/register').send({ email: a.email, password: PASSWORD }), 409],
        ['POST', '/auth/register', () => l.http.post('/auth/register').send({ email: 'x@example.com', password: 'short' }), 400],
        ['POST', '/auth/register', () => l.http.post('/auth/register').send({ ...big, email: 'y@example.com', password: PASSWORD }), 413],
        ['POST', '/auth/login', () => l.http.post('/auth/login').send({ email: a.email, password: 'wrong password' }), 401],
        ['POST', '/auth/login', () => l.http.post('/auth/login').set('Content-Type', 'text/plain').send('{}'), 415],
        ['GET', '/auth/me', () => l.http.get('/auth/me'), 401],
        ['POST', '/organizations', () => l.http.post('/organizations').set(auth).send(big), 413],
        ['POST', '/organizations', () => l.http.post('/organizations').set(auth).set('Content-Type', 'application/json').send('{"name":'), 400],
        ['PATCH', '/organizations/{id}/members/{userId}', () => l.http.patch(`/organizations/${org}/members/${a.user.id}`).set(auth).send({ role: 'member' }), 409],
        ['PATCH', '/organizations/{id}/members/{userId}', () => l.http.patch(`/organizations/${org}/members/${a.user.id}`).set(auth).send({ role: 'boss' }), 400],
        ['DELETE', '/organizations/{id}/members/{userId}', () => l.http.delete(`/organizations/${org}/members/${a.user.id}`).set(auth), 409],
        ['POST', '/invitations/{id}/accept', () => l.http.post(`/invitations/${randomUUID()}/accept`).set(auth), 404],
        ['POST', '/auth/password', () => l.http.post('/auth/password').set(auth).send({ currentPassword: 'wrong password', newPassword: 'another password' }), 403],
        ['POST', '/auth/logout', () => l.http.post('/auth/logout'), 401],
        ['POST', '/organizations/{id}/members', () => l.http.post(`/organizations/${org}/members`).set(bearer(b.token)).send({ email: b.email }), 404],
        ['POST', '/organizations/{id}/members', () => l.http.post(`/organizations/${org}/members`).set(auth).send({ email: b.email, ...big }), 413],
        ['POST', '/projects', () => l.http.post('/projects').set(bearer(b.token)).send({ name: 'p', organizationId: org }), 403],
        ['POST', '/projects', () => l.http.post('/projects').set(auth).send({ ...big, organizationId: org }), 413],
        ['GET', '/projects', () => l.http.get('/projects').set(auth), 400],
        ['POST', '/applications', () => l.http.post('/applications').set(auth).send({ ...big, projectId: 1 }), 413],
        ['GET', '/applications', () => l.http.get('/applications?projectId=999999').set(auth), 404],
        ['POST', '/applications/{id}/api-keys', () => l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).send(big), 413],
        ['POST', '/applications/{id}/api-keys', () => l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).send({ label: 'x' }), 400],
        ['GET', '/applications/{id}/api-keys', () => l.http.get('/applications/999999/api-keys').set(auth), 404],
        ['DELETE', '/api-keys/{id}', () => l.http.delete(`/api-keys/${randomUUID()}`).set(auth), 404],
        ['POST', '/ingest/traces', () => sendTraces(l, key, { traces: [] }), 400],
        ['POST', '/ingest/traces', () => l.http.post('/ingest/traces').send(traceBatch([])), 401],
        ['POST', '/ingest/logs', () => sendLogs(l, key, 'not json'), 400],
        ['POST', '/ingest/logs', () => l.http.post('/ingest/logs').set('x-api-key', key).set('Content-Type', 'text/plain').send('{}'), 415],
        ['GET', '/ingest/logs', () => l.http.get('/ingest/logs?level=loud').set(auth), 400],
        ['GET', '/logs/project', () => l.http.get('/logs/project').set(auth), 400],
        ['GET', '/logs/project', () => l.http.get('/logs/project?id=999999').set(auth), 404],
        ['GET', '/metrics', () => l.http.get('/metrics?projectId=999999').set(auth), 404],
        ['GET', '/logs/volume', () => l.http.get('/logs/volume?projectId=999999').set(auth), 404],
        ['GET', '/logs/volume', () => l.http.get('/logs/volume').set(auth), 400],
        ['GET', '/logs/facets', () => l.http.get('/logs/facets?projectId=999999&key=tenant').set(auth), 404],
        ['GET', '/logs/facets', () => l.http.get('/logs/facets?projectId=1').set(auth), 400],
        ['POST', '/ai/tenant', () => l.http.post('/ai/tenant').set(auth).send({ name: 'oe tenant', organizationId: org }), 409],
        ['POST', '/ai/tenant', () => l.http.post('/ai/tenant').set(bearer(b.token)).send({ name: 'x', organizationId: org }), 403],
        ['POST', '/ai/tenant', () => l.http.post('/ai/tenant').set(auth).send({ ...big, organizationId: org }), 413],
        ['GET', '/ai/tenant', () => l.http.get('/ai/tenant').set(auth), 400],
        ['POST', '/ai/docs', () => l.http.post(`/ai/docs?TenantId=${tenant}`).set(auth).send({ file: 'x' }), 415],
        ['POST', '/ai/docs', () => l.http.post(`/ai/docs?TenantId=${tenant}`).set(auth).attach('file', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'x.png'), 415],
        ['POST', '/ai/docs', () => l.http.post('/ai/docs').set(auth).attach('file', Buffer.from('x'), 'x.txt'), 400],
        ['GET', '/ai/docs', () => l.http.get(`/ai/docs?TenantId=${randomUUID()}`).set(auth), 404],
        ['DELETE', '/ai/docs/{docId}', () => l.http.delete(`/ai/docs/${randomUUID()}`).set(auth), 404],
        // Issue 13's findings: each refusal is now one the document states.
        ['POST', '/applications/{id}/api-keys', () => l.http.post(`/applications/${app.body.id}/api-keys`).set(auth).set('Content-Type', 'application/json').send('null'), 400],
        ['GET', '/ai/docs', () => l.http.get('/ai/docs?TenantId=').set(auth), 400],
        ['GET', '/projects', () => l.http.get('/projects?organizationId=1.5').set(auth), 400],
        // 1.0 is an integer to JSON Schema, so to the service: organization 1 is not the caller's, 404.
        ['GET', '/projects', () => l.http.get('/projects?organizationId=1.0').set(bearer(b.token)), 404],
        ['GET', '/metrics', () => l.http.get('/metrics?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z').set(auth), 400],
        ['GET', '/metrics', () => l.http.get('/metrics?from=2026-01-01T00:00:00Z&to=2026-05-01T00:00:00Z').set(auth), 400],
        ['GET', '/ingest/logs', () => l.http.get('/ingest/logs?to=').set(auth), 400],
        ['GET', '/logs/project', () => l.http.get(`/logs/project?id=1&cursor=${'x'.repeat(8)}`).set(auth), 400],
        ['POST', '/ai/docs', () => l.http.post(`/ai/docs?TenantId=${tenant}`).set(auth).attach('file', Buffer.alloc(0), 'empty.txt'), 400],
        ['POST', '/ingest/logs', () => sendLogs(l, key, { ...logBatch([]), extra: { deeper: { than: 'allowed' } } }), 400],
      ];
      for (const [method, path, send, status] of cases) {
        const res = await send();
        expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} ${status}`);
        expectDocumented(method, path, res);
      }
    });

    it('errors: a method a path is not served with is 405 with Allow, documented on each operation of the path', async () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        const method = ['put', 'patch', 'delete', 'post'].find((m) => !(m in methods))!;
        const url = path.replace(/\{[^}]+\}/g, '1');
        const res = await (l.http as unknown as Record<string, (u: string) => Promise<Response>>)[method]!(url);
        expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 405`);
        expect(res.headers['allow']).toBe([...Object.keys(methods).map((m) => m.toUpperCase()), ...('get' in methods ? ['HEAD'] : []), 'OPTIONS']
          .sort((a, b) => ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].indexOf(a) - ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].indexOf(b)).join(', '));
        for (const documentedMethod of Object.keys(methods)) expectDocumented(documentedMethod.toUpperCase(), path, res);
      }
    });

    it('errors: 429 and its Retry-After are documented where a rate limit applies', async () => {
      const limited = await startLantern({ rateLimit: { enabled: true, ingestPerMinute: 1, authPerMinute: 1 } });
      try {
        const first = await limited.http.post('/auth/register').send({ email: `rl-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD }).expect(201);
        const res = await limited.http.post('/auth/login').send({ email: first.body.user.email, password: PASSWORD });
        expect(res.status).toBe(429);
        expectDocumented('POST', '/auth/login', res);
        expect(res.headers['retry-after']).toBeDefined();
        expect(Object.keys(op('POST', '/auth/login').responses['429']!.headers ?? {})).toContain('Retry-After');
      } finally {
        await limited.stop();
      }
    });

    it('documented query parameters are read as documented: a value outside the schema is 400, its bounds are 200', async () => {
      const t = await createTenancy(l, 'oq');
      const tenant = (await l.http.post('/ai/tenant').set(bearer(t.token)).send({ name: 'oq tenant', organizationId: t.organizationId }).expect(200)).body.id as string;
      const requiredValues: Record<string, string | number> = { id: t.projectId, organizationId: t.organizationId, projectId: t.projectId, TenantId: tenant, applicationId: t.applicationId };
      let checked = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        const o = methods['get'];
        if (!o) continue;
        const params = (o.parameters ?? []).filter((p) => p.in === 'query');
        const base = params.filter((p) => p.required).map((p) => `${p.name}=${encodeURIComponent(String(requiredValues[p.name]))}`);
        const get = (name: string, value: string | number) => {
          const others = base.filter((b) => !b.startsWith(`${name}=`));
          return l.http.get(`${path}?${[...others, `${name}=${encodeURIComponent(String(value))}`].join('&')}`).set(bearer(t.token));
        };
        for (const p of params) {
          const s = p.schema;
          const constrained = s['type'] === 'integer' || s['format'] !== undefined || s['enum'] !== undefined || s['pattern'] !== undefined;
          if (!constrained) continue;
          const bad = await get(p.name, 'not-valid!');
          expect(`${path} ${p.name}=not-valid! ${bad.status}`).toBe(`${path} ${p.name}=not-valid! 400`);
          expectDocumented('GET', path, bad);
          if (typeof s['maximum'] === 'number' && s['maximum'] < Number.MAX_SAFE_INTEGER) {
            expect(`${path} ${p.name}=max+1 ${(await get(p.name, s['maximum'] + 1)).status}`).toBe(`${path} ${p.name}=max+1 400`);
            expect(`${path} ${p.name}=max ${(await get(p.name, s['maximum'])).status}`).toBe(`${path} ${p.name}=max 200`);
          }
          if (typeof s['minimum'] === 'number' && p.name !== 'id' && !(p.name in requiredValues)) {
            expect(`${path} ${p.name}=min-1 ${(await get(p.name, s['minimum'] - 1)).status}`).toBe(`${path} ${p.name}=min-1 400`);
            expect(`${path} ${p.name}=min ${(await get(p.name, s['minimum'])).status}`).toBe(`${path} ${p.name}=min 200`);
          }
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(15);
    });

    it('every documented operation exists: without a credential it answers 401 where it needs one, never "no such route"', async () => {
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, o] of Object.entries(methods)) {
          const url = path.replace(/\{[^}]+\}/g, '1');
          const res = await (l.http as unknown as Record<string, (u: string) => Promise<Response>>)[method]!(url);
          const expected = o.security.length > 0 ? 401 : 400;
          expect(`${method.toUpperCase()} ${path} ${res.status}`).toBe(`${method.toUpperCase()} ${path} ${expected}`);
          expectDocumented(method.toUpperCase(), path, res);
        }
      }
    });
  });
});
