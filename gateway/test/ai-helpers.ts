import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@jest/globals';
import { bearer, type HttpTarget, type Lantern } from './harness.js';

/** The document fixtures, kept in the repository (a copy of the team's shared/fixtures/documents). */
export const FIXTURES = fileURLToPath(new URL('../../services/ai/test/fixtures/documents/', import.meta.url));
if (!existsSync(join(FIXTURES, 'README.md'))) throw new Error(`The document fixtures are not at ${FIXTURES}`);

export const fixture = (name: string): Buffer => readFileSync(join(FIXTURES, name));
export const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** 10 MB as the contract defines it. */
export const MAX_UPLOAD = 10 * 1024 * 1024;

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const utf8 = (type: string) => `${type}; charset=utf-8`;
export const FIXTURE_TYPES = { PDF, DOCX, utf8 };

/** The outcome of every fixture, from fixtures/documents/README.md (truncated.pdf: our documented choice, 200). */
export const FIXTURE_ACCEPTED: Record<string, string> = {
  'runbook.md': utf8('text/markdown'),
  'runbook-pandoc.docx': DOCX,
  'runbook-libreoffice.docx': DOCX,
  'runbook.pdf': PDF,
  'scanned.pdf': PDF,
  'encrypted.pdf': PDF,
  'truncated.pdf': PDF,
  'orders.csv': utf8('text/csv'),
  'service.yaml': utf8('application/yaml'),
  'incident.json': utf8('application/json'),
  'status.html': utf8('text/html'),
  'notes-utf8.txt': utf8('text/plain'),
  'notes-latin1.txt': 'text/plain; charset=iso-8859-1',
};
export const FIXTURE_REJECTED: Record<string, [number, string, RegExp]> = {
  'runbook.odt': [415, 'unsupported_media_type', /OpenDocument.*not a supported format/],
  'image-named.txt': [415, 'unsupported_media_type', /PNG image.*not a supported format/],
  'plain-zip-named.docx': [415, 'unsupported_media_type', /ZIP archive.*not a supported format/],
  'empty.txt': [400, 'validation_failed', /empty/],
};

export const DOC_KEYS = ['contentType', 'createdAt', 'filename', 'id', 'sha256', 'size', 'status', 'tenantId'];

export interface Part {
  name: string;
  /** A file part when set (even ''), a plain field otherwise. */
  filename?: string;
  /** Replaces the whole Content-Disposition parameters after `form-data; name="..."` (for filename* tests). */
  disposition?: string;
  contentType?: string;
  data: Buffer | string;
}

export const BOUNDARY = '----lantern-test-boundary-7MA4YWxkTrZu0gW';

/**
 * A multipart/form-data body built byte by byte: the filename goes out exactly as given (supertest's
 * attach() would take its base name on the client side, hiding what the server does with `../`).
 */
export function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let disposition = `form-data; name="${p.name}"`;
    if (p.disposition !== undefined) disposition += p.disposition;
    else if (p.filename !== undefined) disposition += `; filename="${p.filename}"`;
    const type = p.contentType ?? (p.filename !== undefined || p.disposition !== undefined ? 'application/octet-stream' : undefined);
    const head = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(head, 'utf8'), Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data, 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** POST /ai/docs?TenantId= with a hand-built multipart body. */
export function postParts(l: HttpTarget, token: string | undefined, tenantId: string | undefined, parts: Part[]) {
  const req = l.http.post(tenantId === undefined ? '/ai/docs' : `/ai/docs?TenantId=${encodeURIComponent(tenantId)}`);
  if (token) req.set(bearer(token));
  return req.set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(multipart(parts));
}

/** Uploads `data` as the part named `file`. */
export function upload(l: HttpTarget, token: string, tenantId: string, data: Buffer | string, filename = 'notes.txt', contentType?: string) {
  return postParts(l, token, tenantId, [{ name: 'file', filename, data, ...(contentType ? { contentType } : {}) }]);
}

export async function createAiTenant(l: HttpTarget, token: string, organizationId: number, name: string): Promise<string> {
  const res = await l.http.post('/ai/tenant').set(bearer(token)).send({ name, organizationId }).expect(200);
  return res.body.id as string;
}

export async function listDocs(l: HttpTarget, token: string, tenantId: string): Promise<Array<Record<string, unknown>>> {
  const res = await l.http.get(`/ai/docs?TenantId=${encodeURIComponent(tenantId)}`).set(bearer(token)).expect(200);
  return res.body;
}

async function filesUnder(dir: string, prefix = ''): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: string[] = [];
  for (const e of entries) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await filesUnder(join(dir, e.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

/** Every object file of the blob store (keys relative to dataDir/blobs), its `.tmp` folder excluded. */
export async function blobKeys(l: Lantern): Promise<string[]> {
  return (await filesUnder(join(l.dataDir, 'blobs'))).filter((k) => !k.startsWith('.tmp/'));
}

/** The files left in the blob store's temp folder. */
export async function tempFiles(l: Lantern): Promise<string[]> {
  return filesUnder(join(l.dataDir, 'blobs', '.tmp'));
}

/** The object file of a document, per the contract's key `tenants/{tenantId}/documents/{documentId}`. */
export const objectPath = (l: Lantern, tenantId: string, documentId: string): string =>
  join(l.dataDir, 'blobs', 'tenants', tenantId, 'documents', documentId);

/** Asserts that an upload left nothing behind: no object, no temp file, no record. */
export async function expectNothingKept(l: Lantern, token: string, tenantId: string, before: { keys: string[]; docs: unknown[] }): Promise<void> {
  expect(await blobKeys(l)).toEqual(before.keys);
  expect(await tempFiles(l)).toEqual([]);
  expect(await listDocs(l, token, tenantId)).toEqual(before.docs);
}

export async function snapshot(l: Lantern, token: string, tenantId: string): Promise<{ keys: string[]; docs: unknown[] }> {
  return { keys: await blobKeys(l), docs: await listDocs(l, token, tenantId) };
}
