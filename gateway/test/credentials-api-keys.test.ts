import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectError } from './accounts-helpers.js';
import { createTenancy, span, startLantern, traceBatch, type Lantern, type Tenancy } from './harness.js';

/** The key with the character at `at` replaced by another one of the alphabet. */
function nearMiss(key: string, at: number): string {
  const i = at < 0 ? key.length + at : at;
  const other = key[i] === 'A' ? 'B' : 'A';
  return `${key.slice(0, i)}${other}${key.slice(i + 1)}`;
}

describe('credentials: API keys one character away from a real one', () => {
  let l: Lantern;
  let t: Tenancy;
  beforeAll(async () => {
    l = await startLantern({ apiKeyCacheMs: 5000 });
    t = await createTenancy(l, 'near');
  });
  afterAll(() => l.stop());

  const ingest = (key: string) => l.http.post('/ingest/traces').set('x-api-key', key).send(traceBatch([span()]));

  it('refuses a key differing only in its last character and one differing only in its first random character, with the same 401', async () => {
    await ingest(t.apiKey).expect(200);
    const last = await ingest(nearMiss(t.apiKey, -1));
    const first = await ingest(nearMiss(t.apiKey, 3)); // after "lk_"
    const far = await ingest(`lk_${'x'.repeat(43)}`);
    expectError(last, 401, 'unauthorized');
    for (const res of [first, far]) expect({ status: res.status, body: res.body }).toEqual({ status: last.status, body: last.body });
    // Asked again (now from the resolver's cache of unknown keys): still refused, and the real key still works.
    expectError(await ingest(nearMiss(t.apiKey, -1)), 401, 'unauthorized');
    await ingest(t.apiKey).expect(200);
  });

  it('refuses the key in another case, the key with a character more or less, and its prefix alone', async () => {
    const swapped = t.apiKey.replace(/[a-z]/, (c) => c.toUpperCase());
    expect(swapped).not.toBe(t.apiKey);
    for (const key of [swapped, `${t.apiKey}A`, t.apiKey.slice(0, -1), t.apiKey.slice(0, 10)]) {
      expectError(await ingest(key), 401, 'unauthorized');
    }
  });
});
