import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { TextDecoder } from 'node:util';

export const HEAD_BYTES = 8 * 1024;
export const TAIL_BYTES = 64 * 1024;

export interface TextStats {
  /** Any 0x00 byte. */
  hasNul: boolean;
  /** C0 control bytes other than \t \n \f \r (NUL included). */
  controlChars: number;
  /** The whole byte sequence is valid UTF-8 (a BOM is fine; a sequence cut at the end is not). */
  validUtf8: boolean;
}

export interface InspectionResult {
  size: number;
  /** Hex SHA-256 of all the bytes. */
  sha256: string;
  /** The first min(size, 8 KiB) bytes. */
  head: Buffer;
  /** The last min(size, 64 KiB) bytes. */
  tail: Buffer;
  text: TextStats;
}

/** 1 for the C0 control bytes that count against "text" (all of 0x00-0x1F except \t \n \f \r). */
const CONTROL = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) CONTROL[b] = b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d ? 0 : 1;

/**
 * A pass-through Transform that looks at an upload while it flows to object storage: SHA-256 and size,
 * the first 8 KiB, a rolling last 64 KiB (a ring buffer) and text statistics, all incremental. What it
 * keeps is at most 72 KiB whatever the size of the stream; `result()` is available once it has ended.
 */
export class UploadInspector extends Transform {
  private readonly hash = createHash('sha256');
  private readonly headBuf = Buffer.alloc(HEAD_BYTES);
  private headLen = 0;
  private ring: Buffer | null = null;
  private ringPos = 0;
  private ringFull = false;
  private size = 0;
  private hasNul = false;
  private controlChars = 0;
  private utf8: TextDecoder | null = new TextDecoder('utf-8', { fatal: true });
  private done: InspectionResult | null = null;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.observe(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.checkUtf8(undefined); // a multi-byte sequence left open at the end is invalid
    this.done = {
      size: this.size,
      sha256: this.hash.digest('hex'),
      head: Buffer.from(this.headBuf.subarray(0, this.headLen)),
      tail: this.tailCopy(),
      text: { hasNul: this.hasNul, controlChars: this.controlChars, validUtf8: this.utf8 !== null },
    };
    callback();
  }

  /** What the stream held; throws if called before the stream has ended. */
  result(): InspectionResult {
    if (!this.done) throw new Error('UploadInspector.result() called before the stream ended');
    return this.done;
  }

  /** The bytes this inspector keeps (head and tail buffers), for memory checks: at most 72 KiB. */
  get retainedBytes(): number {
    return this.headBuf.length + (this.ring?.length ?? 0);
  }

  private observe(chunk: Buffer): void {
    this.size += chunk.length;
    this.hash.update(chunk);
    if (this.headLen < HEAD_BYTES) this.headLen += chunk.copy(this.headBuf, this.headLen, 0, HEAD_BYTES - this.headLen);
    this.keepTail(chunk);
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (CONTROL[b]) {
        this.controlChars++;
        if (b === 0) this.hasNul = true;
      }
    }
    this.checkUtf8(chunk);
  }

  private checkUtf8(chunk: Buffer | undefined): void {
    if (!this.utf8) return;
    try {
      if (chunk) this.utf8.decode(chunk, { stream: true });
      else this.utf8.decode();
    } catch {
      this.utf8 = null; // invalid once is invalid for good: stop decoding
    }
  }

  private keepTail(chunk: Buffer): void {
    const ring = (this.ring ??= Buffer.alloc(TAIL_BYTES));
    if (chunk.length >= TAIL_BYTES) {
      chunk.copy(ring, 0, chunk.length - TAIL_BYTES);
      this.ringPos = 0;
      this.ringFull = true;
      return;
    }
    const first = chunk.copy(ring, this.ringPos, 0, Math.min(chunk.length, TAIL_BYTES - this.ringPos));
    chunk.copy(ring, 0, first);
    const end = this.ringPos + chunk.length;
    if (end >= TAIL_BYTES) this.ringFull = true;
    this.ringPos = end % TAIL_BYTES;
  }

  private tailCopy(): Buffer {
    if (!this.ring) return Buffer.alloc(0);
    if (!this.ringFull) return Buffer.from(this.ring.subarray(0, this.ringPos));
    return Buffer.concat([this.ring.subarray(this.ringPos), this.ring.subarray(0, this.ringPos)]);
  }
}

export function createUploadInspector(): UploadInspector {
  return new UploadInspector();
}
