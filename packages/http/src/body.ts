import type { IncomingHttpHeaders } from 'node:http';
import { errors, findUnsafe, limits } from '@lantern/domain';
import express, { type RequestHandler } from 'express';
import { nestedDeeperThan } from './json-depth.js';

/** True when the Content-Type is exactly application/json (parameters such as charset are fine). */
export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

export interface JsonBodyOptions {
  limit: number;
  /** Reject prototype keys, `$` operator keys and over-long strings anywhere in the body. */
  checkSafety?: boolean;
  /** A request without a body gets `{}` instead of a 400. */
  optional?: boolean;
  /** Deepest nesting of arrays and objects, checked on the raw bytes before parsing (default `limits.maxJsonDepth`). */
  maxDepth?: number;
}

/** The charsets a JSON body may declare: UTF-8 only (RFC 8259), so the raw depth scan reads the bytes right. */
const isUtf8 = (charset: string | undefined) => charset === undefined || charset === 'utf-8' || charset === 'utf8';

/**
 * Parses a JSON body: 415 unless `Content-Type: application/json` (UTF-8), 413 over `limit` (measured after
 * gzip/deflate decoding), 400 `validation_failed` when nested deeper than `maxDepth` (found by a linear scan of
 * the raw bytes, before JSON.parse runs), 400 `invalid_json` when malformed or absent, 400 `validation_failed`
 * when unsafe, 400 `validation_failed` when it is not a JSON object (every body of the API is one: `null`, an
 * array, a number, a string or a boolean is refused even where the body is optional).
 */
export function jsonBody({ limit, checkSafety = true, optional = false, maxDepth = limits.maxJsonDepth }: JsonBodyOptions): RequestHandler {
  const parse = express.json({
    limit, strict: false, type: () => true, inflate: true,
    // body-parser calls this with the whole decoded body before JSON.parse; what it throws is the answer.
    verify: (_req, _res, buf, encoding) => {
      if (!isUtf8(encoding?.toLowerCase())) throw Object.assign(new Error('charset'), { type: 'charset.unsupported' });
      if (nestedDeeperThan(buf, maxDepth)) {
        throw errors.validation(`The request body is nested deeper than ${maxDepth} levels of arrays and objects.`, [{ path: '/', maxDepth }]);
      }
    },
  });
  return (req, res, next) => {
    if (!hasBody(req.headers)) {
      if (optional) {
        req.body = {};
        return next();
      }
      return next(errors.invalidJson('The request body is empty: send a JSON object.'));
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      return next(errors.unsupportedMedia('Send the body as JSON with "Content-Type: application/json".'));
    }
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      const body: unknown = req.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        const found = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
        return next(errors.validation(`The request body must be a JSON object, not ${found}.`, [{ path: '/', message: 'must be object' }]));
      }
      if (checkSafety) {
        const unsafe = findUnsafe(req.body);
        if (unsafe) return next(errors.validation(`The request body is invalid: ${unsafe}`, [{ path: unsafe.split(' ')[0], message: unsafe }]));
      }
      next();
    });
  };
}
