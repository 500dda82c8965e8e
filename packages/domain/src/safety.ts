import { limits } from './limits.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const NO_KEYS: readonly string[] = [];

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
 * length bound, nesting deeper than the bound. The recursion never goes past `maxDepth` levels (a deeper value is
 * the verdict), so a hostile depth cannot overflow the stack; the path of the verdict is made only when there is
 * one, so a safe value costs no allocation. An object's keys are all checked before its members are walked, and
 * members are walked last first (the order of the walk's first, iterative, form: its verdicts stay the same).
 * `skipRootKey` leaves members of the root object out: an envelope's item list (checked item by item), or the parts
 * of an item its caller has already walked once for the many items sharing them (an OTLP resource and scope).
 */
export function findUnsafe(value: unknown, maxDepth: number = limits.maxDepth, skipRootKey?: string | ReadonlySet<string>): string | null {
  const skipped = typeof skipRootKey === 'string' ? (key: string) => key === skipRootKey : (key: string) => skipRootKey?.has(key) === true;
  /** The keys and indexes from the root to the value being walked. */
  const keys: Array<string | number> = [];
  const pathTo = (last?: string) => {
    let path = '';
    for (const key of keys) path += `/${key}`;
    return last === undefined ? path : `${path}/${last}`;
  };

  function walk(v: unknown, depth: number): string | null {
    if (typeof v === 'string') {
      // Counted in code points, as JSON Schema's maxLength counts (the OpenAPI document states these bounds).
      return longerThan(v, limits.maxStringLength) ? `${pathTo() || '/'} is longer than ${limits.maxStringLength} characters` : null;
    }
    if (v === null || typeof v !== 'object') return null;
    if (depth >= maxDepth) return `${pathTo() || '/'} is nested deeper than ${maxDepth} levels`;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        keys.push(i);
        const found = walk(v[i], depth + 1);
        keys.pop();
        if (found !== null) return found;
      }
      return null;
    }
    const own = Object.keys(v);
    // An attribute as the OTLP mapping builds it ({ key, value }, one per attribute of every span): both names pass.
    const attribute = own.length === 2 && own[0] === 'key' && own[1] === 'value';
    for (const key of attribute ? NO_KEYS : own) {
      if (depth === 0 && skipped(key)) continue;
      if (FORBIDDEN_KEYS.has(key)) return `${pathTo(key)} is a forbidden field name`;
      if (key.startsWith('$') || key.includes('.') || key.includes('\u0000')) return `${pathTo(key)} is not an allowed field name (no leading $, no dots)`;
      if (longerThan(key, 256)) return `${pathTo(key.slice(0, 32))}... field name is too long`;
    }
    for (let i = own.length - 1; i >= 0; i--) {
      const key = own[i]!;
      if (depth === 0 && skipped(key)) continue;
      keys.push(key);
      const found = walk((v as Record<string, unknown>)[key], depth + 1);
      keys.pop();
      if (found !== null) return found;
    }
    return null;
  }

  return walk(value, 0);
}
