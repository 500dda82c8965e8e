import { createHash, randomBytes } from 'node:crypto';

/** API keys: `lk_` + 43 characters of base64url (256 random bits). Stored only as a SHA-256 hash and a prefix. */
export const API_KEY_PATTERN = /^lk_[A-Za-z0-9_-]{43}$/;
const PREFIX_LENGTH = 10;

export interface NewApiKey {
  key: string;
  prefix: string;
  hash: string;
}

/** A fast hash is right here: the key has 256 bits of entropy, so it cannot be guessed from its hash. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function generateApiKey(): NewApiKey {
  const key = `lk_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashApiKey(key) };
}

export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}
