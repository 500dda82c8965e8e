import { describe, expect, it } from '@jest/globals';
import { syncDraft } from '../src/lib/draft';

describe('syncDraft', () => {
  it('keeps a trailing space typed before the pause when its trimmed text comes back from the hash', () => {
    // Typing "two ", pausing: "two" is applied to the hash and comes back.
    const kept = syncDraft('two ', 'two');
    expect(kept).toBe('two ');
    // Typing on gives "two words", not "twowords".
    expect(kept + 'words').toBe('two words');
    expect(syncDraft('  spaced  out ', 'spaced  out')).toBe('  spaced  out ');
    expect(syncDraft('   ', '')).toBe('   ');
  });

  it('shows the applied value when the hash changed elsewhere', () => {
    expect(syncDraft('two ', 'other')).toBe('other');
    expect(syncDraft('two ', '')).toBe('');
    expect(syncDraft('', '/checkout')).toBe('/checkout');
    expect(syncDraft('5.5', '5')).toBe('5');
  });
});
