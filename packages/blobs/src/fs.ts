import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '@lantern/domain';
import { assertValidDownloadTtl, sizeMismatch, type BlobStore } from './port.js';

const TMP_DIR = '.tmp';
const MAX_KEY_LENGTH = 512;
/** A file name's limit on common filesystems (NAME_MAX). */
const MAX_SEGMENT_LENGTH = 255;
const KEY_CHARS = /^[A-Za-z0-9._/-]+$/;
/** Temp files older than this are leftovers of a crashed process and are swept when a store opens. */
const STALE_TMP_MS = 60 * 60 * 1000;

/**
 * Throws (a plain Error: keys are made by the service, so a bad one is a programming error) unless `key`
 * is 1-512 chars of `[A-Za-z0-9._/-]`, has no leading `/`, no empty, `.` or `..` segment, no segment over
 * 255 chars (a file name's limit), and does not
 * reach into the store's own `.tmp/` folder.
 */
export function assertValidKey(key: string): void {
  const bad = (why: string): never => {
    throw new Error(`Invalid blob key ${JSON.stringify(key.slice(0, 80))}: ${why}`);
  };
  if (typeof key !== 'string' || key.length === 0) bad('empty');
  if (key.length > MAX_KEY_LENGTH) bad(`longer than ${MAX_KEY_LENGTH} characters`);
  if (!KEY_CHARS.test(key)) bad('only A-Z a-z 0-9 . _ / - are allowed');
  if (key.startsWith('/')) bad('leading "/"');
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) bad('empty, "." or ".." segment');
  if (segments.some((s) => s.length > MAX_SEGMENT_LENGTH)) bad(`a segment longer than ${MAX_SEGMENT_LENGTH} characters`);
  if (segments[0] === TMP_DIR) bad(`"${TMP_DIR}/" is reserved`);
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The blob store on a local folder (development, single node). An object is the file `root/{key}`.
 * `put` streams into `root/.tmp/{uuid}` (flushed to disk) and renames it into place, so a reader sees the
 * old object or the whole new one, never a part; a failed upload removes its temp file.
 * Limitation of a filesystem: a key cannot also be a "folder" of another key (`a/b` and `a/b/c`).
 */
export async function createFsBlobStore({ root }: { root: string }): Promise<BlobStore> {
  const tmpDir = join(root, TMP_DIR);
  await mkdir(tmpDir, { recursive: true });
  await sweepStaleTemps(tmpDir);
  const pathOf = (key: string): string => {
    assertValidKey(key);
    return join(root, ...key.split('/'));
  };

  const exists = async (key: string): Promise<boolean> => {
    try {
      return (await stat(pathOf(key))).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  };

  return {
    async put(key, body: Readable, meta) {
      const target = pathOf(key);
      const tmp = join(tmpDir, `${randomUUID()}.part`);
      const out = createWriteStream(tmp, { flags: 'wx', flush: true });
      try {
        // Attached at once (no await before it), so an early body error is never left unhandled.
        await pipeline(body, out);
        if (meta.size !== undefined && out.bytesWritten !== meta.size) throw sizeMismatch(meta.size, String(out.bytesWritten));
        await mkdir(dirname(target), { recursive: true });
        await rename(tmp, target);
        return { size: out.bytesWritten };
      } catch (err) {
        // pipeline rejects without waiting for the file stream to close, and a stream destroyed while its open() is
        // still pending creates the file afterwards: removed before that, the temp file would stay for good (a body
        // cut off at once did that under load). So the stream is closed first.
        if (!out.closed) await new Promise<void>((resolve) => out.once('close', () => resolve()));
        await rm(tmp, { force: true }).catch(() => undefined);
        throw err;
      }
    },

    async get(key) {
      const path = pathOf(key);
      let handle;
      try {
        handle = await open(path, 'r');
      } catch (err) {
        if (isMissing(err)) throw errors.notFound('object');
        throw err;
      }
      const info = await handle.stat().catch(async (err: unknown) => {
        await handle.close();
        throw err;
      });
      if (!info.isFile()) {
        await handle.close();
        throw errors.notFound('object');
      }
      return handle.createReadStream(); // closes the handle when it ends or is destroyed
    },

    exists,

    /** No links to a local folder: the service streams the object (`get`) itself. */
    async downloadUrl(key, ttlSeconds) {
      assertValidDownloadTtl(ttlSeconds);
      if (!(await exists(key))) throw errors.notFound('object');
      return undefined;
    },

    async delete(key) {
      const path = pathOf(key);
      try {
        if ((await stat(path)).isFile()) await rm(path, { force: true });
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    },

    async ping() {
      const probe = join(tmpDir, `ping-${randomUUID()}`);
      try {
        await writeFile(probe, '');
        await rm(probe, { force: true });
      } catch {
        throw errors.unavailable('object storage');
      }
    },

    async close() {},
  };
}

async function sweepStaleTemps(tmpDir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(tmpDir)) {
    const path = tmpDir + sep + name;
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && now - info.mtimeMs > STALE_TMP_MS) await rm(path, { force: true }).catch(() => undefined);
  }
}
