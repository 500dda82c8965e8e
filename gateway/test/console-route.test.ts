import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { consoleDir } from '@lantern/console';
import { createEmbedded, type Embedded } from '@lantern/gateway';
import { createLogger } from '@lantern/logging';
import request from 'supertest';
import { CONSOLE_CSP } from '../src/console-route.js';
import { fastHash } from './harness.js';

/**
 * The console served at `/` by the embedded gateway: index.html revalidated on every load with the security headers,
 * hashed assets cached for good, nothing of the API shadowed, and a page saying how to build the console when it is
 * not built. A stand-in build in a temporary directory: the test needs no `vite build`.
 */

const INDEX = '<!doctype html><html><head><title>Lantern</title><script type="module" crossorigin src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>\n';
const SCRIPT = 'console.log("lantern");\n';

async function start(dir: string): Promise<Embedded> {
  return createEmbedded({
    dataDir: join(dir, 'data'),
    storeFile: ':memory:',
    jwtSecret: 'test-secret-that-is-long-enough-0123456789',
    jwtTtlSeconds: 3600,
    rateLimit: { enabled: false, ingestPerMinute: 1000, authPerMinute: 1000 },
    apiKeyCacheMs: 0,
    trustProxy: 0,
    logger: createLogger({ service: 'test', silent: true }),
    passwordHasher: fastHash,
    consoleDir: join(dir, 'dist'),
  });
}

const expectApi404 = (res: request.Response) => {
  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ error: { code: 'not_found' } });
};

describe('the console at / (embedded)', () => {
  let dir: string;
  let lantern: Embedded;
  let http: ReturnType<typeof request>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-console-'));
    await mkdir(join(dir, 'dist/assets'), { recursive: true });
    await writeFile(join(dir, 'dist/index.html'), INDEX);
    await writeFile(join(dir, 'dist/assets/index-Ab12Cd34.js'), SCRIPT);
    await writeFile(join(dir, 'dist/assets/index-Ef56Gh78.css'), 'body{margin:0}\n');
    lantern = await start(dir);
    http = request(lantern.app);
  });
  afterAll(async () => {
    await lantern?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET / and /index.html answer index.html, revalidated on every load, with the security headers', async () => {
    for (const path of ['/', '/index.html', '/?from=link']) {
      const res = await http.get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toBe(INDEX);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['etag']).toBeTruthy();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    }
    expect(CONSOLE_CSP).toContain("script-src 'self';");
    expect(CONSOLE_CSP).toContain("style-src 'self';");
    expect(CONSOLE_CSP).toContain("connect-src 'self';");
    expect(CONSOLE_CSP).toContain("img-src 'self' data:;");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('a reload with the ETag is answered 304', async () => {
    const first = await http.get('/').expect(200);
    await http.get('/').set('If-None-Match', String(first.headers['etag'])).expect(304);
  });

  it('HEAD / answers the headers of GET / without a body', async () => {
    const res = await http.head('/').expect(200);
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(INDEX)));
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.text ?? '').toBe('');
  });

  it('a hashed asset is served with a year of immutable caching', async () => {
    const res = await http.get('/assets/index-Ab12Cd34.js').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript|^application\/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe(SCRIPT);
    const css = await http.head('/assets/index-Ef56Gh78.css').expect(200);
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('unknown paths, missing assets and other methods still get the API\'s JSON 404', async () => {
    for (const path of ['/nope', '/assets/missing.js', '/assets', '/assets/', '/assets/../index.html', '/favicon.ico', '/console']) {
      expectApi404(await http.get(path));
    }
    expectApi404(await http.post('/').send({}));
    expectApi404(await http.delete('/index.html'));
    expectApi404(await http.post('/assets/index-Ab12Cd34.js'));
  });

  it('the API beside it is untouched', async () => {
    await http.get('/healthz').expect(200, { status: 'ok' });
    const doc = await http.get('/openapi.json').expect(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    const me = await http.get('/auth/me').expect(401);
    expect(me.headers['content-type']).toMatch(/^application\/json/);
  });
});

describe('the console at / before it is built', () => {
  let dir: string;
  let lantern: Embedded;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-console-'));
    lantern = await start(dir); // no dist/ in it
  });
  afterAll(async () => {
    await lantern?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('GET / answers a short page saying how to build it; HEAD too; the API still answers', async () => {
    const http = request(lantern.app);
    const res = await http.get('/').expect(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('pnpm build');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    const head = await http.head('/index.html').expect(404);
    expect(head.headers['content-type']).toMatch(/^text\/html/);
    expectApi404(await http.get('/assets/index-Ab12Cd34.js'));
    await http.get('/healthz').expect(200);
  });

  it('by default the gateway serves the console package\'s build directory', () => {
    expect(consoleDir.replace(/\\/g, '/')).toMatch(/\/packages\/console\/dist\/?$/);
  });
});
