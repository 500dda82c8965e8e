import { randomBytes, type ScryptOptions } from 'node:crypto';
import { constantTimeEqual } from './constant-time.js';
import { createLimiter } from './limiter.js';
import { createScryptPool } from './scrypt-pool.js';

/** The nice value of the hashing threads: below the request thread's 0 (scrypt-worker.ts). */
const HASH_NICE = 10;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP Password Storage Cheat Sheet's scrypt parameters: N = 2^17, r = 8, p = 1. One hash needs 128 * N * r
 * bytes = 128 MiB of memory and takes a few hundred ms of one CPU.
 */
export const OWASP_SCRYPT: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LEN = 32;

export interface PasswordHasher {
  /** A slow salted hash: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
  hash(password: string): Promise<string>;
  /** Whether the password matches a stored hash, whatever parameters that hash was made with. */
  verify(password: string, stored: string): Promise<boolean>;
  /** True when the stored hash was made with weaker parameters than this hasher's (or is not one of ours). */
  needsRehash(stored: string): boolean;
  /** A hash of a random password with this hasher's parameters: compared against when the user does not exist. */
  decoy(): Promise<string>;
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0)) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64'), key: Buffer.from(parts[5]!, 'base64') };
}

/**
 * scrypt hashing. At most `maxConcurrent` derivations run at once (default 2, one per core of a small host):
 * at N = 2^17 each holds 128 MiB, so a burst of parallel logins waits its turn instead of exhausting memory;
 * the bound is at most maxConcurrent * 128 * N * r bytes. At most `maxWaiting` (default 32, a few seconds of
 * hashing) wait; one more is 503 `unavailable` with Retry-After 1 at once. The derivations run on threads of the
 * hasher's own at nice 10 (scrypt-pool.ts), not on libuv's pool at the request thread's priority: a login flood's
 * checks then take the cores only while the event loop does not need one. Create one hasher per process.
 */
export function createPasswordHasher(
  params: ScryptParams = OWASP_SCRYPT,
  { maxConcurrent = 2, maxWaiting = 32 }: { maxConcurrent?: number; maxWaiting?: number } = {},
): PasswordHasher {
  const limit = createLimiter(maxConcurrent, { maxWaiting, what: 'password service (too many sign-ins at once)' });
  const pool = createScryptPool({ size: maxConcurrent, nice: HASH_NICE });
  const derive = (password: string, salt: Buffer, at: ScryptParams): Promise<Buffer> => {
    // scrypt refuses more than maxmem (32 MiB by default); 128 * N * r is what it needs, twice that is headroom.
    const options: ScryptOptions = { ...at, maxmem: 2 * 128 * at.N * at.r };
    return limit(() => pool.derive(password.normalize('NFKC'), salt, KEY_LEN, options));
  };
  let decoy: Promise<string> | undefined;
  const hash = async (password: string): Promise<string> => {
    const salt = randomBytes(16);
    const key = await derive(password, salt, params);
    return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
  };
  return {
    hash,
    async verify(password, stored) {
      const parsed = parse(stored);
      if (!parsed) return false;
      const key = await derive(password, parsed.salt, parsed.params);
      return constantTimeEqual(key, parsed.key);
    },
    needsRehash(stored) {
      const parsed = parse(stored);
      if (!parsed) return true;
      const { N, r, p } = parsed.params;
      return N < params.N || r < params.r || p < params.p;
    },
    decoy() {
      // A refusal (503 while the hasher is full) is not kept: the next unknown email tries again.
      decoy ??= hash(randomBytes(16).toString('hex')).catch((err: unknown) => {
        decoy = undefined;
        throw err;
      });
      return decoy;
    },
  };
}
