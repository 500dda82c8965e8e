import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { BlobStore } from '../port.js';

export interface BlobStoreFixture {
  blobs: BlobStore;
  cleanup?: () => Promise<void>;
}

/** Reads a whole stream (tests only: the stores themselves never buffer an object). */
export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(parts);
}

/** Deterministic pseudo-random bytes, `total` in all, as a stream of `chunkSize` chunks; `sha256` of them all. */
export function patternStream(total: number, chunkSize: number): { stream: Readable; sha256: string } {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let x = 0x9e3779b9;
  for (let done = 0; done < total; done += chunkSize) {
    const chunk = Buffer.alloc(Math.min(chunkSize, total - done));
    for (let i = 0; i < chunk.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      chunk[i] = x & 0xff;
    }
    hash.update(chunk);
    chunks.push(chunk);
  }
  return { stream: Readable.from(chunks), sha256: hash.digest('hex') };
}

/** A body that yields `goodChunks` chunks, then fails as a dropped client connection would. */
export function failingStream(goodChunks: number, chunkSize = 64 * 1024): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent++ < goodChunks) this.push(Buffer.alloc(chunkSize, 0x61));
      else setImmediate(() => this.destroy(new Error('client went away')));
    },
  });
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const octets = { contentType: 'application/octet-stream' };

/**
 * The blob-store contract: every adapter (filesystem, MinIO/S3) passes this same suite, written against
 * the port only. Keys are unique per run, so a shared bucket can be used.
 */
