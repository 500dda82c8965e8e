import { errors, isUuid, longerThan, parseIntegerText, parsePositiveInt, parseTimestamp } from '@lantern/domain';
import type { Request } from 'express';

/**
 * True when the query names the parameter in the bracket syntax (`a[$gt]=`, `a[]=`, `a[0]=`). The query parser
 * is the simple one, so such a key arrives as the literal text `a[$gt]`, beside an absent `a`: left alone, an
 * optional filter sent as an operator would be silently dropped and the read would answer a wider set. (A
 * required parameter given only in that form is missing_parameter, see requiredText.)
 */
function bracketed(query: Record<string, unknown>, name: string): boolean {
  const prefix = `${name}[`;
  return Object.keys(query).some((k) => k.startsWith(prefix));
}

/** A query parameter as one string of at most `maxLength` code points (as JSON Schema counts), or undefined. Repeated (`?a=1&a=2`) or nested (`a[$gt]=`) is 400. */
export function queryText(req: Request, name: string, maxLength = 1024): string | undefined {
  const query = req.query as Record<string, unknown>;
  if (bracketed(query, name)) {
    throw errors.validation(`The query parameter "${name}" must be given once, as text: operators and the bracket syntax (${name}[...]) are not accepted.`, [{ parameter: name }]);
  }
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw errors.validation(`The query parameter "${name}" must be given once, as text.`, [{ parameter: name }]);
  if (longerThan(value, maxLength)) throw errors.validation(`The query parameter "${name}" is too long.`, [{ parameter: name }]);
  return value;
}

/**
 * A repeatable query parameter (`?a=1&a=2`): its values in order, each at most `maxLength` code points, at most
 * `maxItems` of them; undefined when absent. The bracket syntax (`a[]=`) is 400, as for queryText.
 */
export function queryTexts(req: Request, name: string, maxItems: number, maxLength = 1024): string[] | undefined {
  const query = req.query as Record<string, unknown>;
  if (bracketed(query, name)) {
    throw errors.validation(`The query parameter "${name}" must be repeated as text (${name}=...&${name}=...): the bracket syntax (${name}[...]) is not accepted.`, [{ parameter: name }]);
  }
  const value = query[name];
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  if (values.length > maxItems) throw errors.validation(`The query parameter "${name}" may be given at most ${maxItems} times.`, [{ parameter: name }]);
  for (const v of values) {
    if (typeof v !== 'string') throw errors.validation(`The query parameter "${name}" must be text.`, [{ parameter: name }]);
    if (longerThan(v, maxLength)) throw errors.validation(`The query parameter "${name}" is too long.`, [{ parameter: name }]);
  }
  return values as string[];
}

export function requiredText(req: Request, name: string): string {
  // Only the bracket form (`?id[$gt]=1`) given: the parameter itself is absent.
  if ((req.query as Record<string, unknown>)[name] === undefined) throw errors.missingParameter(name);
  const v = queryText(req, name);
  if (v === undefined || v === '') throw errors.missingParameter(name);
  return v;
}

/**
 * A positive integer id parameter (organizations, projects, applications), read as the OpenAPI schema's `integer`
 * (minimum 1, maximum 2^53-1) reads a number: `7` and `7.0` are 7 (JSON Schema counts 7.0 an integer); `7.5`, `+7`,
 * `07`, `7e0`, `0` are 400 (plain decimal only). Present but empty (`?id=`) is refused too, as for every optional parameter here: an empty value
 * is not one of the values the schema allows, and dropping it silently would answer a wider read.
 */
export function queryId(req: Request, name: string, required: true): number;
export function queryId(req: Request, name: string, required?: false): number | undefined;
export function queryId(req: Request, name: string, required = false): number | undefined {
  const raw = required ? requiredText(req, name) : queryText(req, name);
  if (raw === undefined) return undefined;
  const id = parsePositiveInt(raw);
  if (id === null) throw errors.validation(`The query parameter "${name}" must be a positive integer id.`, [{ parameter: name }]);
  return id;
}

/** A path parameter id of an integer-keyed resource; anything else is 404, like a resource that does not exist. */
export function pathId(value: string | undefined, what: string): number {
  const id = parsePositiveInt(value);
  if (id === null) throw errors.notFound(what);
  return id;
}

/** A UUID record id from the path (a user, an invitation), lower-cased; anything else names nothing: 404. */
export function pathUuid(value: string | undefined, what: string): string {
  if (!isUuid(value)) throw errors.notFound(what);
  return value.toLowerCase();
}

export function queryTime(req: Request, name: string): number | undefined {
  const raw = queryText(req, name, 64);
  if (raw === undefined) return undefined;
  const ms = parseTimestamp(raw);
  if (ms === null) throw errors.validation(`The query parameter "${name}" must be an ISO 8601 date-time with an offset.`, [{ parameter: name }]);
  return ms;
}

export function queryInt(req: Request, name: string, min: number, max: number): number | undefined {
  const raw = queryText(req, name, 32);
  if (raw === undefined) return undefined;
  const n = parseIntegerText(raw, min, max);
  if (n === null)
    throw errors.validation(`The query parameter "${name}" must be a whole number from ${min} to ${max}.`, [{ parameter: name }]);
  return n;
}
