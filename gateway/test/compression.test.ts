import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createTenancy, listenOnPort, span, startLantern, type Lantern, type Tenancy } from './harness.js';
import { iso, sendAllTraces, T0 } from './telemetry-helpers.js';

interface Raw { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** A GET with exactly the headers given (no client that decompresses on its own), the body as received. */
function rawGet(port: number, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http.get({ port, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

describe('response compression', () => {
  let l: Lantern;
  let t: Tenancy;
  let listening: Awaited<ReturnType<typeof listenOnPort>>;
  let port: number;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'gzip');
    await sendAllTraces(l, t.apiKey, Array.from({ length: 2000 }, (_, i) => span({ timestamp: iso(T0 + i * 10) })));
    listening = await listenOnPort(l);
    port = listening.port;
  });
  afterAll(async () => {
    await listening.close();
    await l.stop();
  });

  const auth = () => ({ authorization: `Bearer ${t.token}` });

  it('a large read is gzipped for a client that accepts gzip, byte for byte the same JSON', async () => {
    const path = `/logs/project?id=${t.projectId}`;
    const plain = await rawGet(port, path, { ...auth(), 'accept-encoding': 'identity' });
    const zipped = await rawGet(port, path, { ...auth(), 'accept-encoding': 'gzip' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    const unzipped = gunzipSync(zipped.body);
    expect(JSON.parse(unzipped.toString('utf8'))).toHaveLength(2000);
    expect(unzipped.equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
  });

  it('a browser (which offers br, gzip and deflate) gets br, the same JSON', async () => {
    const path = `/logs/project?id=${t.projectId}`;
    const plain = await rawGet(port, path, { ...auth(), 'accept-encoding': 'identity' });
    const br = await rawGet(port, path, { ...auth(), 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
  });

  it('a small answer (under 1 KiB) and a client that does not accept gzip get it as it is', async () => {
    const health = await rawGet(port, '/healthz', { 'accept-encoding': 'gzip' });
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(health.body.toString('utf8'))).toEqual({ status: 'ok' });
    const none = await rawGet(port, `/logs/project?id=${t.projectId}`, auth());
    expect(none.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(none.body.toString('utf8'))).toHaveLength(2000);
  });
});