export function describeBlobStoreContract(name: string, open: () => Promise<BlobStoreFixture>): void {
  describe(`blob store contract: ${name}`, () => {
    let fx: BlobStoreFixture;
    const run = `contract-${randomUUID()}`;
    const key = (k: string): string => `${run}/${k}`;
    beforeAll(async () => {
      fx = await open();
    });
    afterAll(async () => {
      await fx?.blobs.close().catch(() => undefined);
      await fx?.cleanup?.();
    });

    it('answers ping', async () => {
      await expect(fx.blobs.ping()).resolves.toBeUndefined();
    });

    it('round-trips bytes exactly and returns the size', async () => {
      const bytes = Buffer.from([...Array(256).keys(), ...Buffer.from('Zürich 東京\r\n\0')]);
      await expect(fx.blobs.put(key('small'), Readable.from([bytes]), octets)).resolves.toEqual({ size: bytes.length });
      expect(await readAll(await fx.blobs.get(key('small')))).toEqual(bytes);
    });

    it('round-trips a multi-MiB body fed as many chunks', async () => {
      const total = 6 * 1024 * 1024 + 123;
      const body = patternStream(total, 16 * 1024 + 7);
      await expect(fx.blobs.put(key('big.bin'), body.stream, octets)).resolves.toEqual({ size: total });
      const back = await readAll(await fx.blobs.get(key('big.bin')));
      expect(back.length).toBe(total);
      expect(sha256(back)).toBe(body.sha256);
    });

    it('stores an empty body', async () => {
      await expect(fx.blobs.put(key('empty'), Readable.from([]), octets)).resolves.toEqual({ size: 0 });
      expect((await readAll(await fx.blobs.get(key('empty')))).length).toBe(0);
    });

    it('replaces an object on overwrite', async () => {
      await fx.blobs.put(key('over'), Readable.from([Buffer.from('a much longer first version')]), octets);
      await expect(fx.blobs.put(key('over'), Readable.from([Buffer.from('v2')]), octets)).resolves.toEqual({ size: 2 });
      expect((await readAll(await fx.blobs.get(key('over')))).toString()).toBe('v2');
    });

    it('rejects get of a missing key with 404 not_found', async () => {
      await expect(fx.blobs.get(key('never-written'))).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });

    it('tells whether an object exists, and delete removes it', async () => {
      expect(await fx.blobs.exists(key('del'))).toBe(false);
      await fx.blobs.put(key('del'), Readable.from([Buffer.from('x')]), octets);
      expect(await fx.blobs.exists(key('del'))).toBe(true);
      await fx.blobs.delete(key('del'));
      expect(await fx.blobs.exists(key('del'))).toBe(false);
      await expect(fx.blobs.get(key('del'))).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });

    it('deletes idempotently: twice, or a key never written', async () => {
      await fx.blobs.put(key('twice'), Readable.from([Buffer.from('x')]), octets);
      await fx.blobs.delete(key('twice'));
      await expect(fx.blobs.delete(key('twice'))).resolves.toBeUndefined();
      await expect(fx.blobs.delete(key('no/such/object'))).resolves.toBeUndefined();
    });

    it('rejects a put whose body fails midway and leaves no object at the key', async () => {
      await expect(fx.blobs.put(key('broken'), failingStream(20), octets)).rejects.toThrow();
      expect(await fx.blobs.exists(key('broken'))).toBe(false);
      await expect(fx.blobs.get(key('broken'))).rejects.toMatchObject({ status: 404 });
    });

    it('rejects a put whose body fails after several MiB (past any part size) and leaves no object', async () => {
      await expect(fx.blobs.put(key('broken-late'), failingStream(160), octets)).rejects.toThrow('client went away');
      expect(await fx.blobs.exists(key('broken-late'))).toBe(false);
    });

    it('refuses a body longer or shorter than its announced size, storing nothing', async () => {
      const body = (): Readable => Readable.from([Buffer.from('12345')]);
      await expect(fx.blobs.put(key('sized'), body(), { ...octets, size: 4 })).rejects.toMatchObject({ status: 400 });
      await expect(fx.blobs.put(key('sized'), body(), { ...octets, size: 6 })).rejects.toMatchObject({ status: 400 });
      expect(await fx.blobs.exists(key('sized'))).toBe(false);
      await expect(fx.blobs.put(key('sized'), body(), { ...octets, size: 5 })).resolves.toEqual({ size: 5 });
    });

    it('ends concurrent puts to one key with one of them whole, never a mix', async () => {
      const a = patternStream(3 * 1024 * 1024, 64 * 1024);
      const b = Buffer.alloc(3 * 1024 * 1024, 0x62);
      await Promise.all([fx.blobs.put(key('race'), a.stream, octets), fx.blobs.put(key('race'), Readable.from([b]), octets)]);
      const back = sha256(await readAll(await fx.blobs.get(key('race'))));
      expect([a.sha256, sha256(b)]).toContain(back);
    });

    it('stays usable after a reader stops early', async () => {
      const body = patternStream(2 * 1024 * 1024, 64 * 1024);
      await fx.blobs.put(key('partial-read'), body.stream, octets);
      for (let i = 0; i < 3; i++) {
        const stream = await fx.blobs.get(key('partial-read'));
        for await (const chunk of stream) {
          expect((chunk as Buffer).length).toBeGreaterThan(0);
          break; // destroys the stream
        }
      }
      expect(sha256(await readAll(await fx.blobs.get(key('partial-read'))))).toBe(body.sha256);
      await expect(fx.blobs.ping()).resolves.toBeUndefined();
    });

    it('gives a download link that returns the exact bytes, or none (the service then streams the object)', async () => {
      const bytes = Buffer.from([...Array(256).keys()]);
      await fx.blobs.put(key('linked'), Readable.from([bytes]), octets);
      const url = await fx.blobs.downloadUrl(key('linked'), 60);
      if (url === undefined) return; // the store has no links: get() above is the download path
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes);
    });

    it('rejects a download link for a missing key with 404 not_found', async () => {
      await expect(fx.blobs.downloadUrl(key('never-linked'), 60)).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });

    it('refuses a download link ttl outside 1 s to 7 days', async () => {
      await fx.blobs.put(key('ttl'), Readable.from([Buffer.from('x')]), octets);
      for (const ttl of [0, -1, 1.5, 7 * 24 * 3600 + 1, Number.NaN]) {
        await expect(fx.blobs.downloadUrl(key('ttl'), ttl)).rejects.toThrow(RangeError);
      }
      await expect(fx.blobs.downloadUrl(key('ttl'), 7 * 24 * 3600)).resolves.not.toThrow();
    });

    it('keeps the previous object when a replacing put fails', async () => {
      await fx.blobs.put(key('keep'), Readable.from([Buffer.from('intact')]), octets);
      await expect(fx.blobs.put(key('keep'), failingStream(5), octets)).rejects.toThrow();
      expect((await readAll(await fx.blobs.get(key('keep')))).toString()).toBe('intact');
    });

    it.each([
      ['a .. segment', 'tenants/../../etc/passwd'],
      ['a leading slash', '/etc/passwd'],
      ['an empty segment', 'a//b'],
      ['a space', 'a b'],
      ['513 characters', 'k'.repeat(513)],
    ])('refuses %s as a key in every method, download links included', async (_what, bad) => {
      await expect(fx.blobs.put(bad, Readable.from([Buffer.from('x')]), octets)).rejects.toThrow(/Invalid blob key/);
      await expect(fx.blobs.get(bad)).rejects.toThrow(/Invalid blob key/);
      await expect(fx.blobs.exists(bad)).rejects.toThrow(/Invalid blob key/);
      await expect(fx.blobs.delete(bad)).rejects.toThrow(/Invalid blob key/);
      await expect(fx.blobs.downloadUrl(bad, 60)).rejects.toThrow(/Invalid blob key/);
    });

    it('accepts a 512-character key and dots inside names', async () => {
      const long = key(`${'k'.repeat(512 - run.length - 259)}/${'v'.repeat(255)}/w`);
      expect(long).toHaveLength(512);
      await fx.blobs.put(long, Readable.from([Buffer.from('x')]), octets);
      expect((await readAll(await fx.blobs.get(long))).toString()).toBe('x');
      await fx.blobs.put(key('a/.hidden/v1.2..3'), Readable.from([Buffer.from('y')]), octets);
      expect((await readAll(await fx.blobs.get(key('a/.hidden/v1.2..3')))).toString()).toBe('y');
    });

    it('handles keys with slashes, each object on its own', async () => {
      const a = key('tenants/t-1/documents/d-1');
      const b = key('tenants/t-1/documents/d-2');
      await fx.blobs.put(a, Readable.from([Buffer.from('one')]), { contentType: 'text/plain', size: 3 });
      await fx.blobs.put(b, Readable.from([Buffer.from('two')]), { contentType: 'text/plain', size: 3 });
      await fx.blobs.delete(a);
      expect(await fx.blobs.exists(a)).toBe(false);
      expect((await readAll(await fx.blobs.get(b))).toString()).toBe('two');
      expect(await fx.blobs.exists(key('tenants/t-1'))).toBe(false);
    });
  });
}
