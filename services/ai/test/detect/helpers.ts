import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { createUploadInspector, type InspectionResult } from '../../src/detect/index.js';

/**
 * The document fixtures: a copy, kept in the repository so that a clean clone tests on its own, of the
 * team's shared/fixtures/documents (real files made by LibreOffice, pandoc and qpdf; see its README.md).
 */
export function fixturesDir(): string {
  return fileURLToPath(new URL('../fixtures/documents/', import.meta.url));
}

export function* chunksOf(bytes: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** Streams `bytes` through a real inspector in `chunkSize` chunks; returns its result and what came out. */
export async function inspect(bytes: Buffer, chunkSize = 1000): Promise<{ result: InspectionResult; output: Buffer }> {
  const inspector = createUploadInspector();
  const out: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk);
      cb();
    },
  });
  await pipeline(Readable.from(chunksOf(bytes, chunkSize)), inspector, sink);
  return { result: inspector.result(), output: Buffer.concat(out) };
}

/** A ZIP of stored (uncompressed) entries, with central directory and End Of Central Directory record. */
export function makeZip(entries: { name: string; data?: string | Buffer }[], comment = ''): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.data ?? '');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  eocd.writeUInt16LE(Buffer.byteLength(comment), 20);
  return Buffer.concat([...locals, cd, eocd, Buffer.from(comment)]);
}
