import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { limits } from '@lantern/domain';
import { createLogger } from '@lantern/logging';
import { Router } from 'express';
import request from 'supertest';
import { createServiceApp, jsonBody, nestedDeeperThan } from '../src/index.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const arrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

function app() {
  const router = Router();
  router.post('/echo', jsonBody({ limit: 5 * 1024 * 1024, checkSafety: false }), (req, res) => {
    res.json({ ok: true, type: typeof req.body });
  });
  return request(createServiceApp({ logger: createLogger({ service: 'json-depth-test', silent: true }), routers: [router] }));
}

describe('nestedDeeperThan', () => {
  it('counts arrays and objects, and refuses one level past the bound only', () => {
    expect(nestedDeeperThan(bytes(arrays(64)), 64)).toBe(false);
    expect(nestedDeeperThan(bytes(arrays(65)), 64)).toBe(true);
    expect(nestedDeeperThan(bytes(`${'{"a":'.repeat(64)}1${'}'.repeat(64)}`), 64)).toBe(false);
    expect(nestedDeeperThan(bytes(`${'{"a":['.repeat(33)}1${']}'.repeat(33)}`), 64)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    expect(nestedDeeperThan(bytes(JSON.stringify({ s: '['.repeat(1000) })), 2)).toBe(false);
    expect(nestedDeeperThan(bytes(JSON.stringify({ s: `"${'['.repeat(10)}` })), 2)).toBe(false);
    expect(nestedDeeperThan(bytes(JSON.stringify({ s: `\\${'{'.repeat(10)}\\` })), 2)).toBe(false);
    // After a string that ends in an escaped backslash, the brackets count again.
    expect(nestedDeeperThan(bytes(`["\\\\",${arrays(5)}]`), 5)).toBe(true);
  });

  it('reads multi-byte UTF-8 characters without taking their bytes for brackets', () => {
    expect(nestedDeeperThan(bytes(JSON.stringify({ s: '「日本」💡'.repeat(100), t: ['é'] })), 2)).toBe(false);
  });
});

describe('jsonBody: the depth bound before parsing', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it(`accepts ${limits.maxJsonDepth} levels and refuses ${limits.maxJsonDepth + 1} with 400 validation_failed`, async () => {
    // Every body is an object: one object around the arrays, one level of the bound.
    const inObject = (levels: number) => `{"a":${arrays(levels - 1)}}`;
    await app().post('/echo').set('Content-Type', 'application/json').send(inObject(limits.maxJsonDepth)).expect(200);
    const res = await app().post('/echo').set('Content-Type', 'application/json').send(inObject(limits.maxJsonDepth + 1));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'validation_failed', message: expect.stringContaining(`deeper than ${limits.maxJsonDepth} levels`), details: [{ path: '/', maxDepth: limits.maxJsonDepth }] },
    });
  });

  it('refuses a 4 MB deeply nested body without ever calling JSON.parse on it', async () => {
    const body = arrays(2 * 1024 * 1024);
    expect(body.length).toBe(4 * 1024 * 1024);
    const parse = jest.spyOn(JSON, 'parse');
    const res = await app().post('/echo').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    // Whatever else parsed JSON (the client reading the answer), nothing parsed a text the size of the body.
    const longest = Math.max(0, ...parse.mock.calls.map(([text]) => String(text).length));
    expect(longest).toBeLessThan(1024);
  });

  it('scans the body after gzip decoding', async () => {
    const res = await app().post('/echo').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip')
      .serialize((b: unknown) => b as string).send(gzipSync(arrays(100_000)));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('answers 415 to a charset other than UTF-8 (the scan reads UTF-8 bytes)', async () => {
    const res = await app().post('/echo').set('Content-Type', 'application/json; charset=utf-16le').send(Buffer.from('[1]', 'utf16le'));
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });
});
