import { readFile, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ISO_MS, addMember, expectError, register, type Registered } from './accounts-helpers.js';
import {
  DOC_KEYS,
  FIXTURE_ACCEPTED,
  FIXTURE_REJECTED,
  FIXTURE_TYPES,
  FIXTURES,
  blobKeys,
  createAiTenant,
  expectNothingKept,
  fixture,
  listDocs,
  objectPath,
  sha256,
  snapshot,
  tempFiles,
  upload,
} from './ai-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

const { PDF, DOCX, utf8 } = FIXTURE_TYPES;
const ACCEPTED = FIXTURE_ACCEPTED;
const REJECTED = FIXTURE_REJECTED;

describe('AI documents: the fixtures', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ai-fx');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'fixtures');
  });
  afterAll(() => l.stop());

  it('has an outcome for every file of the fixtures folder', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f !== 'README.md').sort();
    expect(files).toEqual([...Object.keys(ACCEPTED), ...Object.keys(REJECTED)].sort());
  });

  it.each(Object.entries(ACCEPTED))('stores %s: 200 with the record, its size and sha256 those of the file', async (name, contentType) => {
    const bytes = fixture(name);
    const res = await upload(l, t.token, tenantId, bytes, name).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(DOC_KEYS);
    expect(res.body).toEqual({
      id: expect.any(String),
      tenantId,
      filename: name,
      contentType,
      size: bytes.length,
      sha256: sha256(bytes),
      status: 'stored',
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
    // The object is byte for byte the upload, under the contract's key.
    const stored = await readFile(objectPath(l, tenantId, res.body.id));
    expect(stored.length).toBe(bytes.length);
    expect(stored.equals(bytes)).toBe(true);
    expect(await listDocs(l, t.token, tenantId)).toContainEqual(res.body);
    expect(await tempFiles(l)).toEqual([]);
  });

  it.each(Object.entries(REJECTED))('refuses %s with the README\'s status and keeps nothing', async (name, [status, code, message]) => {
    const before = await snapshot(l, t.token, tenantId);
    const res = await upload(l, t.token, tenantId, fixture(name), name);
    expectError(res, status, code);
    expect(res.body.error.message).toMatch(message);
    await expectNothingKept(l, t.token, tenantId, before);
  });

  it('refuses by content whatever the declared Content-Type of the part', async () => {
    const before = await snapshot(l, t.token, tenantId);
    expectError(await upload(l, t.token, tenantId, fixture('image-named.txt'), 'image-named.txt', 'text/plain'), 415, 'unsupported_media_type');
    expectError(await upload(l, t.token, tenantId, fixture('runbook.odt'), 'runbook.docx', DOCX), 415, 'unsupported_media_type');
    await expectNothingKept(l, t.token, tenantId, before);
  });

  it('decides the type from the content, not the extension: a PDF named .txt is a PDF, a Markdown file named .pdf is text', async () => {
    // A tenant of its own: in `tenantId` these bytes are stored already, and would answer that record (dedupe).
    const fresh = await createAiTenant(l, t.token, t.organizationId, 'by content');
    const pdf = await upload(l, t.token, fresh, fixture('runbook.pdf'), 'report.txt').expect(200);
    expect(pdf.body.contentType).toBe(PDF);
    const md = await upload(l, t.token, fresh, fixture('runbook.md'), 'runbook.pdf', PDF).expect(200);
    expect(md.body.contentType).toBe(utf8('text/plain'));
  });

  it('stores UTF-16 text with its byte-order mark (Windows Notepad\'s "Unicode") byte for byte, labelled with its charset', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Café Zürich runbook, saved as Unicode.\r\n', 'utf16le')]);
    const res = await upload(l, t.token, tenantId, bytes, 'notes.txt').expect(200);
    expect(res.body).toMatchObject({ contentType: 'text/plain; charset=utf-16le', size: bytes.length, sha256: sha256(bytes) });
    expect((await readFile(objectPath(l, tenantId, res.body.id))).equals(bytes)).toBe(true);
  });
});

