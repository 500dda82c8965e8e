import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, PASSWORD, postRaw, register, type Registered } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/**
 * Hostile JSON bodies on every JSON POST, field by field: operator objects and operator keys, wrong types,
 * missing fields, unknown enum values, names over 200 characters, negative and huge ids, deep nesting.
 * accounts-bodies.test.ts covers the whole-body rules (malformed JSON, media type, prototype keys, the size
 * limit) of the accounts endpoints; here they are also checked on POST /ai/tenant. Every case is 400 (or the
 * contract's status) with the contract's body, and nothing is created (read back through the API).
 */

interface Endpoint {
  path: string;
  valid: Record<string, unknown>;
  required: string[];
  /** Fields holding a name (1-200 visible characters). */
  names: string[];
  /** Fields holding an integer id. */
  ids: string[];
}

describe('hostile JSON bodies, field by field', () => {
  let l: Lantern;
  let t: Tenancy;
  let other: Registered;
  const freshEmail = `fresh-${randomUUID().slice(0, 8)}@example.com`;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'hostile-b');
    other = await register(l, 'hostile-other');
  });
  afterAll(() => l.stop());

  const endpoints = (): Endpoint[] => [
    { path: '/auth/register', valid: { email: freshEmail, password: PASSWORD, name: 'fresh' }, required: ['email', 'password'], names: ['name'], ids: [] },
    { path: '/auth/login', valid: { email: t.email, password: PASSWORD }, required: ['email', 'password'], names: [], ids: [] },
    { path: '/organizations', valid: { name: 'fresh org' }, required: ['name'], names: ['name'], ids: [] },
    { path: `/organizations/${t.organizationId}/members`, valid: { email: other.email, role: 'member' }, required: ['email'], names: [], ids: [] },
    { path: '/projects', valid: { name: 'fresh project', organizationId: t.organizationId }, required: ['name', 'organizationId'], names: ['name'], ids: ['organizationId'] },
    { path: '/applications', valid: { name: 'fresh app', projectId: t.projectId }, required: ['name', 'projectId'], names: ['name'], ids: ['projectId'] },
    { path: `/applications/${t.applicationId}/api-keys`, valid: { name: 'fresh key' }, required: [], names: ['name'], ids: [] },
    { path: '/ai/tenant', valid: { name: 'fresh tenant', organizationId: t.organizationId }, required: ['name', 'organizationId'], names: ['name'], ids: ['organizationId'] },
  ];

  /** Everything a wrongly accepted request could have created or changed. */
  async function snapshot() {
    const get = async (token: string, path: string) => (await l.http.get(path).set(bearer(token)).expect(200)).body;
    return {
      orgs: await get(t.token, '/organizations'),
      otherOrgs: await get(other.token, '/organizations'),
      projects: await get(t.token, `/projects?organizationId=${t.organizationId}`),
      apps: await get(t.token, `/applications?projectId=${t.projectId}`),
      keys: await get(t.token, `/applications/${t.applicationId}/api-keys`),
      tenants: await get(t.token, `/ai/tenant?organizationId=${t.organizationId}`),
      freshLogin: (await l.http.post('/auth/login').send({ email: freshEmail, password: PASSWORD })).status,
    };
  }

  /** Sends each [label, path, raw body] and expects the error; the account must be unchanged afterwards. */
  async function expectAll(cases: Array<[string, string, string]>, status: number, code: string) {
    expect(cases.length).toBeGreaterThan(0);
    const before = await snapshot();
    expect(before.freshLogin).toBe(401);
    for (const [label, path, raw] of cases) {
      const res = await postRaw(l, path, raw, t.token);
      expect(`${label}: ${res.status} ${res.body?.error?.code}`).toBe(`${label}: ${status} ${code}`);
      expectError(res, status, code);
    }
    expect(await snapshot()).toEqual(before);
  }

  /** One case per endpoint and field: the valid body with `field` replaced by `value` (raw JSON text). */
  const perField = (fields: (e: Endpoint) => string[], value: string) =>
    endpoints().flatMap((e) => fields(e).map((f): [string, string, string] => {
      const body = JSON.stringify({ ...e.valid, [f]: '__VALUE__' }).replace('"__VALUE__"', value);
      return [`${e.path} ${f}=${value.slice(0, 40)}`, e.path, body];
    }));
  const allFields = (e: Endpoint) => Object.keys(e.valid);

  it('the valid bodies are accepted (every case below differs from one of them in one thing)', async () => {
    for (const e of endpoints()) {
      const body = e.path === '/auth/register' ? { ...e.valid, email: `ok-${randomUUID().slice(0, 6)}@example.com` } : e.path === '/ai/tenant' ? { ...e.valid, name: 'probe tenant' } : e.valid;
      const res = await postRaw(l, e.path, JSON.stringify(body), t.token);
      expect(`${e.path} ${res.status}`).toBe(`${e.path} ${e.path === '/auth/login' || e.path === '/ai/tenant' ? 200 : 201}`);
    }
  });

  it.each([
    ['{"$gt": ""}'], ['{"$ne": null}'], ['{"$where": "sleep(1000)"}'], ['{"$regex": ".*"}'], ['{"\\u0024gt": ""}'], ['[{"$gt": ""}]'],
  ])('answers 400 validation_failed for the operator %s in place of every field of every body', async (op) => {
    await expectAll(perField(allFields, op), 400, 'validation_failed');
  });

  it('answers 400 validation_failed for an operator key beside the valid fields', async () => {
    const cases = endpoints().flatMap((e) => ['"$where":"1"', '"$set":{"role":"owner"}', '"$or":[{"a":1}]', '"a.b":1', '"\\u0024inc":{"n":1}'].map(
      (member): [string, string, string] => [`${e.path} +${member}`, e.path, `{${member},${JSON.stringify(e.valid).slice(1)}`]));
    await expectAll(cases, 400, 'validation_failed');
  });

  it('answers 400 validation_failed for a duplicate key whose last value is an operator', async () => {
    const cases = endpoints().flatMap((e) => allFields(e).map((f): [string, string, string] =>
      [`${e.path} ${f} twice`, e.path, `${JSON.stringify(e.valid).slice(0, -1)},${JSON.stringify(f)}:{"$gt":""}}`]));
    await expectAll(cases, 400, 'validation_failed');
  });

  it.each([['42'], ['true'], ['null'], ['["x"]'], ['{"value": "x"}']])('answers 400 validation_failed for %s as every string field', async (value) => {
    const stringFields = (e: Endpoint) => allFields(e).filter((f) => typeof e.valid[f] === 'string');
    await expectAll(perField(stringFields, value), 400, 'validation_failed');
  });

  it.each([
    ['a numeric string', '"1"'], ['a negative id', '-1'], ['zero', '0'], ['a fraction', '1.5'], ['a huge number', '1e300'],
    ['beyond 2^53', '9007199254740993'], ['null', 'null'], ['an array', '[1]'], ['a boolean', 'true'], ['an exponent overflowing to Infinity', '1e400'],
  ])('answers 400 validation_failed for %s as every id field', async (_label, value) => {
    await expectAll(perField((e) => e.ids, value), 400, 'validation_failed');
  });

  it('answers 400 validation_failed when any required field is missing', async () => {
    const cases = endpoints().flatMap((e) => e.required.map((f): [string, string, string] => {
      const { [f]: _omit, ...rest } = e.valid;
      return [`${e.path} without ${f}`, e.path, JSON.stringify(rest)];
    }));
    await expectAll(cases, 400, 'validation_failed');
  });

  it.each([
    ['201 characters', JSON.stringify('n'.repeat(201))], ['15,000 characters', JSON.stringify('n'.repeat(15_000))], ['only spaces', '"   "'], ['empty', '""'],
    ['a NUL', '"a\\u0000b"'], ['an escape sequence', '"red\\u001b[31m"'], ['a C1 control', '"a\\u0085b"'],
  ])('answers 400 validation_failed for a name of %s in every body with a name', async (_label, value) => {
    await expectAll(perField((e) => e.names, value), 400, 'validation_failed');
  });

  it('answers 400 validation_failed for an unknown role, in any case', async () => {
    const path = `/organizations/${t.organizationId}/members`;
    const cases = ['root', 'OWNER', 'Member', '', ' member'].map((role): [string, string, string] => [`role ${role}`, path, JSON.stringify({ email: other.email, role })]);
    await expectAll(cases, 400, 'validation_failed');
  });

  it('answers 400 validation_failed for an email that is not one', async () => {
    const cases = ['not-an-email', 'a@', `${'e'.repeat(250)}@example.com`, 'a b@example.com'].flatMap((email): Array<[string, string, string]> => [
      [`register ${email.slice(0, 20)}`, '/auth/register', JSON.stringify({ email, password: PASSWORD })],
      [`member ${email.slice(0, 20)}`, `/organizations/${t.organizationId}/members`, JSON.stringify({ email })],
    ]);
    await expectAll(cases, 400, 'validation_failed');
  });

  it('answers 400 (never a 500) for a body nested 5,000 levels deep', async () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const cases = endpoints().map((e): [string, string, string] => [`${e.path} deep`, e.path, `{"deep":${deep},${JSON.stringify(e.valid).slice(1)}`]);
    await expectAll(cases, 400, 'validation_failed');
  });
});

