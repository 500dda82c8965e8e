import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HARNESS_SECRET, expectError, jwt } from './accounts-helpers.js';
import {
  BOUNDARY,
  MAX_UPLOAD,
  createAiTenant,
  expectNothingKept,
  listDocs,
  multipart,
  objectPath,
  postParts,
  sha256,
  snapshot,
  tempFiles,
  upload,
} from './ai-helpers.js';
import { bearer, createTenancy, startLantern, type Lantern, type Tenancy } from './harness.js';

/** Text of exactly `size` bytes (lines of ASCII), so the type check accepts it as text/plain. */
function textOfSize(size: number): Buffer {
  const line = Buffer.from('0123456789 lantern upload size check, line of text ......................\n');
  const out = Buffer.alloc(size);
  for (let i = 0; i < size; i += line.length) line.copy(out, i, 0, Math.min(line.length, size - i));
  return out;
}

describe('AI documents: size limit', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ai-size');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'sizes');
  });
  afterAll(() => l.stop());

  it('accepts a file of exactly 10,485,760 bytes and stores it byte for byte', async () => {
    const bytes = textOfSize(MAX_UPLOAD);
    const res = await upload(l, t.token, tenantId, bytes, 'exactly-10MB.txt').expect(200);
    expect(res.body).toMatchObject({ size: MAX_UPLOAD, sha256: sha256(bytes), contentType: 'text/plain; charset=utf-8', status: 'stored' });
    const stored = await readFile(objectPath(l, tenantId, res.body.id));
    expect(stored.length).toBe(MAX_UPLOAD);
    expect(stored.equals(bytes)).toBe(true);
  });

  it.each([
    ['10,485,761 bytes (one byte over)', MAX_UPLOAD + 1],
    ['12 MiB', 12 * 1024 * 1024],
  ])('answers 413 payload_too_large for %s and keeps nothing: no object, no record, no temp file', async (_label, size) => {
    const before = await snapshot(l, t.token, tenantId);
    const res = await upload(l, t.token, tenantId, textOfSize(size), 'too-big.txt');
    expectError(res, 413, 'payload_too_large');
    expect(res.body.error.message).toMatch(/10 MB/);
    await expectNothingKept(l, t.token, tenantId, before);
  });

  it('answers 413 for an oversized binary file too (the size is checked whatever the type)', async () => {
    const before = await snapshot(l, t.token, tenantId);
    const png = Buffer.alloc(MAX_UPLOAD + 1);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
    expectError(await upload(l, t.token, tenantId, png, 'big.png'), 413, 'payload_too_large');
    await expectNothingKept(l, t.token, tenantId, before);
  });
});

