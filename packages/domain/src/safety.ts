import { limits } from './limits.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Whether `text` has more than `max` code points (JSON Schema's maxLength counts code points). Over 2 * max UTF-16
 * units it has at once; otherwise the count stops at max + 1, so a 5M-character string costs no array of 5M.
 */
export function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) i++;
    }
    if (++points > max) return true;
  }
  return false;
}

/**
 * Walks a parsed JSON value and returns the first unsafe thing in it, or null:
 * prototype keys, MongoDB-style operator keys (`$gt`), keys with a dot or NUL, strings over the
 * length bound, nesting deeper than the bound. Iterative, so a hostile depth cannot overflow the stack.
 * `skipRootKey` leaves members of the root object out: an envelope's item list (checked item by item), or the parts
 * of an item its caller has already walked once for the many items sharing them (an OTLP resource and scope).
 */
export function findUnsafe(value: unknown, maxDepth: number = limits.maxDepth, skipRootKey?: string | ReadonlySet<string>): string | null {
  const skipped = typeof skipRootKey === 'string' ? (key: string) => key === skipRootKey : (key: string) => skipRootKey?.has(key) === true;
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      // Counted in code points, as JSON Schema's maxLength counts (the OpenAPI document states these bounds).
      if (longerThan(v, limits.maxStringLength)) return `${path || '/'} is longer than ${limits.maxStringLength} characters`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `${path || '/'} is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (depth === 0 && skipped(key)) continue;
      if (FORBIDDEN_KEYS.has(key)) return `${path}/${key} is a forbidden field name`;
      if (key.startsWith('$') || key.includes('.') || key.includes('\u0000'))
        return `${path}/${key} is not an allowed field name (no leading $, no dots)`;
      if (longerThan(key, 256)) return `${path}/${key.slice(0, 32)}... field name is too long`;
      stack.push({ v: (v as Record<string, unknown>)[key], path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  return null;
}
