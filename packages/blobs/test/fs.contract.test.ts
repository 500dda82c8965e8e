import { scrypt } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createFsBlobStore, type BlobStore } from '@lantern/blobs';
import { describeBlobStoreContract, failingStream, readAll } from '@lantern/blobs/contract';

const octets = { contentType: 'application/octet-stream' };

describeBlobStoreContract('filesystem', async () => {
  const root = await mkdtemp(join(tmpdir(), 'lantern-blobs-'));
  return { blobs: await createFsBlobStore({ root }), cleanup: () => rm(root, { recursive: true, force: true }) };
});

describe('filesystem blob store', () => {
  let root: string;
  let blobs: BlobStore;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'lantern-blobs-fs-'));
    blobs = await createFsBlobStore({ root });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('stores an object as the file root/{key}', async () => {
    await blobs.put('tenants/t/documents/d', Readable.from([Buffer.from('hello')]), octets);
    expect((await stat(join(root, 'tenants', 't', 'documents', 'd'))).size).toBe(5);
  });

  it('removes its temp file when a put fails, and leaves none after a good put', async () => {
    await expect(blobs.put('failed/upload', failingStream(10), octets)).rejects.toThrow('client went away');
    await blobs.put('good/upload', Readable.from([Buffer.from('ok')]), octets);
    expect(await readdir(join(root, '.tmp'))).toEqual([]);
    await expect(stat(join(root, 'failed', 'upload'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('removes its temp file when the body fails while the file is still being opened or written', async () => {
    // A failed put's temp file stayed for good now and then under load: removed before the file stream had closed,
    // it was made after. Failures at once and after 1-11 chunks, with libuv's threads busy every other time (the
    // temp file's open and writes then wait behind key derivations, as on a loaded machine). A race: without the
    // fix this fails in about one run of five here, not in every run.
    for (let i = 0; i < 120; i++) {
      const busy = i % 2 ? Array.from({ length: 4 }, () => new Promise((resolve) => scrypt('p', 's', 64, { N: 2 ** 12 }, resolve))) : [];
      const body = i % 3 === 0 ? new Readable({ read() {} }) : failingStream(i % 12);
      const put = blobs.put(`cut/${i}`, body, octets);
      if (i % 3 === 0) body.destroy(new Error('client went away'));
      await expect(put).rejects.toThrow('client went away');
      expect([i, await readdir(join(root, '.tmp'))]).toEqual([i, []]);
      await Promise.all(busy);
    }
  });

  it.each([
    ['an empty key', ''],
    ['a leading slash', '/etc/passwd'],
    ['a .. segment', 'tenants/../../etc/passwd'],
    ['a bare ..', '..'],
    ['a . segment', 'a/./b'],
    ['an empty segment', 'a//b'],
    ['a trailing slash', 'a/b/'],
    ['a backslash', 'a\\b'],
    ['a space', 'a b'],
    ['a NUL', 'a\u0000b'],
    ['non-ASCII', 'Zürich'],
    ['the reserved temp folder', '.tmp/x'],
    ['513 characters', `${'k'.repeat(200)}/${'k'.repeat(200)}/${'k'.repeat(111)}`],
    ['a 256-character segment', `a/${'k'.repeat(256)}`],
  ])('rejects %s as a key, in every method', async (_what, bad) => {
    await expect(blobs.put(bad, Readable.from([Buffer.from('x')]), octets)).rejects.toThrow(/Invalid blob key/);
    await expect(blobs.get(bad)).rejects.toThrow(/Invalid blob key/);
    await expect(blobs.exists(bad)).rejects.toThrow(/Invalid blob key/);
    await expect(blobs.delete(bad)).rejects.toThrow(/Invalid blob key/);
  });

  it('accepts a 512-character key and dots inside names', async () => {
    const long = `${'k'.repeat(254)}/${'v'.repeat(255)}/w`;
    expect(long).toHaveLength(512);
    await blobs.put(long, Readable.from([Buffer.from('x')]), octets);
    await blobs.put('a/.hidden/v1.2..3', Readable.from([Buffer.from('y')]), octets);
    expect((await readAll(await blobs.get('a/.hidden/v1.2..3'))).toString()).toBe('y');
  });

  it('answers get of a key that is only a folder with 404', async () => {
    await blobs.put('folder/child', Readable.from([Buffer.from('x')]), octets);
    await expect(blobs.get('folder')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    await blobs.delete('folder');
    expect(await blobs.exists('folder/child')).toBe(true);
  });

  it('sweeps stale temp files of a crashed process when opening', async () => {
    const stale = join(root, '.tmp', 'crashed.part');
    const fresh = join(root, '.tmp', 'in-flight.part');
    await writeFile(stale, 'half');
    await writeFile(fresh, 'half');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(stale, old, old);
    await createFsBlobStore({ root });
    expect(await readdir(join(root, '.tmp'))).toEqual(['in-flight.part']);
    await rm(fresh);
  });

  it('fails ping with 503 when the root is not writable', async () => {
    const gone = await mkdtemp(join(tmpdir(), 'lantern-blobs-gone-'));
    const store = await createFsBlobStore({ root: gone });
    await rm(gone, { recursive: true, force: true });
    await expect(store.ping()).rejects.toMatchObject({ status: 503, code: 'unavailable' });
  });
});
