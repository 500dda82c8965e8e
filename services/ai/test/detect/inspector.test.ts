import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from '@jest/globals';
import { HEAD_BYTES, TAIL_BYTES, createUploadInspector } from '../../src/detect/index.js';
import { inspect } from './helpers.js';

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('upload inspector', () => {
  it.each([1, 1000, 8191, 65536, 65537, 200_000])(
    'passes bytes through and keeps size, sha256, first 8 KiB and last 64 KiB (chunks of %i)',
    async (chunkSize) => {
      const bytes = randomBytes(chunkSize === 1 ? 70_000 : 150_001);
      const { result, output } = await inspect(bytes, chunkSize);
      expect(output.equals(bytes)).toBe(true);
      expect(result.size).toBe(bytes.length);
      expect(result.sha256).toBe(sha256(bytes));
      expect(result.head.equals(bytes.subarray(0, HEAD_BYTES))).toBe(true);
      expect(result.tail.equals(bytes.subarray(bytes.length - TAIL_BYTES))).toBe(true);
    },
  );

  it('keeps the whole of a small stream as head and tail', async () => {
    const bytes = Buffer.from('hello, world\n');
    const { result } = await inspect(bytes, 3);
    expect(result.head.toString()).toBe('hello, world\n');
    expect(result.tail.toString()).toBe('hello, world\n');
  });

  it('gives empty buffers and the empty hash for an empty stream', async () => {
    const { result } = await inspect(Buffer.alloc(0));
    expect(result).toMatchObject({ size: 0, sha256: sha256(Buffer.alloc(0)) });
    expect(result.head.length + result.tail.length).toBe(0);
    expect(result.text).toEqual({ hasNul: false, controlChars: 0, validUtf8: true });
  });

  it('counts C0 control characters except \\t \\n \\f \\r, and notes a NUL', async () => {
    const { result } = await inspect(Buffer.from('a\tb\nc\rd\fe\x1b[0m\x07\x7f\0'), 2);
    expect(result.text).toEqual({ hasNul: true, controlChars: 3, validUtf8: true });
  });

  it('checks UTF-8 across chunk boundaries', async () => {
    const text = Buffer.from('Zürich 東京 🚀 naïve\n'.repeat(50));
    for (const size of [1, 2, 3, 5, 7]) expect((await inspect(text, size)).result.text.validUtf8).toBe(true);
    expect((await inspect(Buffer.from('\ufeffwith a BOM'), 1)).result.text.validUtf8).toBe(true);
  });

  it('finds invalid UTF-8: a Latin-1 byte, an overlong form, a sequence cut at the end', async () => {
    expect((await inspect(Buffer.from('Caf\xe9 ok', 'latin1'), 1)).result.text.validUtf8).toBe(false);
    expect((await inspect(Buffer.from([0x41, 0xc0, 0xaf, 0x41]), 1)).result.text.validUtf8).toBe(false);
    expect((await inspect(Buffer.from('東京').subarray(0, 5), 1)).result.text.validUtf8).toBe(false);
    const lateError = Buffer.concat([Buffer.alloc(100_000, 0x61), Buffer.from([0xff]), Buffer.alloc(10, 0x61)]);
    expect((await inspect(lateError)).result.text.validUtf8).toBe(false);
  });

  it('refuses result() before the stream has ended', () => {
    expect(() => createUploadInspector().result()).toThrow(/before the stream ended/);
  });

  it('keeps its retained memory bounded (8 KiB head + 64 KiB tail) over a 10 MiB stream', async () => {
    const total = 10 * 1024 * 1024;
    const chunk = 64 * 1024 + 17;
    const inspector = createUploadInspector();
    const hash = createHash('sha256');
    let last = Buffer.alloc(0);
    let maxRetained = 0;
    async function* source(): AsyncGenerator<Buffer> {
      for (let sent = 0, n = 0; sent < total; n++) {
        const piece = Buffer.alloc(Math.min(chunk, total - sent), n % 251);
        hash.update(piece);
        last = Buffer.concat([last, piece]).subarray(-TAIL_BYTES);
        sent += piece.length;
        yield piece;
        maxRetained = Math.max(maxRetained, inspector.retainedBytes);
      }
    }
    const sink = new Writable({ write: (_c, _e, cb) => cb() });
    await pipeline(Readable.from(source()), inspector, sink);
    const result = inspector.result();
    expect(maxRetained).toBeLessThanOrEqual(HEAD_BYTES + TAIL_BYTES);
    expect(inspector.retainedBytes).toBe(HEAD_BYTES + TAIL_BYTES);
    expect(result.size).toBe(total);
    expect(result.sha256).toBe(hash.digest('hex'));
    expect(result.head.length).toBe(HEAD_BYTES);
    expect(result.tail.length).toBe(TAIL_BYTES);
    expect(result.tail.equals(last)).toBe(true);
    // The results own small buffers: they do not pin a large chunk of the stream.
    expect(result.head.buffer.byteLength).toBeLessThanOrEqual(HEAD_BYTES);
    expect(result.tail.buffer.byteLength).toBeLessThanOrEqual(TAIL_BYTES);
  });
});
