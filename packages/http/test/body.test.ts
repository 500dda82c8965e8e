import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { findUnsafe, limits } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import { Router } from 'express';
import request from 'supertest';
import { createServiceApp, isJsonContentType, jsonBody, queryId } from '../src/index.js';

/** `levels` nested objects: nest(1) is `{}`, nest(2) is `{a: {}}`... built without recursion. */
function nest(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

function app() {
  const router = Router();
  router.post('/echo', jsonBody({ limit: 64 * 1024 }), (req, res) => {
    res.json({ got: req.body });
  });
  router.post('/small', jsonBody({ limit: 1024 }), (req, res) => {
    res.json({ got: req.body });
  });
  router.post('/optional', jsonBody({ limit: 1024, optional: true }), (req, res) => {
    res.json({ got: req.body });
  });
  router.get('/id', (req, res) => {
    res.json({ id: queryId(req, 'id', true) });
  });
  return request(createServiceApp({ logger: createLogger({ service: 'http-test', silent: true }), routers: [router] }));
}

/** Posts raw bytes as JSON with a Content-Encoding (superagent would JSON-encode a Buffer otherwise). */
const sendBytes = (path: string, bytes: Buffer, encoding: string) =>
  app().post(path).set('Content-Type', 'application/json').set('Content-Encoding', encoding).serialize((b: unknown) => b as string).send(bytes);

describe('findUnsafe', () => {
  it('allows nesting up to the bound (16 levels) and refuses one more', () => {
    expect(limits.maxDepth).toBe(16);
    expect(findUnsafe(nest(16))).toBeNull();
    expect(findUnsafe(nest(17))).toMatch(/nested deeper than 16 levels/);
    expect(findUnsafe(nest(3), 2)).toMatch(/nested deeper than 2 levels/);
    expect(findUnsafe(nest(2), 2)).toBeNull();
  });

  it('counts arrays as levels too', () => {
    let v: unknown = [];
    for (let i = 1; i < 17; i++) v = [v];
    expect(findUnsafe(v)).toMatch(/nested deeper/);
  });

  it('returns (does not overflow the stack) for a hostile depth of 200,000', () => {
    expect(findUnsafe(nest(200_000))).toMatch(/nested deeper than 16 levels/);
  });

  it('finds prototype keys, operator keys, dotted keys and over-long strings', () => {
    expect(findUnsafe(JSON.parse('{"a": {"__proto__": {"x": 1}}}'))).toMatch(/\/a\/__proto__ is a forbidden field name/);
    expect(findUnsafe({ a: [{ constructor: 1 }] })).toMatch(/\/a\/0\/constructor/);
    expect(findUnsafe({ q: { $gt: '' } })).toMatch(/\/q\/\$gt/);
    expect(findUnsafe({ 'a.b': 1 })).toMatch(/a\.b/);
    expect(findUnsafe({ s: 'x'.repeat(limits.maxStringLength) })).toBeNull();
    expect(findUnsafe({ s: 'x'.repeat(limits.maxStringLength + 1) })).toMatch(/\/s is longer than/);
  });
});

describe('jsonBody', () => {
  it('parses JSON with or without a charset', async () => {
    await app().post('/echo').set('Content-Type', 'application/json; charset=utf-8').send('{"a":1}').expect(200, { got: { a: 1 } });
    expect(isJsonContentType('Application/JSON ; charset=UTF-8')).toBe(true);
    expect(isJsonContentType('application/json-patch+json')).toBe(false);
    expect(isJsonContentType(undefined)).toBe(false);
  });

  it('refuses a deeply nested body with 400 validation_failed (not a crash)', async () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const res = await app().post('/echo').set('Content-Type', 'application/json').send(deep);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    const small = JSON.stringify(nest(20));
    const res2 = await app().post('/echo').set('Content-Type', 'application/json').send(small);
    expect(res2.status).toBe(400);
    expect(res2.body.error.code).toBe('validation_failed');
  });

  it('measures the limit after decompression', async () => {
    const raw = JSON.stringify({ s: 'z'.repeat(2000) });
    expect(gzipSync(raw).length).toBeLessThan(1024);
    const res = await sendBytes('/small', gzipSync(raw), 'gzip');
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    await sendBytes('/echo', gzipSync(raw), 'gzip').expect(200, { got: { s: 'z'.repeat(2000) } });
  });

  it.each([
    ['gzip', () => Buffer.from('this is not gzip at all')],
    ['gzip', () => gzipSync('{"a": 1}').subarray(0, 12)],
    ['deflate', () => Buffer.from([1, 2, 3, 4, 5, 6])],
  ])('a body that is not valid %s is 400 invalid_json, not a 500', async (encoding, bytes) => {
    const res = await sendBytes('/echo', bytes(), encoding);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
  });

  it('an optional body may be absent; a required one may not', async () => {
    await app().post('/optional').expect(200, { got: {} });
    const res = await app().post('/echo').set('Content-Type', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });
});

describe('queryId', () => {
  it.each(['abc', '0', '-1', '1.5', '01', '1e3', ' 1', '99999999999999999'])('refuses id=%s with 400 validation_failed', async (raw) => {
    const res = await app().get(`/id?id=${encodeURIComponent(raw)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('refuses a repeated or nested parameter, and a missing one is missing_parameter', async () => {
    expect((await app().get('/id?id=1&id=2')).body.error.code).toBe('validation_failed');
    expect((await app().get('/id?id[$gt]=1')).body.error.code).toBe('missing_parameter');
    expect((await app().get('/id')).body.error.code).toBe('missing_parameter');
    await app().get('/id?id=42').expect(200, { id: 42 });
  });
});
