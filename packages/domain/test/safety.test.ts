import { describe, expect, it } from '@jest/globals';
import { findUnsafe, limits, longerThan } from '../src/index.js';

describe('longerThan counts code points, as JSON Schema maxLength does', () => {
  it('counts a surrogate pair as one character and a lone surrogate as one', () => {
    expect(longerThan('😀'.repeat(3), 3)).toBe(false);
    expect(longerThan('😀'.repeat(4), 3)).toBe(true);
    expect(longerThan('abc', 3)).toBe(false);
    expect(longerThan('abcd', 3)).toBe(true);
    expect(longerThan('\ud800\ud800\ud800', 3)).toBe(false);
    expect(longerThan('\ud800\ud800\ud800\ud800', 3)).toBe(true);
  });

  it('refuses a body string of millions of characters without spreading it (findUnsafe)', () => {
    const huge = 'x'.repeat(5_000_000);
    expect(findUnsafe({ message: huge })).toBe(`/message is longer than ${limits.maxStringLength} characters`);
    expect(findUnsafe({ message: '😀'.repeat(limits.maxStringLength) })).toBeNull();
    expect(findUnsafe({ message: '😀'.repeat(limits.maxStringLength + 1) })).not.toBeNull();
  });
});

/** findUnsafe's first form (an explicit stack, a path string per value): the reference its recursive form must agree with. */
function findUnsafeByStack(value: unknown, maxDepth: number = limits.maxDepth, skipRootKey?: ReadonlySet<string>): string | null {
  const forbidden = new Set(['__proto__', 'constructor', 'prototype']);
  const stack: Array<{ v: unknown; path: string; depth: number }> = [{ v: value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
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
      if (depth === 0 && skipRootKey?.has(key)) continue;
      if (forbidden.has(key)) return `${path}/${key} is a forbidden field name`;
      if (key.startsWith('$') || key.includes('.') || key.includes('\u0000')) return `${path}/${key} is not an allowed field name (no leading $, no dots)`;
      if (longerThan(key, 256)) return `${path}/${key.slice(0, 32)}... field name is too long`;
      stack.push({ v: (v as Record<string, unknown>)[key], path: `${path}/${key}`, depth: depth + 1 });
    }
  }
  return null;
}

describe('findUnsafe walks without a stack of its own', () => {
  /** A deterministic pseudo-random value: nested objects and arrays with, now and then, an unsafe key, string or depth. */
  function randomValue(seed: number): unknown {
    let state = seed;
    // mulberry32
    const next = (n: number) => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) / 4294967296 * n) | 0;
    };
    const keyOf = () => ['a', 'b.c', '$gt', '__proto__', 'constructor', 'x\u0000', 'k'.repeat(257), 'name', 'value', 'ok'][next(10) < 8 ? 7 + next(3) : next(7)]!;
    // Now and then an attribute as the OTLP mapping builds it, { key, value }, whose value may be unsafe.
    const attribute = (depth: number) => ({ key: next(4) === 0 ? 'x'.repeat(limits.maxStringLength + 1) : 'k', value: make(depth + 1) });
    const make = (depth: number): unknown => {
      const kind = depth < 2 ? 3 + next(3) : next(depth > 20 ? 3 : 6);
      if (kind === 0) return next(50) === 0 ? 'x'.repeat(limits.maxStringLength + 1) : 'text';
      if (kind === 1) return next(3) === 0 ? null : next(100);
      if (kind === 2) return true;
      if (kind === 3) return Array.from({ length: next(4) }, () => (next(3) === 0 ? attribute(depth + 1) : make(depth + 1)));
      const out: Record<string, unknown> = {};
      for (let i = next(4); i > 0; i--) Object.defineProperty(out, `${keyOf()}${next(3) === 0 ? i : ''}`, { value: make(depth + 1), enumerable: true, configurable: true, writable: true });
      return out;
    };
    return make(0);
  }

  it('gives the same verdict, path included, as its iterative first form on 3,000 random values', () => {
    const verdicts = new Set<string>();
    for (let seed = 1; seed <= 3000; seed++) {
      const value = randomValue(seed);
      for (const [depth, skip] of [[limits.maxDepth, undefined], [3, new Set(['a', 'name'])]] as const) {
        const expected = findUnsafeByStack(value, depth, skip);
        expect(findUnsafe(value, depth, skip)).toBe(expected);
        verdicts.add(expected === null ? 'safe' : /forbidden|not an allowed|too long|longer than|nested deeper/.exec(expected)![0]);
      }
    }
    // The values reached every kind of verdict, and safe ones.
    expect([...verdicts].sort()).toEqual(['forbidden', 'longer than', 'nested deeper', 'not an allowed', 'safe', 'too long']);
  });
});
