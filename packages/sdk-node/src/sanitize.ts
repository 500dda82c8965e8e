/**
 * Makes application-supplied fields acceptable to the ingest service, so that an item is never refused for its
 * extra fields: strings cut to 65,536 characters, keys without a leading `$`, dots or NUL, no prototype keys,
 * nesting cut before the service's 16 levels, cycles, BigInt, functions and Errors turned into JSON.
 */

export const MAX_STRING = 65_536;
/** The service refuses an item nested 16 levels deep; the item itself is level 0, its fields level 1. */
const MAX_DEPTH = 14;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export const truncate = (s: string, max = MAX_STRING) => (s.length > max ? s.slice(0, max) : s);

export function safeKey(key: string): string {
  let k = key.replace(/\u0000/g, '').replace(/\./g, '_');
  if (k.startsWith('$')) k = `_${k.slice(1)}`;
  if (FORBIDDEN_KEYS.has(k)) k = `_${k}`;
  if (k.length > 256) k = k.slice(0, 256);
  return k === '' ? '_' : k;
}

export function errorFields(error: Error, withStack: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name: truncate(String(error.name)), message: truncate(String(error.message)) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (withStack && typeof error.stack === 'string') out.stack = truncate(error.stack);
  return out;
}

function clean(value: unknown, depth: number, ancestors: object[], withStack: boolean): unknown {
  switch (typeof value) {
    case 'string':
      return truncate(value);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (ancestors.includes(obj)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString();
  if (obj instanceof Error) return errorFields(obj, withStack);
  if (Buffer.isBuffer(obj)) return `[Buffer ${obj.length} bytes]`;
  const toJSON = (obj as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    try {
      return clean(toJSON.call(obj), depth, ancestors, withStack);
    } catch {
      return '[Unserializable]';
    }
  }
  ancestors.push(obj);
  try {
    if (Array.isArray(obj)) return obj.map((v) => clean(v, depth + 1, ancestors, withStack) ?? null);
    if (obj instanceof Map) return clean(Object.fromEntries(obj), depth, ancestors, withStack);
    if (obj instanceof Set) return clean([...obj], depth, ancestors, withStack);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(obj)) {
      let v: unknown;
      try {
        v = (obj as Record<string, unknown>)[key];
      } catch {
        v = '[Unreadable]';
      }
      const c = clean(v, depth + 1, ancestors, withStack);
      if (c !== undefined) out[safeKey(key)] = c;
    }
    return out;
  } finally {
    ancestors.pop();
  }
}

/** A clean copy of the application's extra fields (the top level of a span or log is depth 0). */
export function cleanFields(fields: unknown, withStack: boolean): Record<string, unknown> {
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return {};
  const out = clean(fields, 0, [], withStack);
  return out !== null && typeof out === 'object' && !Array.isArray(out) ? (out as Record<string, unknown>) : {};
}
