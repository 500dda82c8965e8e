/**
 * The wire-level pieces the OTLP decoders share, on protobufjs's Reader (varints, fixed32, doubles, UTF-8 strings and
 * the skipping of unknown fields are its own, bounds-checked reads). Ids are read straight from the buffer as hex text,
 * 64-bit integers straight into decimal text: no intermediate Long, Buffer or BigInt on the hot path.
 */
import protobuf from 'protobufjs/minimal.js';
import { OtlpDecodeError } from './errors.js';

export type Reader = protobuf.Reader & { buf: Buffer };

/** A reader over the body, without copying it (a Buffer view of the same memory: ids become hex with Buffer). */
export function openReader(body: Uint8Array): Reader {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return protobuf.Reader.create(buf) as Reader;
}

/** Reads a length prefix and returns where the length-delimited field ends (refusing one past the buffer's end). */
export function fieldEnd(r: Reader, end: number): number {
  const length = r.uint32();
  const fieldEnd = r.pos + length;
  if (fieldEnd > end) throw new OtlpDecodeError(`truncated field: ${length} bytes at offset ${r.pos}, ${end - r.pos} left`);
  return fieldEnd;
}

/** Checks that a message ended exactly at its boundary (a last field running past it is truncated input). */
export function expectEnd(r: Reader, end: number): void {
  if (r.pos !== end) throw new OtlpDecodeError(`truncated message: read to offset ${r.pos}, expected ${end}`);
}

/**
 * Skips a field that the switch of its message did not take: an unknown field (the protobuf rule: skip it), or a known
 * field number (a bit of `known`) arriving with another wire type, which is malformed input.
 */
export function skipField(r: Reader, tag: number, known: number): void {
  const field = tag >>> 3;
  if (field === 0) throw new OtlpDecodeError(`invalid field number 0 at offset ${r.pos}`);
  if (field < 32 && (known >>> field) & 1) throw new OtlpDecodeError(`field ${field} has the wrong wire type ${tag & 7}`);
  r.skipType(tag & 7);
}

/** The bytes field as lower-case hex; '' when empty. */
export function readHex(r: Reader, end: number): string {
  const stop = fieldEnd(r, end);
  const start = r.pos;
  r.pos = stop;
  return start === stop ? '' : r.buf.toString('hex', start, stop);
}

/** The bytes field as base64 ('' when empty). */
export function readBase64(r: Reader, end: number): string {
  const stop = fieldEnd(r, end);
  const start = r.pos;
  r.pos = stop;
  return r.buf.toString('base64', start, stop);
}

/** A fixed64 (the Unix-nanosecond times) as decimal text. */
export function readFixed64Text(r: Reader): string {
  const lo = r.fixed32();
  const hi = r.fixed32();
  return uint64Text(lo, hi);
}

/** A varint int64 (AnyValue.int_value) as signed decimal text. */
export function readInt64Text(r: Reader): string {
  const buf = r.buf;
  let pos = r.pos;
  let lo = 0;
  let hi = 0;
  let b = 0x80;
  let i = 0;
  for (; i < 4 && b & 0x80; i++) {
    if (pos >= r.len) throw new OtlpDecodeError('truncated varint');
    b = buf[pos++]!;
    lo |= (b & 0x7f) << (i * 7);
  }
  if (b & 0x80) {
    if (pos >= r.len) throw new OtlpDecodeError('truncated varint');
    b = buf[pos++]!;
    lo |= (b & 0x0f) << 28;
    hi = (b & 0x7f) >> 4;
    for (i = 0; i < 5 && b & 0x80; i++) {
      if (pos >= r.len) throw new OtlpDecodeError('truncated varint');
      b = buf[pos++]!;
      hi |= (b & 0x7f) << (i * 7 + 3);
    }
    if (b & 0x80) throw new OtlpDecodeError('varint longer than 10 bytes');
  }
  r.pos = pos;
  if (hi & 0x80000000) {
    // Two's complement: the magnitude of the negative value.
    lo = (~lo + 1) >>> 0;
    hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    return '-' + uint64Text(lo, hi);
  }
  return uint64Text(lo, hi);
}

const pad7 = (n: number): string => (n < 1_000_000 ? String(n).padStart(7, '0') : String(n));

/**
 * The unsigned 64-bit integer hi * 2^32 + lo as exact decimal text, with doubles only: below 2^53 directly, else in
 * three base-10^7 digits from 24-bit limbs (2^24 = 1 * 10^7 + 6777216, 2^48 = 28147497 * 10^7 + 6710656).
 */
export function uint64Text(lo: number, hi: number): string {
  lo >>>= 0;
  hi >>>= 0;
  if (hi <= 0x1fffff) return String(hi * 4294967296 + lo);
  const low = lo & 0xffffff;
  const mid = ((lo >>> 24) | (hi << 8)) & 0xffffff;
  const high = (hi >>> 16) & 0xffff;
  let a = low + mid * 6777216 + high * 6710656;
  let b = mid + high * 8147497;
  let c = high * 2;
  if (a >= 10_000_000) {
    b += Math.floor(a / 10_000_000);
    a %= 10_000_000;
  }
  if (b >= 10_000_000) {
    c += Math.floor(b / 10_000_000);
    b %= 10_000_000;
  }
  return String(c) + pad7(b) + pad7(a);
}