describe('POST /ai/tenant: the whole-body rules', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'hostile-tenant');
  });
  afterAll(() => l.stop());

  const tenants = async () => (await l.http.get(`/ai/tenant?organizationId=${t.organizationId}`).set(bearer(t.token)).expect(200)).body;
  const valid = () => JSON.stringify({ name: 'tenant', organizationId: t.organizationId });

  it.each<[string, () => string, number, string, string]>([
    ['a truncated body', () => valid().slice(0, -1), 400, 'invalid_json', 'application/json'],
    ['a trailing comma', () => `${valid().slice(0, -1)},}`, 400, 'invalid_json', 'application/json'],
    ['plain text', () => 'tenant', 400, 'invalid_json', 'application/json'],
    ['a JSON body sent as text/plain', valid, 415, 'unsupported_media_type', 'text/plain'],
    ['a form body', () => `name=x&organizationId=${t.organizationId}`, 415, 'unsupported_media_type', 'application/x-www-form-urlencoded'],
    ['a "__proto__" key', () => `{"__proto__":{"isAdmin":true},${valid().slice(1)}`, 400, 'validation_failed', 'application/json'],
    ['a "constructor" key', () => `{"constructor":{"prototype":{"isAdmin":true}},${valid().slice(1)}`, 400, 'validation_failed', 'application/json'],
    ['a "prototype" key', () => `{"prototype":{"isAdmin":true},${valid().slice(1)}`, 400, 'validation_failed', 'application/json'],
    ['an unknown field', () => `{"plan":"gold",${valid().slice(1)}`, 400, 'validation_failed', 'application/json'],
    ['an array body', () => `[${valid()}]`, 400, 'validation_failed', 'application/json'],
    ['a string body', () => '"tenant"', 400, 'validation_failed', 'application/json'],
    ['null', () => 'null', 400, 'validation_failed', 'application/json'],
    ['a body over 16 KiB', () => JSON.stringify({ name: 'n'.repeat(20_000), organizationId: t.organizationId }), 413, 'payload_too_large', 'application/json'],
  ])('answers %s with %i %s and creates no tenant', async (_label, raw, status, code, contentType) => {
    const before = await tenants();
    expectError(await postRaw(l, '/ai/tenant', raw(), t.token, contentType), status, code);
    expect(await tenants()).toEqual(before);
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
  });

  it('answers 400 invalid_json without a body', async () => {
    expectError(await l.http.post('/ai/tenant').set(bearer(t.token)).set('Content-Type', 'application/json'), 400, 'invalid_json');
  });

  it('accepts a name of exactly 200 characters (the bound is 200, not less)', async () => {
    const name = 'n'.repeat(200);
    const res = await postRaw(l, '/ai/tenant', JSON.stringify({ name, organizationId: t.organizationId }), t.token).expect(200);
    expect(res.body.name).toBe(name);
  });
});
