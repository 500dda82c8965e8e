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
