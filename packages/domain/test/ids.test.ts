import { describe, expect, it } from '@jest/globals';
import { isUuid, newTimeOrderedId, parseIntegerText, parsePositiveInt } from '@lantern/domain';

/** Integer parameters are read as the OpenAPI document's `integer` reads a number (issue 13: `organizationId=1.0`). */
describe('parsePositiveInt: text as JSON Schema integer, plain decimal', () => {
  it.each([
    ['1', 1], ['1.0', 1], ['7.000', 7], ['9007199254740991', Number.MAX_SAFE_INTEGER], ['9007199254740991.0', Number.MAX_SAFE_INTEGER],
  ])('takes %s as %d', (text, value) => {
    expect(parsePositiveInt(text)).toBe(value);
  });

  it.each(['0', '0.0', '1.5', '1.0000000000000000001', '01', '+1', '-1', '1e0', ' 1', '0x10', '9007199254740992', '', '1.', '.5', '1'.repeat(41)])(
    'refuses %j',
    (text) => {
      expect(parsePositiveInt(text)).toBeNull();
    },
  );

  it('bounds parseIntegerText as given (limit 1-1000, minDurationMs from 0)', () => {
    expect(parseIntegerText('1000.0', 1, 1000)).toBe(1000);
    expect(parseIntegerText('1001', 1, 1000)).toBeNull();
    expect(parseIntegerText('0', 0, 10)).toBe(0);
    expect(parseIntegerText('0.000', 0, 10)).toBe(0);
  });
});

describe('newTimeOrderedId: UUID version 7', () => {
  it('holds the time in its first 48 bits, version 7 and the RFC variant, and differs each time', () => {
    const at = Date.UTC(2026, 10, 26, 17, 30);
    const id = newTimeOrderedId(at);
    expect(isUuid(id)).toBe(true);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(newTimeOrderedId(at)).not.toBe(id);
  });

  it('sorts as text in the order of its times', () => {
    const times = [0, 1, 255, 256, 1_700_000_000_000, 1_700_000_000_001, Date.UTC(2100, 0, 1)];
    const ids = times.map((t) => newTimeOrderedId(t));
    expect([...ids].reverse().sort()).toEqual(ids);
  });
});
