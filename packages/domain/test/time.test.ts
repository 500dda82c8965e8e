import { describe, expect, it } from '@jest/globals';
import { normalizeTimestamp, parseTimestamp } from '@lantern/domain';

describe('timestamps', () => {
  it('normalises any ISO 8601 date-time with an offset to UTC with 3 fractional digits and Z', () => {
    expect(normalizeTimestamp('2026-11-22T10:43:34Z')).toBe('2026-11-22T10:43:34.000Z');
    expect(normalizeTimestamp('2026-11-22T12:43:34.1+02:00')).toBe('2026-11-22T10:43:34.100Z');
    expect(normalizeTimestamp('2026-11-22T05:43:34.123456-0500')).toBe('2026-11-22T10:43:34.123Z');
  });

  it('rejects text without an offset, impossible dates and non-strings', () => {
    for (const bad of ['2026-11-22T10:43:34', '2026-02-31T00:00:00Z', '2026-13-01T00:00:00Z', 'yesterday', '', 1732272214000, null]) {
      expect(parseTimestamp(bad)).toBeNull();
    }
  });
});
