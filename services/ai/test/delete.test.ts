import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenService } from '@lantern/auth';
import { createFsBlobStore, type BlobStore } from '@lantern/blobs';
import { createLogger } from '@lantern/logging';
import { openSqliteStore, type Store } from '@lantern/store';
import { makeWorld, type World } from '../../../packages/store/src/contract/fixtures.js';
import request from 'supertest';
import { createAiApp } from '../src/app.js';
import { finishAbandonedDeletes } from '../src/delete.js';

/**
 * A delete in issue 15's order (mark, chunks, object, record), each step safe to run again, over HTTP on the ai
 * service with the real SQLite store and filesystem object store. The object store's failure is injected around
 * the real one: these tests run as root here, whom no file permission stops.
 */
describe('ai: deleting a document when object storage fails half-way', () => {
  let dir: string;
  let store: Store;
  let fs: BlobStore;
  let storageDown = false;
  let w: World;
  let token: string;
  let http: ReturnType<typeof request>;
  let tenantId: string;
  const logger = createLogger({ service: 'test', silent: true });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lantern-delete-'));
    store = await openSqliteStore({ file: ':memory:' });
    fs = await createFsBlobStore({ root: dir });
    storageDown = false;
    const blobs: BlobStore = { ...fs, delete: (key) => (storageDown ? Promise.reject(new Error('connect ECONNREFUSED')) : fs.delete(key)) };
    w = await makeWorld(store, 'deleter');
    const tokens = createTokenService({ secret: 'test-secret-that-is-long-enough-0123456789', ttlSeconds: 3600, versions: store });
    token = tokens.issue(w.user.id, 0);
    http = request(createAiApp({ store, blobs, tokens, logger }));
    tenantId = (await store.createTenant({ name: 'Support', organizationId: w.org.id })).id;
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const auth = () => ({ authorization: `Bearer ${token}` });
  const upload = async (text: string) => (await http.post(`/ai/docs?TenantId=${tenantId}`).set(auth())
    .attach('file', Buffer.from(text), { filename: 'notes.txt', contentType: 'text/plain' }).expect(200)).body as { id: string };
  const objectKey = (id: string) => `tenants/${tenantId}/documents/${id}`;

  it('answers 503 with the document already withdrawn; a retry once storage is back goes on and answers 204', async () => {
    const doc = await upload('half deleted\n');
    storageDown = true;
    const failed = await http.delete(`/ai/docs/${doc.id}`).set(auth());
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('unavailable');
    expect(failed.headers['retry-after']).toBe('5');
    expect(failed.body.error.message).toMatch(/withdrawn.*Repeat the DELETE/);
    // Marked first: no lookup or list sees it any more, though its object is still there.
    expect((await http.get(`/ai/docs/${doc.id}`).set(auth())).status).toBe(404);
    expect((await http.get(`/ai/docs?TenantId=${tenantId}`).set(auth()).expect(200)).body).toEqual([]);
    expect(await fs.exists(objectKey(doc.id))).toBe(true);
    // The same bytes again are a new document: the withdrawn one is no dedupe target.
    expect((await upload('half deleted\n')).id).not.toBe(doc.id);

    storageDown = false;
    await http.delete(`/ai/docs/${doc.id}`).set(auth()).expect(204);
    expect(await fs.exists(objectKey(doc.id))).toBe(false);
    expect(await store.getDocumentToDelete(doc.id, w.user.id)).toBeNull();
    expect((await http.delete(`/ai/docs/${doc.id}`).set(auth())).status).toBe(404);
  });

  it('leaves a delete nobody retries to a worker, which finishes it once its grace has run out', async () => {
    const doc = await upload('abandoned\n');
    storageDown = true;
    expect((await http.delete(`/ai/docs/${doc.id}`).set(auth())).status).toBe(503);
    // Within the grace, the delete is its DELETE's to finish.
    expect(await store.abandonedDeletes(20)).toEqual([]);
    // The grace run out (the mark again, with none left), with storage still down: it waits for the next turn.
    await store.withdrawDocument(doc.id, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const blobs: BlobStore = { ...fs, delete: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    expect(await finishAbandonedDeletes({ store, blobs, logger })).toBe(0);
    expect(await store.getDocumentToDelete(doc.id, w.user.id)).toMatchObject({ status: 'deleting' });
    await store.withdrawDocument(doc.id, 0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await finishAbandonedDeletes({ store, blobs: fs, logger })).toBe(1);
    expect(await fs.exists(objectKey(doc.id))).toBe(false);
    expect(await store.getDocumentToDelete(doc.id, w.user.id)).toBeNull();
    expect(await store.abandonedDeletes(20)).toEqual([]);
  });
});
