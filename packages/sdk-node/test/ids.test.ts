import { describe, expect, it } from '@jest/globals';
import { newId } from '../src/ids.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newId', () => {
  it('makes RFC 4122 version 4 UUIDs in lower case, as crypto.randomUUID() does, across many refills of its batch', () => {
    const ids = Array.from({ length: 10_000 }, () => newId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('every hex digit outside the version and variant is random: each of the 16 appears at each position', () => {
    const ids = Array.from({ length: 2_000 }, () => newId().replace(/-/g, ''));
    for (let position = 0; position < 32; position++) {
      if (position === 12 || position === 16) continue; // version, variant
      expect(new Set(ids.map((id) => id[position])).size).toBe(16);
    }
    expect(new Set(ids.map((id) => id[16])).size).toBe(4); // 8, 9, a, b
  });
});
