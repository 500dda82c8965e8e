import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BOUNDARY, blobKeys, createAiTenant, listDocs, multipart, objectPath, sha256, snapshot, tempFiles } from './ai-helpers.js';
import { listenOnPort, startLantern, createTenancy, type Lantern, type Tenancy } from './harness.js';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Waits (polling, no timing asserted) until `check` holds; fails with `what` if it never does. */
async function until(what: string, check: () => Promise<boolean>, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting until ${what}`);
    await sleep(10);
  }
}

/** The bytes the blob store's temp files hold so far. */
async function tempBytes(l: Lantern): Promise<number> {
  let total = 0;
  for (const f of await tempFiles(l)) total += (await stat(join(l.dataDir, 'blobs', '.tmp', f)).catch(() => ({ size: 0 }))).size;
  return total;
}

describe('AI documents: streaming uploads over a real socket', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  let listening: Awaited<ReturnType<typeof listenOnPort>>;
  let port: number;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ai-stream');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'stream');
    listening = await listenOnPort(l);
    port = listening.port;
  });
  afterAll(async () => {
    await listening.close();
    await l.stop();
  });

  /** Starts an upload of `body` and returns the request (nothing written yet) and its response promise. */
  function open(body: Buffer): { req: ClientRequest; response: Promise<{ status: number; text: string }> } {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/ai/docs?TenantId=${tenantId}`,
      headers: { Authorization: `Bearer ${t.token}`, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, 'Content-Length': body.length },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
    });
    return { req, response };
  }

  const document = (size: number) => Buffer.alloc(size, 'streamed text line\n');

  it('writes the file into object storage while the body is still arriving, then answers 200 with the whole file', async () => {
    const data = document(4 * 1024 * 1024);
    const body = multipart([{ name: 'file', filename: 'streamed.txt', data }]);
    const half = 2 * 1024 * 1024;
    const { req, response } = open(body);
    req.write(body.subarray(0, half));
    // Half of the body is sent and the request is not complete: bytes already reached the blob store's temp
    // file, so the upload is not buffered whole in memory first.
    await until('bytes of the unfinished upload are in the blob store', async () => (await tempBytes(l)) > 1024 * 1024);
    req.end(body.subarray(half));
    const res = await response;
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.text);
    expect(doc).toMatchObject({ size: data.length, sha256: sha256(data), status: 'stored' });
    expect((await readFile(objectPath(l, tenantId, doc.id))).equals(data)).toBe(true);
    expect(await tempFiles(l)).toEqual([]);
  });

  it('keeps nothing when the client goes away in the middle of an upload', async () => {
    const before = await snapshot(l, t.token, tenantId);
    const body = multipart([{ name: 'file', filename: 'abandoned.txt', data: document(4 * 1024 * 1024) }]);
    const { req, response } = open(body);
    response.catch(() => undefined);
    req.write(body.subarray(0, 2 * 1024 * 1024));
    await until('the unfinished upload reached the blob store', async () => (await tempBytes(l)) > 1024 * 1024);
    req.destroy();
    await until('the temp file is removed', async () => (await tempFiles(l)).length === 0);
    // A last look once the server has seen the abort through: no object, no record.
    await sleep(50);
    expect(await blobKeys(l)).toEqual(before.keys);
    expect(await tempFiles(l)).toEqual([]);
    expect(await listDocs(l, t.token, tenantId)).toEqual(before.docs);
  });
});
