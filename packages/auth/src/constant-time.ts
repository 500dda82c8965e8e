import { timingSafeEqual } from 'node:crypto';

/**
 * Whether two secrets (digests, derived keys) are equal, in time that depends on their length only, never on where
 * they first differ. Lengths are not secret (a digest's length is its algorithm's): unequal lengths are false at once,
 * as timingSafeEqual itself would throw on them.
 *
 * Where Lantern compares secret material: scrypt-derived keys (passwords.ts) here; JWT signatures in jsonwebtoken's
 * jwa (crypto.timingSafeEqual); API keys are never compared in JS: the store finds the SHA-256 digest of the
 * presented key by exact equality in its index, and how long that takes depends on the digest, which no caller can
 * steer towards a stored one (a key one character away from a real one has a digest as far from it as any other).
 */
export function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
