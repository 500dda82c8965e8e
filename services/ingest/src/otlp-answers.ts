import type { AppError } from '@lantern/domain';
import type { ErrorRenderer } from '@lantern/http';
import { encodeExportResponse, encodeStatus, grpcCodeOf, type OtlpEncoding, type OtlpPartialSuccess } from '@lantern/otlp';
import type { Response } from 'express';
import { encodingOf } from './otlp-body.js';

const CONTENT_TYPE: Record<OtlpEncoding, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

function send(res: Response, encoding: OtlpEncoding, body: Uint8Array | string): void {
  res.setHeader('Content-Type', CONTENT_TYPE[encoding]);
  res.send(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}

/** 200 with the Export*ServiceResponse in the request's encoding; partialSuccess when something was rejected. */
export function sendExportResponse(res: Response, signal: 'traces' | 'logs', encoding: OtlpEncoding, partial?: OtlpPartialSuccess): void {
  res.status(200);
  send(res, encoding, encodeExportResponse(signal, encoding, partial));
}

/**
 * Every error of `/v1/*` as a google.rpc.Status (OTLP/HTTP): protobuf when the request was
 * `application/x-protobuf`, else JSON. The error middleware keeps the status and its headers (Retry-After, Allow).
 */
export const otlpErrorRenderer: ErrorRenderer = {
  matches: (req) => req.path.toLowerCase().startsWith('/v1/'),
  render(req, res, error: AppError) {
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    send(res, encoding, encodeStatus(encoding, { code: grpcCodeOf(error.status), message: error.message }));
  },
};
