import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { errors } from '@lantern/domain';
import type { OtlpEncoding } from '@lantern/otlp';
import type { Request } from 'express';

/** The encoding a Content-Type names (parameters such as charset are fine), or undefined for any other type. */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  return undefined;
}

/** The OTLP/HTTP encoding of a request, or 415. */
export function requireEncoding(req: Request): OtlpEncoding {
  const header = req.headers['content-type'];
  const encoding = encodingOf(header);
  if (!encoding) throw errors.unsupportedMedia('Send OTLP as "Content-Type: application/x-protobuf" or "application/json".');
  // JSON is UTF-8 (RFC 8259), as on every JSON endpoint: the depth scan reads the raw bytes as such.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(header ?? '')?.[1]?.toLowerCase();
  if (encoding === 'json' && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw errors.unsupportedMedia('Unsupported charset: send UTF-8 JSON.');
  }
  return encoding;
}

function decoderOf(contentEncoding: string | undefined): Gunzip | Inflate | undefined {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return undefined;
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip();
  if (coding === 'deflate') return createInflate();
  throw errors.unsupportedMedia('Unsupported Content-Encoding: send identity, gzip or deflate.');
}

const ignore = (): void => undefined;

const tooLarge = (limit: number) => errors.tooLarge(`The request body is larger than ${limit} bytes once decompressed; send smaller batches.`);

/**
 * The request's body, decompressed (gzip, deflate, identity), at most `limit` bytes decoded: the decoded bytes are
 * counted while inflating, so a gzip bomb stops at the limit (413) and is never inflated whole. A corrupt stream is
 * 400, an unknown Content-Encoding 415. On an error the rest of the body is left unread (the answer closes it).
 */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  let decoder: Gunzip | Inflate | undefined;
  try {
    decoder = decoderOf(req.headers['content-encoding']);
  } catch (err) {
    return Promise.reject(err);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let raw = 0;
    let decoded = 0;
    let settled = false;
    const cleanup = () => {
      req.off('data', onRaw);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (decoder) {
        decoder.off('data', onDecoded);
        decoder.off('end', onDecodedEnd);
        decoder.off('error', onInflateError);
        // What a destroyed inflater or a closing request may still emit has no one to tell: kept from the process.
        decoder.on('error', ignore);
      }
      req.on('error', ignore);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      cleanup();
      decoder?.destroy();
      req.pause();
      reject(err);
    };
    const succeed = () => {
      if (settled) return;
      settled = true;
      cleanup();
      resolve(Buffer.concat(chunks, decoded));
    };
    const onDecoded = (chunk: Buffer) => {
      decoded += chunk.length;
      if (decoded > limit) return fail(tooLarge(limit));
      chunks.push(chunk);
    };
    const onRaw = (chunk: Buffer) => {
      raw += chunk.length;
      if (raw > limit) return fail(tooLarge(limit));
      if (!decoder) return onDecoded(chunk);
      if (!decoder.write(chunk)) {
        req.pause();
        decoder.once('drain', () => {
          if (!settled) req.resume();
        });
      }
    };
    const onEnd = () => (decoder ? decoder.end() : succeed());
    const onDecodedEnd = () => succeed();
    const onError = () => fail(errors.validation('The request body ended before its declared length.'));
    const onAborted = onError;
    const onInflateError = () => fail(errors.validation('The request body could not be decompressed: it is not valid for its Content-Encoding.'));
    req.on('data', onRaw);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
    if (decoder) {
      decoder.on('data', onDecoded);
      decoder.on('end', onDecodedEnd);
      decoder.on('error', onInflateError);
    }
  });
}
