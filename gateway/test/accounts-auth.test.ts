import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError, HARNESS_SECRET, jwt, PASSWORD, postRaw, register } from './accounts-helpers.js';
import { bearer, startLantern, type Lantern } from './harness.js';

describe('accounts: register, login, me', () => {
  let l: Lantern;
  beforeAll(async () => {
    l = await startLantern();
  });
  afterAll(() => l.stop());

  describe('POST /auth/register', () => {
    it('answers 201 {token, user:{id,email,name}} with the email lower-cased and no password anywhere', async () => {
      const res = await l.http.post('/auth/register').send({ email: 'Ada.Lovelace@Example.COM', password: PASSWORD, name: '  Ada  ' }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['token', 'user']);
      expect(Object.keys(res.body.user).sort()).toEqual(['email', 'id', 'name']);
      expect(res.body.user).toMatchObject({ email: 'ada.lovelace@example.com', name: 'Ada' });
      expect(typeof res.body.user.id).toBe('string');
      expect(res.body.user.id.length).toBeGreaterThan(0);
      expect(res.text).not.toContain(PASSWORD);
      expect(res.text).not.toMatch(/password|hash|scrypt/i);
      await l.http.get('/auth/me').set(bearer(res.body.token)).expect(200);
    });

    it('defaults the name to the local part of the email', async () => {
      const res = await l.http.post('/auth/register').send({ email: 'grace@example.com', password: PASSWORD }).expect(201);
      expect(res.body.user.name).toBe('grace');
    });

    it('accepts a name of exactly 200 characters and an 8-character password', async () => {
      const res = await l.http.post('/auth/register').send({ email: 'long@example.com', password: '12345678', name: 'n'.repeat(200) }).expect(201);
      expect(res.body.user.name).toHaveLength(200);
    });

    it('answers 409 conflict for a taken email, also in another case', async () => {
      await l.http.post('/auth/register').send({ email: 'taken@example.com', password: PASSWORD }).expect(201);
      expectError(await l.http.post('/auth/register').send({ email: 'taken@example.com', password: 'another password' }), 409, 'conflict');
      expectError(await l.http.post('/auth/register').send({ email: 'TAKEN@Example.Com', password: PASSWORD }), 409, 'conflict');
      // The first account still logs in with its own password.
      await l.http.post('/auth/login').send({ email: 'taken@example.com', password: PASSWORD }).expect(200);
    });

    it('creates exactly one account when the same email registers concurrently', async () => {
      const statuses = await Promise.all(
        ['race@example.com', 'RACE@example.com', 'Race@Example.com', 'race@example.com'].map(async (email) =>
          (await l.http.post('/auth/register').send({ email, password: PASSWORD })).status),
      );
      expect(statuses.sort()).toEqual([201, 409, 409, 409]);
    });

    const invalid: Array<[string, unknown, string]> = [
      ['email missing', { password: PASSWORD }, '/email'],
      ['password missing', { email: 'a@example.com' }, '/password'],
      ['email of the wrong type', { email: 42, password: PASSWORD }, '/email'],
      ['password of the wrong type', { email: 'a@example.com', password: 12345678 }, '/password'],
      ['name of the wrong type', { email: 'a@example.com', password: PASSWORD, name: ['x'] }, '/name'],
      ['a 7-character password', { email: 'a@example.com', password: '1234567' }, '/password'],
      ['a malformed email', { email: 'not-an-email', password: PASSWORD }, '/email'],
      ['a name over 200 characters', { email: 'a@example.com', password: PASSWORD, name: 'n'.repeat(201) }, '/name'],
      ['a blank name', { email: 'a@example.com', password: PASSWORD, name: '   ' }, '/name'],
      ['a name with a control character', { email: 'a@example.com', password: PASSWORD, name: 'bad\u0007name' }, '/name'],
      ['an unknown extra field', { email: 'a@example.com', password: PASSWORD, role: 'admin' }, '/role'],
      ['an operator object as a value', { email: { $gt: '' }, password: PASSWORD }, '/email'],
    ];
    it.each(invalid)('answers 400 validation_failed for %s, naming the path', async (_label, body, path) => {
      const res = await l.http.post('/auth/register').send(body as object);
      expectError(res, 400, 'validation_failed');
      expect(JSON.stringify(res.body.error.details)).toContain(path);
      expectError(await l.http.post('/auth/login').send({ email: 'a@example.com', password: PASSWORD }), 401, 'unauthorized');
    });

    it.each([
      ['__proto__', '{"email":"p1@example.com","password":"correct horse","__proto__":{"isAdmin":true}}'],
      ['constructor', '{"email":"p2@example.com","password":"correct horse","constructor":{"prototype":{"isAdmin":true}}}'],
      ['nested __proto__', '{"email":"p3@example.com","password":"correct horse","name":{"__proto__":{"x":1}}}'],
    ])('answers 400 validation_failed for a %s key in the raw body and creates no account', async (_label, raw) => {
      expectError(await postRaw(l, '/auth/register', raw), 400, 'validation_failed');
      const email = (JSON.parse(raw) as { email: string }).email;
      expectError(await l.http.post('/auth/login').send({ email, password: 'correct horse' }), 401, 'unauthorized');
    });

    it('answers 400 invalid_json for a malformed or empty body', async () => {
      expectError(await postRaw(l, '/auth/register', '{"email": "x@example.com", "password": '), 400, 'invalid_json');
      expectError(await postRaw(l, '/auth/register', "{'email': 'x@example.com'}"), 400, 'invalid_json');
      expectError(await l.http.post('/auth/register'), 400, 'invalid_json');
    });

    it('answers 400 validation_failed for JSON that is not an object', async () => {
      expectError(await postRaw(l, '/auth/register', '[]'), 400, 'validation_failed');
      expectError(await postRaw(l, '/auth/register', 'null'), 400, 'validation_failed');
    });

    it('answers 415 for a body that is not application/json, and accepts a charset parameter', async () => {
      const body = JSON.stringify({ email: 'plain@example.com', password: PASSWORD });
      expectError(await postRaw(l, '/auth/register', body, undefined, 'text/plain'), 415, 'unsupported_media_type');
      expectError(await postRaw(l, '/auth/register', body, undefined, 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
      await postRaw(l, '/auth/register', body, undefined, 'application/json; charset=utf-8').expect(201);
    });
  });

  describe('POST /auth/login', () => {
    const email = 'login@example.com';
    let userId: string;
    beforeAll(async () => {
      userId = (await l.http.post('/auth/register').send({ email, password: PASSWORD, name: 'Login' }).expect(201)).body.user.id;
    });

    it('answers 200 {token, user} for the right pair, the email in any case, and never the password', async () => {
      const res = await l.http.post('/auth/login').send({ email: 'LOGIN@example.com', password: PASSWORD }).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['token', 'user']);
      expect(res.body.user).toEqual({ id: userId, email, name: 'Login' });
      expect(res.text).not.toMatch(/password|hash|scrypt/i);
      const me = await l.http.get('/auth/me').set(bearer(res.body.token)).expect(200);
      expect(me.body.user.id).toBe(userId);
    });

    it('answers the same 401 for an unknown email and for a wrong password', async () => {
      const unknown = await l.http.post('/auth/login').send({ email: 'nobody@example.com', password: PASSWORD });
      const wrong = await l.http.post('/auth/login').send({ email, password: 'wrong password' });
      expectError(unknown, 401, 'unauthorized');
      expectError(wrong, 401, 'unauthorized');
      expect(wrong.body).toEqual(unknown.body);
    });

    it('answers 400 validation_failed for missing fields, wrong types, extra fields and operator objects', async () => {
      for (const body of [
        { email },
        { password: PASSWORD },
        { email, password: 12345678 },
        { email, password: PASSWORD, remember: true },
        { email, password: { $gt: '' } },
        { email: { $ne: null }, password: PASSWORD },
      ]) {
        expectError(await l.http.post('/auth/login').send(body), 400, 'validation_failed');
      }
    });

    it('answers 400 invalid_json for a malformed body and 415 for text/plain', async () => {
      expectError(await postRaw(l, '/auth/login', `{"email":"${email}",`), 400, 'invalid_json');
      expectError(await postRaw(l, '/auth/login', JSON.stringify({ email, password: PASSWORD }), undefined, 'text/plain'), 415, 'unsupported_media_type');
    });
  });

  describe('GET /auth/me', () => {
    it('answers 200 {user, organizations:[{id,name,role}]} listing the caller\'s organizations', async () => {
      const me = await register(l, 'me');
      const empty = await l.http.get('/auth/me').set(bearer(me.token)).expect(200);
      expect(empty.body).toEqual({ user: me.user, organizations: [] });
      const org = await l.http.post('/organizations').set(bearer(me.token)).send({ name: 'Me Inc' }).expect(201);
      const res = await l.http.get('/auth/me').set(bearer(me.token)).expect(200);
      expect(res.body).toEqual({ user: me.user, organizations: [{ id: org.body.id, name: 'Me Inc', role: 'owner' }] });
      expect(res.text).not.toMatch(/password|hash/i);
    });

    it('answers 401 for a correctly signed token of a user that does not exist', async () => {
      const token = jwt.sign({}, HARNESS_SECRET, { algorithm: 'HS256', subject: 'no-such-user', expiresIn: 600 });
      expectError(await l.http.get('/auth/me').set(bearer(token)), 401, 'unauthorized');
    });
  });

  describe('the JWT', () => {
    it('is HS256 with sub = the user id and exp one hour ahead (the harness TTL)', async () => {
      const before = Math.floor(Date.now() / 1000);
      const { token, user } = await register(l, 'jwt');
      const decoded = jwt.decode(token, { complete: true });
      expect(decoded).not.toBeNull();
      expect(decoded!.header.alg).toBe('HS256');
      const payload = decoded!.payload as { sub: string; exp: number; iat: number };
      expect(payload.sub).toBe(user.id);
      expect(payload.exp - payload.iat).toBe(3600);
      expect(payload.exp).toBeGreaterThanOrEqual(before + 3600 - 5);
      expect(payload.exp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 3600 + 5);
      expect(() => jwt.verify(token, HARNESS_SECRET, { algorithms: ['HS256'] })).not.toThrow();
    });
  });
});