describe('AI documents: storage, listing and deletion', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  let member: Registered;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'ai-da');
    b = await createTenancy(l, 'ai-db');
    member = await register(l, 'ai-dmember');
    await addMember(l, a.token, a.organizationId, member);
    tenantId = await createAiTenant(l, a.token, a.organizationId, 'docs');
  });
  afterAll(() => l.stop());

  const del = (token: string, id: string) => l.http.delete(`/ai/docs/${encodeURIComponent(id)}`).set(bearer(token));

  it('keeps the object under tenants/{tenantId}/documents/{documentId}, never under the client filename', async () => {
    const before = await blobKeys(l);
    const res = await upload(l, a.token, tenantId, 'quarterly figures\n', 'secret-plan-Q3.txt').expect(200);
    const added = (await blobKeys(l)).filter((k) => !before.includes(k));
    expect(added).toEqual([`tenants/${tenantId}/documents/${res.body.id}`]);
    expect(added[0]).not.toMatch(/secret|plan|Q3|\.txt/);
    expect(res.body.filename).toBe('secret-plan-Q3.txt');
  });

  it('answers the same bytes uploaded again to the tenant with the existing record, storing nothing twice', async () => {
    const before = await blobKeys(l);
    const one = await upload(l, a.token, tenantId, 'same bytes\n', 'same.txt').expect(200);
    const two = await upload(l, a.token, tenantId, 'same bytes\n', 'again.txt').expect(200);
    expect(two.body).toEqual(one.body);
    expect((await blobKeys(l)).filter((k) => !before.includes(k))).toEqual([`tenants/${tenantId}/documents/${one.body.id}`]);
    expect((await listDocs(l, a.token, tenantId)).filter((d) => d['sha256'] === one.body.sha256)).toHaveLength(1);
    // Another tenant keeps its own copy.
    const elsewhere = await createAiTenant(l, a.token, a.organizationId, 'elsewhere');
    const three = await upload(l, a.token, elsewhere, 'same bytes\n', 'same.txt').expect(200);
    expect(three.body.id).not.toBe(one.body.id);
    expect(await readFile(objectPath(l, elsewhere, three.body.id), 'utf8')).toBe('same bytes\n');
  });

  it('lists a tenant\'s documents newest first, each as the upload\'s record and never with the object key', async () => {
    const fresh = await createAiTenant(l, a.token, a.organizationId, 'ordered');
    expect(await listDocs(l, a.token, fresh)).toEqual([]);
    const made = [];
    for (const name of ['first.md', 'second.csv', 'third.json']) {
      made.push((await upload(l, a.token, fresh, name === 'third.json' ? '{"n": 3}' : `${name}\n`, name).expect(200)).body);
      await sleep(5); // distinct createdAt milliseconds
    }
    const res = await l.http.get(`/ai/docs?TenantId=${fresh}`).set(bearer(a.token)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual([...made].reverse());
    for (const doc of res.body) expect(Object.keys(doc).sort()).toEqual(DOC_KEYS);
    expect(res.text).not.toMatch(/objectKey|object_key|tenants\//);
    expect(await listDocs(l, member.token, fresh)).toEqual(res.body);
  });

  it('lists only the documents of the tenant asked for', async () => {
    const other = await createAiTenant(l, a.token, a.organizationId, 'separate');
    const doc = (await upload(l, a.token, other, 'only here\n', 'only.txt').expect(200)).body;
    expect(await listDocs(l, a.token, other)).toEqual([doc]);
    expect((await listDocs(l, a.token, tenantId)).map((d) => d.id)).not.toContain(doc.id);
  });

  it('answers 404 to GET /ai/docs for a tenant of another organization, the same as for one that does not exist', async () => {
    const foreign = await l.http.get(`/ai/docs?TenantId=${tenantId}`).set(bearer(b.token));
    expectError(foreign, 404, 'not_found');
    const missing = await l.http.get('/ai/docs?TenantId=00000000-0000-4000-8000-000000000000').set(bearer(b.token));
    expectError(missing, 404, 'not_found');
    expect(foreign.body).toEqual(missing.body);
    expectError(await l.http.get('/ai/docs').set(bearer(a.token)), 400, 'missing_parameter');
    expectError(await l.http.get(`/ai/docs?TenantId=${tenantId}`), 401, 'unauthorized');
  });

  it('DELETE /ai/docs/{docId}: 204 with no body, then the object and the record are gone, and a second DELETE is 404', async () => {
    const doc = (await upload(l, a.token, tenantId, 'to be deleted\n', 'bye.txt').expect(200)).body;
    const file = objectPath(l, tenantId, doc.id);
    expect(await readFile(file, 'utf8')).toBe('to be deleted\n');
    const res = await del(a.token, doc.id).expect(204);
    expect(res.text).toBe('');
    await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await blobKeys(l)).not.toContain(`tenants/${tenantId}/documents/${doc.id}`);
    expect((await listDocs(l, a.token, tenantId)).map((d) => d.id)).not.toContain(doc.id);
    expectError(await del(a.token, doc.id), 404, 'not_found');
  });

  it('answers 204 to exactly one of several concurrent DELETEs of a document, 404 to the others', async () => {
    const doc = (await upload(l, a.token, tenantId, 'raced\n', 'race.txt').expect(200)).body;
    const statuses = await Promise.all([1, 2, 3].map(() => del(a.token, doc.id).then((r) => r.status)));
    expect(statuses.sort()).toEqual([204, 404, 404]);
    await expect(readFile(objectPath(l, tenantId, doc.id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('lets a member of the organization delete a document', async () => {
    const doc = (await upload(l, a.token, tenantId, 'member deletes\n', 'm.txt').expect(200)).body;
    await del(member.token, doc.id).expect(204);
    await expect(readFile(objectPath(l, tenantId, doc.id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers 404 to a user of another organization, the same as for an unknown id, and the document survives', async () => {
    const doc = (await upload(l, a.token, tenantId, 'survivor\n', 'keep.txt').expect(200)).body;
    const foreign = await del(b.token, doc.id);
    expectError(foreign, 404, 'not_found');
    const unknown = await del(b.token, '00000000-0000-4000-8000-000000000000');
    expectError(unknown, 404, 'not_found');
    expect(foreign.body).toEqual(unknown.body);
    expect(await readFile(objectPath(l, tenantId, doc.id), 'utf8')).toBe('survivor\n');
    expect(await listDocs(l, a.token, tenantId)).toContainEqual(doc);
  });

  it('answers 404 for odd document ids and 401 without a token, deleting nothing', async () => {
    const doc = (await upload(l, a.token, tenantId, 'still here\n', 'here.txt').expect(200)).body;
    for (const id of ['x', '..', '%2e%2e%2f', `${doc.id}'--`, 'a'.repeat(300)]) {
      expectError(await l.http.delete(`/ai/docs/${id}`).set(bearer(a.token)), 404, 'not_found');
    }
    expectError(await l.http.delete(`/ai/docs/${doc.id}`), 401, 'unauthorized');
    expectError(await l.http.delete(`/ai/docs/${doc.id}`).set('x-api-key', a.apiKey), 401, 'unauthorized');
    expect(await listDocs(l, a.token, tenantId)).toContainEqual(doc);
  });
});
