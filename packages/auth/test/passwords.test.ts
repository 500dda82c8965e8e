import { describe, expect, it } from '@jest/globals';
import { createLimiter, createPasswordHasher, OWASP_SCRYPT } from '../src/index.js';

describe('password hashing', () => {
  it('hashes at OWASP\'s scrypt parameters by default (N=2^17, r=8, p=1) and verifies the password', async () => {
    expect(OWASP_SCRYPT).toEqual({ N: 131072, r: 8, p: 1 });
    const hasher = createPasswordHasher();
    const hash = await hasher.hash('correct horse battery');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await hasher.verify('correct horse battery', hash)).toBe(true);
    expect(await hasher.verify('correct horse batterY', hash)).toBe(false);
    expect(hasher.needsRehash(hash)).toBe(false);
  });

  it('verifies hashes made with other parameters, and says which are weaker than its own', async () => {
    const current = createPasswordHasher({ N: 1024, r: 8, p: 1 });
    const weaker = await createPasswordHasher({ N: 512, r: 8, p: 1 }).hash('pw-12345678');
    expect(await current.verify('pw-12345678', weaker)).toBe(true);
    expect(current.needsRehash(weaker)).toBe(true);
    expect(current.needsRehash(await current.hash('pw-12345678'))).toBe(false);
    expect(current.needsRehash(await createPasswordHasher({ N: 2048, r: 8, p: 1 }).hash('x'))).toBe(false);
    expect(current.needsRehash('scrypt$1024$4$1$c2FsdA==$a2V5')).toBe(true);
    for (const junk of ['', 'bcrypt$x', 'scrypt$a$b$c$d$e', 'scrypt$1024$8$1$only']) {
      expect(current.needsRehash(junk)).toBe(true);
      expect(await current.verify('x', junk)).toBe(false);
    }
  });

  it('gives a decoy hash with its own parameters, made once', async () => {
    const hasher = createPasswordHasher({ N: 1024, r: 8, p: 1 });
    const decoy = await hasher.decoy();
    expect(decoy.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await hasher.decoy()).toBe(decoy);
  });

  it('does not keep a decoy that was refused while the hasher was full: the next call makes one', async () => {
    const hasher = createPasswordHasher({ N: 1024, r: 8, p: 1 }, { maxConcurrent: 1, maxWaiting: 0 });
    const busy = hasher.hash('occupies the only slot');
    await expect(hasher.decoy()).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    await busy;
    expect((await hasher.decoy()).startsWith('scrypt$1024$8$1$')).toBe(true);
  });

  it('states its cost: keylen 32 bytes, salt 16 bytes, and the parameters, in every stored hash', async () => {
    const stored = await createPasswordHasher({ N: 2048, r: 8, p: 2 }).hash('pw-12345678');
    const [scheme, N, r, p, salt, key] = stored.split('$');
    expect({ scheme, N, r, p }).toEqual({ scheme: 'scrypt', N: '2048', r: '8', p: '2' });
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
  });
});

describe('createLimiter', () => {
  it('runs at most `max` tasks at once and all of them in the end, in order of arrival', async () => {
    const limit = createLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => limit(async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return i;
    });
    expect(await Promise.all([0, 1, 2, 3, 4, 5, 6].map(task))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses a task past `maxWaiting` at once with 503 unavailable and Retry-After 1, and runs the ones admitted', async () => {
    const limit = createLimiter(1, { maxWaiting: 2, what: 'password service' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const admitted = [limit(() => gate.then(() => 'a')), limit(async () => 'b'), limit(async () => 'c')];
    await expect(limit(async () => 'd')).rejects.toMatchObject({ status: 503, code: 'unavailable', retryAfter: 1 });
    release();
    expect(await Promise.all(admitted)).toEqual(['a', 'b', 'c']);
    expect(await limit(async () => 'e')).toBe('e');
  });

  it('frees the slot of a task that fails', async () => {
    const limit = createLimiter(1);
    await expect(limit(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(await limit(async () => 'next')).toBe('next');
  });
});
