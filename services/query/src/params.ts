import { errors, isUuid, limits, LOG_LEVELS, MAX_NAME_LENGTH, type LogLevel } from '@lantern/domain';
import { queryId, queryInt, queryText, queryTexts, queryTime } from '@lantern/http';
import type { AttributeFilter, Cursor } from '@lantern/store';
import type { Request } from 'express';

export const MAX_PAGE = 1000;

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.ts, c.id])).toString('base64url');
}

function decodeCursor(raw: string): Cursor {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(v) && Number.isSafeInteger(v[0]) && typeof v[1] === 'string' && v[1].length <= 64) return { ts: v[0], id: v[1] };
  } catch {
    // fall through
  }
  throw errors.validation('The query parameter "cursor" is not a cursor this service issued.', [{ parameter: 'cursor' }]);
}

function statusRange(raw: string | undefined): { min: number; max: number } | undefined {
  if (raw === undefined) return undefined;
  let m = /^([1-5])xx$/i.exec(raw);
  if (m) return { min: Number(m[1]) * 100, max: Number(m[1]) * 100 + 99 };
  m = /^([1-5]\d\d)$/.exec(raw);
  if (m) return { min: Number(m[1]), max: Number(m[1]) };
  throw errors.validation('The query parameter "status" must be a status code (404) or a class (5xx).', [{ parameter: 'status' }]);
}

/**
 * A substring filter's text: 1-200 characters (counted as JSON Schema counts them, by code point), taken
 * literally by the store. Present but empty is 400 like too long: an empty text would silently match everything.
 */
function searchText(req: Request, name: string): string | undefined {
  const text = queryText(req, name, limits.maxSearchLength * 2);
  if (text === undefined) return undefined;
  const length = [...text].length;
  if (length < 1 || length > limits.maxSearchLength) {
    throw errors.validation(`The query parameter "${name}" must be 1 to ${limits.maxSearchLength} characters of text.`, [{ parameter: name }]);
  }
  return text;
}

/** The optional narrowing parameters shared by the trace and log reads (contract.md "Reads"). */
export function commonFilters(req: Request) {
  const from = queryTime(req, 'from');
  const to = queryTime(req, 'to');
  if (from !== undefined && to !== undefined && from >= to) throw errors.validation('"from" must be before "to".', [{ parameter: 'from' }]);
  const traceId = queryText(req, 'traceId', 64);
  if (traceId !== undefined && !isUuid(traceId)) throw errors.validation('The query parameter "traceId" must be a UUID.', [{ parameter: 'traceId' }]);
  const cursor = queryText(req, 'cursor', 256);
  return {
    from,
    to,
    applicationId: queryId(req, 'applicationId'),
    traceId: traceId?.toLowerCase(),
    limit: queryInt(req, 'limit', 1, MAX_PAGE),
    cursor: cursor === undefined ? undefined : decodeCursor(cursor),
  };
}

/**
 * A name filter's text (`service`, `operation`): 1-200 characters, matched exactly (case included) against the
 * names the store keeps (@lantern/domain span-names.ts, which cuts longer names to 200). Counted by code point, as
 * the OpenAPI schema counts.
 */
function nameText(req: Request, name: string): string | undefined {
  const text = queryText(req, name, MAX_NAME_LENGTH * 2);
  if (text === undefined) return undefined;
  const length = [...text].length;
  if (length < 1 || length > MAX_NAME_LENGTH) {
    throw errors.validation(`The query parameter "${name}" must be 1 to ${MAX_NAME_LENGTH} characters.`, [{ parameter: name }]);
  }
  return text;
}

/**
 * `attr`, repeatable (all must hold): `key=value` (the first `=` ends the key; the value is compared as text) or
 * `key` (present, whatever its value). The key is 1 or more characters; the term at most maxAttributeFilterLength.
 */
export function attributeFilters(req: Request): AttributeFilter[] | undefined {
  const terms = queryTexts(req, 'attr', limits.maxAttributeFilters, limits.maxAttributeFilterLength * 2);
  return terms?.map((term) => {
    const length = [...term].length;
    const equals = term.indexOf('=');
    const key = equals < 0 ? term : term.slice(0, equals);
    if (length > limits.maxAttributeFilterLength || key === '') {
      throw errors.validation(`Each "attr" must be key=value or key: a key of 1 or more characters, at most ${limits.maxAttributeFilterLength} characters in all.`, [{ parameter: 'attr' }]);
    }
    return equals < 0 ? { key } : { key, value: term.slice(equals + 1) };
  });
}

export function traceFilters(req: Request) {
  const minDurationMs = queryInt(req, 'minDurationMs', 0, 2_147_483_647);
  const maxDurationMs = queryInt(req, 'maxDurationMs', 0, 2_147_483_647);
  if (minDurationMs !== undefined && maxDurationMs !== undefined && minDurationMs > maxDurationMs) {
    throw errors.validation('"minDurationMs" must not be above "maxDurationMs".', [{ parameter: 'minDurationMs' }]);
  }
  return {
    ...commonFilters(req),
    minDurationMs,
    maxDurationMs,
    status: statusRange(queryText(req, 'status', 8)),
    urlContains: searchText(req, 'url'),
    service: nameText(req, 'service'),
    operation: nameText(req, 'operation'),
    attributes: attributeFilters(req),
  };
}

/** `level`: one level, or several separated by commas (`error,fatal`): a log of any of them. */
export function logLevels(req: Request): LogLevel[] | undefined {
  const raw = queryText(req, 'level', 64);
  if (raw === undefined) return undefined;
  const levels = raw.split(',');
  if (!levels.every((l) => (LOG_LEVELS as readonly string[]).includes(l))) {
    throw errors.validation(`The query parameter "level" must be one of ${LOG_LEVELS.join(', ')}, or several of them separated by commas.`, [{ parameter: 'level' }]);
  }
  return [...new Set(levels)] as LogLevel[];
}

export function logFilters(req: Request) {
  const levels = logLevels(req);
  return {
    ...commonFilters(req),
    ...(levels?.length === 1 ? { level: levels[0] } : { levels }),
    projectId: queryId(req, 'projectId'),
    messageContains: searchText(req, 'q'),
    attributes: attributeFilters(req),
  };
}

/** `key` of GET /logs/facets: 1 to 8 keys (repeated), each 1-200 characters; at least one. */
export function facetKeys(req: Request): string[] {
  const keys = queryTexts(req, 'key', limits.maxAttributeFilters, MAX_NAME_LENGTH * 2);
  if (keys === undefined || keys.length === 0) throw errors.missingParameter('key');
  for (const key of keys) {
    const length = [...key].length;
    if (length < 1 || length > MAX_NAME_LENGTH) throw errors.validation(`Each "key" must be 1 to ${MAX_NAME_LENGTH} characters.`, [{ parameter: 'key' }]);
  }
  return [...new Set(keys)];
}

/** Drops undefined values so they do not override adapter defaults. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