describe('AI documents: the request', () => {
  let l: Lantern;
  let a: Tenancy;
  let b: Tenancy;
  let tenantId: string;
  let foreignTenant: string;
  beforeAll(async () => {
    l = await startLantern();
    a = await createTenancy(l, 'ai-req-a');
    b = await createTenancy(l, 'ai-req-b');
    tenantId = await createAiTenant(l, a.token, a.organizationId, 'requests');
    foreignTenant = await createAiTenant(l, b.token, b.organizationId, 'foreign');
  });
  afterAll(() => l.stop());

  const file = { name: 'file', filename: 'notes.txt', data: 'some notes\n' };

  it.each([
    ['a JSON body', 'application/json', JSON.stringify({ file: 'some notes' })],
    ['a text/plain body', 'text/plain', 'some notes\n'],
    ['a urlencoded form', 'application/x-www-form-urlencoded', 'file=some+notes'],
    ['an octet stream', 'application/octet-stream', 'some notes\n'],
  ])('answers 415 unsupported_media_type for %s and keeps nothing', async (_label, type, body) => {
    const before = await snapshot(l, a.token, tenantId);
    const res = await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)).set('Content-Type', type).send(body);
    expectError(res, 415, 'unsupported_media_type');
    expect(res.body.error.message).toMatch(/multipart\/form-data/);
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('answers 415 for a request without a body or Content-Type', async () => {
    expectError(await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)), 415, 'unsupported_media_type');
  });

  it.each([
    ['the file in a part named "document"', [{ ...file, name: 'document' }]],
    ['"file" sent as a plain field, not a file', [{ name: 'file', data: 'some notes' }]],
    ['a form with no part at all', []],
    ['two files in parts named "file"', [file, { ...file, filename: 'second.txt' }]],
    ['a file part "file" followed by another file part', [file, { ...file, name: 'attachment' }]],
  ])('answers 400 validation_failed for %s and keeps nothing', async (_label, parts) => {
    const before = await snapshot(l, a.token, tenantId);
    const res = await postParts(l, a.token, tenantId, parts);
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.message).toMatch(/"file"/);
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('accepts extra text fields beside the file', async () => {
    const res = await postParts(l, a.token, tenantId, [{ name: 'title', data: 'My notes' }, file]).expect(200);
    expect(res.body.filename).toBe('notes.txt');
  });

  it('answers 400 for a malformed multipart body (no boundary, or cut before the closing boundary) and keeps nothing', async () => {
    const before = await snapshot(l, a.token, tenantId);
    const noBoundary = await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)).set('Content-Type', 'multipart/form-data').send('x');
    expectError(noBoundary, 400, 'validation_failed');
    const cut = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\nsome notes that never end`;
    const truncated = await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)).set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(cut);
    expectError(truncated, 400, 'validation_failed');
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('a body cut off inside the file part: the 400 comes after the partial upload is gone, not before', async () => {
    const cut = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\n${'x'.repeat(64 * 1024)}`;
    for (let i = 0; i < 20; i++) {
      const res = await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)).set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(cut);
      expectError(res, 400, 'validation_failed');
      // Checked at once: multer answers this refusal without waiting for the storage engine.
      expect(await tempFiles(l)).toEqual([]);
    }
  });

  it('answers 400 missing_parameter without TenantId, with it empty, or spelled tenantId', async () => {
    const before = await snapshot(l, a.token, tenantId);
    for (const path of ['/ai/docs', '/ai/docs?TenantId=', `/ai/docs?tenantId=${tenantId}`]) {
      const res = await l.http.post(path).set(bearer(a.token)).set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="n.txt"\r\n\r\nnotes\r\n--${BOUNDARY}--\r\n`,
      );
      expectError(res, 400, 'missing_parameter');
      expect(res.body.error.message).toMatch(/TenantId/);
    }
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('answers 404 for an unknown TenantId and, with the same body, for a tenant of another organization; nothing is kept', async () => {
    const before = await snapshot(l, b.token, foreignTenant);
    const unknown = await postParts(l, a.token, '00000000-0000-4000-8000-000000000000', [file]);
    expectError(unknown, 404, 'not_found');
    const foreign = await postParts(l, a.token, foreignTenant, [file]);
    expectError(foreign, 404, 'not_found');
    expect(foreign.body).toEqual(unknown.body);
    expectError(await postParts(l, a.token, '../../etc', [file]), 404, 'not_found');
    await expectNothingKept(l, b.token, foreignTenant, before);
  });

  it('answers 400 validation_failed for a repeated TenantId, and keeps nothing', async () => {
    const before = await snapshot(l, a.token, tenantId);
    const res = await l.http.post(`/ai/docs?TenantId=${tenantId}&TenantId=${tenantId}`).set(bearer(a.token))
      .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(multipart([file]));
    expectError(res, 400, 'validation_failed');
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('still answers a large upload refused before its body is read (404, 401, 415) with its error, not a broken connection', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024, 'large body\n');
    const before = await snapshot(l, a.token, tenantId);
    expectError(await postParts(l, a.token, foreignTenant, [{ ...file, data: big }]), 404, 'not_found');
    expectError(await postParts(l, undefined, tenantId, [{ ...file, data: big }]), 401, 'unauthorized');
    expectError(await l.http.post(`/ai/docs?TenantId=${tenantId}`).set(bearer(a.token)).set('Content-Type', 'text/plain').send(big), 415, 'unsupported_media_type');
    await expectNothingKept(l, a.token, tenantId, before);
  });

  it('answers 401 without a token, with an API key, or with an expired or badly-signed JWT, and keeps nothing', async () => {
    const before = await snapshot(l, a.token, tenantId);
    expectError(await postParts(l, undefined, tenantId, [file]), 401, 'unauthorized');
    expectError(await postParts(l, undefined, tenantId, [file]).set('x-api-key', a.apiKey), 401, 'unauthorized');
    expectError(await postParts(l, a.apiKey, tenantId, [file]), 401, 'unauthorized');
    const past = Math.floor(Date.now() / 1000) - 60;
    const expired = jwt.sign({ sub: a.userId, iat: past - 3600, exp: past }, HARNESS_SECRET, { algorithm: 'HS256' });
    expectError(await postParts(l, expired, tenantId, [file]), 401, 'unauthorized');
    const forged = jwt.sign({}, 'another-secret-that-is-long-enough-987654', { algorithm: 'HS256', subject: a.userId, expiresIn: 600 });
    expectError(await postParts(l, forged, tenantId, [file]), 401, 'unauthorized');
    await expectNothingKept(l, a.token, tenantId, before);
  });
});

describe('AI documents: the client filename', () => {
  let l: Lantern;
  let t: Tenancy;
  let tenantId: string;
  beforeAll(async () => {
    l = await startLantern();
    t = await createTenancy(l, 'ai-names');
    tenantId = await createAiTenant(l, t.token, t.organizationId, 'names');
  });
  afterAll(() => l.stop());

  const long = `${'a'.repeat(1000)}.md`;
  it.each([
    ['a plain name', { filename: 'runbook.md' }, 'runbook.md'],
    ['a ../ path', { filename: '../../../etc/passwd.md' }, 'passwd.md'],
    ['a ..\\ path', { filename: '..\\..\\windows\\system32\\notes.md' }, 'notes.md'],
    ['an absolute path', { filename: '/var/lib/lantern/blobs/x.md' }, 'x.md'],
    ['a name that is only ..', { filename: '..' }, 'document'],
    ['a name ending in /', { filename: 'folder/' }, 'document'],
    ['a leading dot', { filename: '.htaccess' }, 'htaccess'],
    ['control characters (RFC 5987 filename*)', { disposition: "; filename*=UTF-8''bad%01%07%1bname%0D%0A.md" }, 'badname.md'],
    ['a raw tab', { filename: 'tab\there.md' }, 'tabhere.md'],
    ['escaped quotes and newlines (WHATWG)', { filename: 'say %22hi%22%0A.md' }, 'say hi.md'],
    ['shell and HTML characters', { filename: '$(rm -rf)`x`<script>;|&.md' }, '(rm -rf)xscript.md'],
    ['non-ASCII letters', { filename: 'Zürich 東京 naïve.md' }, 'Zürich 東京 naïve.md'],
    ['a 1,000-character name', { filename: long }, `${'a'.repeat(197)}.md`],
  ])('keeps %s as a sanitised filename, never in the object key', async (label, part, expected) => {
    // Bytes of their own: the same bytes again would answer the first upload's record (dedupe by sha256).
    const data = `# notes: ${label}\n`;
    const res = await postParts(l, t.token, tenantId, [{ name: 'file', data, ...part }]).expect(200);
    expect(res.body.filename).toBe(expected);
    expect(res.body.filename.length).toBeLessThanOrEqual(200);
    expect(res.body.filename).not.toMatch(/[/\\\u0000-\u001f\u007f]|\.\./);
    expect(await readFile(objectPath(l, tenantId, res.body.id), 'utf8')).toBe(data);
    const listed = (await listDocs(l, t.token, tenantId)).find((d) => d.id === res.body.id);
    expect(listed?.['filename']).toBe(expected);
  });

  it('answers 400 for a part header carrying raw control characters (invalid in a header), and keeps nothing', async () => {
    const before = await snapshot(l, t.token, tenantId);
    for (const filename of ['nul\u0000.md', 'bell\u0007.md', 'del\u007f.md']) {
      const res = await postParts(l, t.token, tenantId, [{ name: 'file', data: '# notes\n', filename }]);
      expectError(res, 400, 'validation_failed');
      expect(res.body.error.message).toMatch(/malformed/);
    }
    await expectNothingKept(l, t.token, tenantId, before);
  });

  it('answers 400 for a file part with an empty filename (a form submitted with no file chosen)', async () => {
    const before = await snapshot(l, t.token, tenantId);
    expectError(await postParts(l, t.token, tenantId, [{ name: 'file', filename: '', data: '' }]), 400, 'validation_failed');
    await expectNothingKept(l, t.token, tenantId, before);
  });
});
