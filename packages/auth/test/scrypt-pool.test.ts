import { spawnSync } from 'node:child_process';
import { scryptSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { createScryptPool } from '../src/scrypt-pool.js';

const OPTIONS = { N: 1024, r: 8, p: 1, maxmem: 32 * 1024 * 1024 };

describe('the password hashing threads (scrypt-pool)', () => {
  it('derive the same keys as node:crypto, several at once', async () => {
    const pool = createScryptPool({ size: 2, nice: 10 });
    try {
      const salts = Array.from({ length: 6 }, (_, i) => Buffer.from(`salt-${i}-0123456789`));
      const keys = await Promise.all(salts.map((salt, i) => pool.derive(`password-${i}`, salt, 32, OPTIONS)));
      keys.forEach((key, i) => expect(key.equals(scryptSync(`password-${i}`, salts[i]!, 32, OPTIONS))).toBe(true));
    } finally {
      await pool.close();
    }
  });

  it('run below the request thread: nice 10 on Linux', async () => {
    const pool = createScryptPool({ size: 1, nice: 10 });
    try {
      await pool.derive('x', Buffer.from('salt-salt-salt-1'), 32, OPTIONS);
      // The process's threads and their nice values (field 19 of /proc/self/task/<tid>/stat).
      const nices = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
      expect(nices).toContain(10);
    } finally {
      await pool.close();
    }
  });

  it('fail a derivation the thread refuses, and keep serving', async () => {
    const pool = createScryptPool({ size: 1, nice: 0 });
    try {
      await expect(pool.derive('x', Buffer.from('salt'), 32, { N: 3, r: 8, p: 1 })).rejects.toThrow(/N|cost|Invalid/i);
      expect((await pool.derive('y', Buffer.from('salt'), 32, OPTIONS)).length).toBe(32);
    } finally {
      await pool.close();
    }
  });

  it('do not keep a process alive once idle', () => {
    const pool = fileURLToPath(new URL('../dist/scrypt-pool.js', import.meta.url));
    const script = `import { createScryptPool } from ${JSON.stringify(pool)};
      const key = await createScryptPool({ size: 1, nice: 10 }).derive('x', Buffer.from('salt-salt'), 32, ${JSON.stringify(OPTIONS)});
      console.log(key.length);`;
    const dir = mkdtempSync(join(tmpdir(), 'scrypt-pool-'));
    writeFileSync(join(dir, 'hash.mjs'), script);
    const run = spawnSync(process.execPath, [join(dir, 'hash.mjs')], { encoding: 'utf8', timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    expect({ status: run.status, out: run.stdout.trim(), err: run.stderr.slice(0, 500) }).toEqual({ status: 0, out: '32', err: '' });
  });
});
