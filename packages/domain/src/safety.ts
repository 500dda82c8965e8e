import { limits } from './limits.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Walks a parsed JSON value and returns the first unsafe thing in it, or null:
 * prototype keys, MongoDB-style operator keys (`$gt`), keys with a dot or NUL, strings over the
 * length bound, nesting deeper than the bound. Iterative, so a hostile depth cannot overflow the stack.
 * `skipRootKey` leaves one member of the root object out (an envelope's item list, checked item by item).
 */
export function findUnsafe(value: unknown, maxDepth: number = limits.maxDepth, skipRootKey?: string): string | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      // Counted in code points, as JSON Schema's maxLength counts (the OpenAPI document states these bounds).
      if (v.length > limits.maxStringLength && [...v].length > limits.maxStringLength) return `${path || '/'} is longer than ${limits.maxStringLength} characters`;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth >= maxDepth) return `${path || '/'} is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], path: `${path}/${i}`, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(v)) {
      if (depth === 0 && key === skipRootKey) continue;
      if (FORBIDDEN_KEYS.has(key)) return `${path}/${key} is a forbidden field name`;
      if (key.startsWith('$') || key.includes('.') || key.includes('\u0000'))
        return `${path}/${key} is not an allowed field name (no leading $, no dots)`;
      if (key.length > 256 && [...key].length > 256) return `${path}/${key.slice(0, 32)}... field name is too long`;
      stack.push({ v: (v as Record<string, unknown>)[key], path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  return null;
}
