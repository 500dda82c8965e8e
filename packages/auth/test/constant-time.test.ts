import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { constantTimeEqual, createPasswordHasher } from '../src/index.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

describe('constantTimeEqual', () => {
  it('is true for equal bytes, false for bytes that differ first or last, and false (not a throw) for other lengths', () => {
    const a = digest('lk_a');
    expect(constantTimeEqual(a, Buffer.from(a))).toBe(true);
    const first = Buffer.from(a);
    first[0]! ^= 1;
    const last = Buffer.from(a);
    last[31]! ^= 1;
    expect(constantTimeEqual(a, first)).toBe(false);
    expect(constantTimeEqual(a, last)).toBe(false);
    expect(constantTimeEqual(a, a.subarray(0, 31))).toBe(false);
    expect(constantTimeEqual(a, Buffer.concat([a, Buffer.from([0])]))).toBe(false);
    expect(constantTimeEqual(Buffer.alloc(0), Buffer.alloc(0))).toBe(true);
  });

  it('is what password verification compares derived keys with: a stored key cut short or lengthened is refused, not thrown', async () => {
    const hasher = createPasswordHasher({ N: 1024, r: 8, p: 1 });
    const stored = await hasher.hash('pw-12345678');
    const parts = stored.split('$');
    const key = Buffer.from(parts[5]!, 'base64');
    const withKey = (k: Buffer) => [...parts.slice(0, 5), k.toString('base64')].join('$');
    expect(await hasher.verify('pw-12345678', withKey(key))).toBe(true);
    expect(await hasher.verify('pw-12345678', withKey(key.subarray(0, 31)))).toBe(false);
    expect(await hasher.verify('pw-12345678', withKey(Buffer.concat([key, Buffer.from([0])])))).toBe(false);
    const flipped = Buffer.from(key);
    flipped[31]! ^= 1;
    expect(await hasher.verify('pw-12345678', withKey(flipped))).toBe(false);
  });
});
