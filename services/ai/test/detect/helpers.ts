import { fileURLToPath } from 'node:url';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { zipOf } from '../../../../packages/extract/test/helpers.js';
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
  return zipOf(entries.map((entry) => ({ ...entry, method: 0 })), comment);
}
