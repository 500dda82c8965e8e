import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HARNESS_SECRET, addMember, expectError, jwt, postRaw, register, type Registered } from './accounts-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

const now = () => Math.floor(Date.now() / 1000);

const credentials: Array<[string, (t: Tenancy) => Record<string, string>]> = [
  ['without a credential', () => ({})],
  ['with the API key in x-api-key instead of a JWT', (t) => ({ 'x-api-key': t.apiKey })],
  ['with the API key as a bearer token', (t) => bearer(t.apiKey)],
  ['with an expired JWT', (t) => bearer(jwt.sign({ sub: t.userId, iat: now() - 7200, exp: now() - 60 }, HARNESS_SECRET, { algorithm: 'HS256' }))],
  ['with a JWT signed with another secret', (t) => bearer(jwt.sign({}, 'another-secret-that-is-long-enough-987654', { algorithm: 'HS256', subject: t.userId, expiresIn: 600 }))],
  ['with an alg "none" JWT', (t) => bearer(jwt.sign({ sub: t.userId, exp: now() + 600 }, null as unknown as string, { algorithm: 'none' }))],
  ['with a malformed Authorization header', () => ({ Authorization: 'Bearer' })],
];

describe('AI tenants', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  let member: Registered;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'ai-ta');
    b = await createTenancy(l, 'ai-tb');
    member = await register(l, 'ai-member');
    // A plain member: contract.md lets any member of the organization create tenants.
    await addMember(l, a.token, a.organizationId, member);
  });
  afterAll(() => l.stop());

  const create = (token: string, body: unknown) => l.http.post('/ai/tenant').set(bearer(token)).send(body as object);
  const list = (token: string, organizationId: number | string) => l.http.get(`/ai/tenant?organizationId=${organizationId}`).set(bearer(token));
  const namesOf = async (x: Tenancy) => ((await list(x.token, x.organizationId).expect(200)).body as Array<{ name: string }>).map((t) => t.name).sort();

  describe('POST /ai/tenant', () => {
    it('answers 200 with exactly {id, name, organizationId}, the id a string', async () => {
      const res = await create(a.token, { name: 'Support bot', organizationId: a.organizationId }).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['id', 'name', 'organizationId']);
      expect(res.body).toEqual({ id: expect.any(String), name: 'Support bot', organizationId: a.organizationId });
      expect(res.body.id.length).toBeGreaterThan(0);
      expect((await list(a.token, a.organizationId).expect(200)).body).toContainEqual(res.body);
    });

    it('lets an admin of the organization (not only its owner) create a tenant', async () => {
      const res = await create(member.token, { name: 'Member bot', organizationId: a.organizationId }).expect(200);
      expect(res.body).toEqual({ id: expect.any(String), name: 'Member bot', organizationId: a.organizationId });
    });

    it('gives every tenant its own id', async () => {
      const one = await create(b.token, { name: 'id one', organizationId: b.organizationId }).expect(200);
      const two = await create(b.token, { name: 'id two', organizationId: b.organizationId }).expect(200);
      expect(one.body.id).not.toBe(two.body.id);
    });

    it('answers 403 forbidden for an organization the caller is not a member of, or one that does not exist, and creates nothing', async () => {
      const before = await namesOf(a);
      const other = await create(b.token, { name: 'Intruder', organizationId: a.organizationId });
      expectError(other, 403, 'forbidden');
      const missing = await create(b.token, { name: 'Intruder', organizationId: 999_999 });
      expectError(missing, 403, 'forbidden');
      expect(missing.body).toEqual(other.body);
      expect(await namesOf(a)).toEqual(before);
    });

    it('answers 409 conflict for a name already used in the organization, and keeps one tenant of that name', async () => {
      await create(a.token, { name: 'Duplicate', organizationId: a.organizationId }).expect(200);
      expectError(await create(a.token, { name: 'Duplicate', organizationId: a.organizationId }), 409, 'conflict');
      expectError(await create(member.token, { name: 'Duplicate', organizationId: a.organizationId }), 409, 'conflict');
      expectError(await create(a.token, { name: '  Duplicate ', organizationId: a.organizationId }), 409, 'conflict');
      expect((await namesOf(a)).filter((n) => n.trim() === 'Duplicate')).toEqual(['Duplicate']);
    });

    it('answers 200 to exactly one of several concurrent creations of one name, 409 to the others', async () => {
      const statuses = await Promise.all([1, 2, 3].map(() => create(a.token, { name: 'Raced', organizationId: a.organizationId }).then((r) => r.status)));
      expect(statuses.sort()).toEqual([200, 409, 409]);
      expect((await namesOf(a)).filter((n) => n === 'Raced')).toHaveLength(1);
    });

    it('lets another organization reuse a name', async () => {
      await create(a.token, { name: 'Shared name', organizationId: a.organizationId }).expect(200);
      const res = await create(b.token, { name: 'Shared name', organizationId: b.organizationId }).expect(200);
      expect(res.body).toEqual({ id: expect.any(String), name: 'Shared name', organizationId: b.organizationId });
    });

    const invalid: Array<[string, (org: number) => unknown]> = [
      ['an empty object', () => ({})],
      ['name missing', (org) => ({ organizationId: org })],
      ['organizationId missing', () => ({ name: 'invalid' })],
      ['a name of the wrong type', (org) => ({ name: 42, organizationId: org })],
      ['a null name', (org) => ({ name: null, organizationId: org })],
      ['an organizationId as a string', (org) => ({ name: 'invalid', organizationId: String(org) })],
      ['an organizationId of 0', () => ({ name: 'invalid', organizationId: 0 })],
      ['a negative organizationId', () => ({ name: 'invalid', organizationId: -1 })],
      ['a fractional organizationId', (org) => ({ name: 'invalid', organizationId: org + 0.5 })],
      ['an unknown extra field', (org) => ({ name: 'invalid', organizationId: org, plan: 'gold' })],
      ['an operator object as the name', (org) => ({ name: { $gt: '' }, organizationId: org })],
      ['an operator object as the organizationId', () => ({ name: 'invalid', organizationId: { $gt: 0 } })],
      ['an empty name', (org) => ({ name: '', organizationId: org })],
      ['a blank name', (org) => ({ name: '   ', organizationId: org })],
      ['a name with a control character', (org) => ({ name: 'bad\u0000name', organizationId: org })],
      ['a name with a newline', (org) => ({ name: 'two\nlines', organizationId: org })],
      ['a name with a C1 control character', (org) => ({ name: 'next\u0085line', organizationId: org })],
      ['a name over 200 characters', (org) => ({ name: 'n'.repeat(201), organizationId: org })],
      ['an array body', (org) => [{ name: 'invalid', organizationId: org }]],
      ['a JSON string body', () => 'invalid'],
    ];

    it.each(invalid)('answers 400 validation_failed for %s and creates nothing', async (_label, body) => {
      const before = await namesOf(a);
      const res = await postRaw(l, '/ai/tenant', JSON.stringify(body(a.organizationId)), a.token);
      expectError(res, 400, 'validation_failed');
      expect(await namesOf(a)).toEqual(before);
    });

    it('answers 413 payload_too_large for a body far over the limit (a 100,000-character name), and creates nothing', async () => {
      const before = await namesOf(a);
      expectError(await create(a.token, { name: 'n'.repeat(100_000), organizationId: a.organizationId }), 413, 'payload_too_large');
      expect(await namesOf(a)).toEqual(before);
    });

    it('answers 400 validation_failed for a __proto__ or constructor key, and pollutes nothing', async () => {
      for (const raw of [
        `{"name":"proto","organizationId":${a.organizationId},"__proto__":{"polluted":true}}`,
        `{"name":"proto","organizationId":${a.organizationId},"constructor":{"prototype":{"polluted":true}}}`,
      ]) {
        expectError(await postRaw(l, '/ai/tenant', raw, a.token), 400, 'validation_failed');
      }
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      expect(await namesOf(a)).not.toContain('proto');
    });

    it('accepts a name of exactly 200 characters, and non-ASCII names', async () => {
      for (const name of ['L'.repeat(200), 'Zürich 東京 bot']) {
        expect((await create(a.token, { name, organizationId: a.organizationId }).expect(200)).body.name).toBe(name);
      }
    });

    it('answers 400 invalid_json for malformed JSON and for an empty body', async () => {
      expectError(await postRaw(l, '/ai/tenant', '{"name": "x",', a.token), 400, 'invalid_json');
      expectError(await l.http.post('/ai/tenant').set(bearer(a.token)).set('Content-Type', 'application/json'), 400, 'invalid_json');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
      'answers 415 unsupported_media_type for Content-Type %s',
      async (type) => {
        const res = await postRaw(l, '/ai/tenant', JSON.stringify({ name: 'typed', organizationId: a.organizationId }), a.token, type);
        expectError(res, 415, 'unsupported_media_type');
        expect(await namesOf(a)).not.toContain('typed');
      },
    );

    it('accepts application/json with a charset parameter', async () => {
      const res = await postRaw(l, '/ai/tenant', JSON.stringify({ name: 'charset', organizationId: a.organizationId }), a.token, 'application/json; charset=utf-8');
      expect(res.status).toBe(200);
    });

    it.each(credentials)('answers 401 unauthorized %s and creates nothing', async (_label, headers) => {
      const res = await l.http.post('/ai/tenant').set(headers(a)).send({ name: 'Unauthorised', organizationId: a.organizationId });
      expectError(res, 401, 'unauthorized');
      expect(await namesOf(a)).not.toContain('Unauthorised');
    });
  });

  describe('GET /ai/tenant?organizationId=', () => {
    let c: Tenancy;
    beforeAll(async () => {
      c = await createTenancy(l, 'ai-tc');
    });

    it('lists an organization without tenants as []', async () => {
      expect((await list(c.token, c.organizationId).expect(200)).body).toEqual([]);
    });

    it('lists exactly the organization\'s tenants, each as {id, name, organizationId}', async () => {
      const made = [];
      for (const name of ['alpha', 'beta', 'gamma']) made.push((await create(c.token, { name, organizationId: c.organizationId }).expect(200)).body);
      const res = await list(c.token, c.organizationId).expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const byName = (x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name);
      expect([...res.body].sort(byName)).toEqual(made.sort(byName));
      for (const t of res.body) expect(Object.keys(t).sort()).toEqual(['id', 'name', 'organizationId']);
    });

    it('shows a member the tenants of their organization', async () => {
      const owner = (await list(a.token, a.organizationId).expect(200)).body;
      expect((await list(member.token, a.organizationId).expect(200)).body).toEqual(owner);
    });

    it('answers 400 missing_parameter without organizationId, or with it empty', async () => {
      expectError(await l.http.get('/ai/tenant').set(bearer(a.token)), 400, 'missing_parameter');
      expectError(await l.http.get('/ai/tenant?organizationId=').set(bearer(a.token)), 400, 'missing_parameter');
    });

    it('answers 400 validation_failed for an organizationId that is not a positive integer, or repeated', async () => {
      for (const q of ['organizationId=abc', 'organizationId=0', 'organizationId=1.5', `organizationId=${a.organizationId}&organizationId=${b.organizationId}`]) {
        expectError(await l.http.get(`/ai/tenant?${q}`).set(bearer(a.token)), 400, 'validation_failed');
      }
    });

    it('answers 404 not_found, the same body, for an organization the caller is not in and one that does not exist', async () => {
      const other = await list(b.token, a.organizationId);
      expectError(other, 404, 'not_found');
      const missing = await list(b.token, 999_999);
      expectError(missing, 404, 'not_found');
      expect(other.body).toEqual(missing.body);
      expect(other.text).not.toMatch(/Support bot|alpha/);
    });

    it.each(credentials)('answers 401 unauthorized %s', async (_label, headers) => {
      expectError(await l.http.get(`/ai/tenant?organizationId=${a.organizationId}`).set(headers(a)), 401, 'unauthorized');
    });
  });
});
