import { describe, expect, it } from '@jest/globals';
import { formatOffset, fromInputValue, isZoneChoice, offsetMinutes, toInputValue, zoneLabel, zoneOf, zoneShort } from '../src/lib/time-zone';

const WINTER = Date.parse('2026-01-15T12:00:00Z');
const SUMMER = Date.parse('2026-07-15T12:00:00Z');

describe('zone choice', () => {
  it('knows its two choices and their Intl zone', () => {
    expect(isZoneChoice('utc')).toBe(true);
    expect(isZoneChoice('local')).toBe(true);
    expect(isZoneChoice('UTC')).toBe(false);
    expect(zoneOf('utc')).toBe('UTC');
    expect(zoneOf('local')).toBeUndefined();
  });

  it('labels UTC as UTC and local with its offset at that moment', () => {
    expect(zoneLabel('utc', WINTER, 'Europe/Paris')).toBe('UTC');
    expect(zoneLabel('local', WINTER, 'Europe/Paris')).toBe('Local (UTC+01:00)');
    expect(zoneLabel('local', SUMMER, 'Europe/Paris')).toBe('Local (UTC+02:00)');
    expect(zoneShort('local', WINTER, 'Asia/Kolkata')).toBe('UTC+05:30');
    expect(zoneShort('local', WINTER, 'America/St_Johns')).toBe('UTC-03:30');
    expect(zoneShort('utc', WINTER, 'Asia/Kolkata')).toBe('UTC');
  });
});

describe('offsets', () => {
  it('measures minutes east of UTC, daylight saving included', () => {
    expect(offsetMinutes(WINTER, 'UTC')).toBe(0);
    expect(offsetMinutes(WINTER, 'America/New_York')).toBe(-300);
    expect(offsetMinutes(SUMMER, 'America/New_York')).toBe(-240);
    expect(offsetMinutes(WINTER + 123, 'Asia/Kolkata')).toBe(330);
  });

  it('formats them with sign and two-digit hours and minutes', () => {
    expect(formatOffset(0)).toBe('+00:00');
    expect(formatOffset(330)).toBe('+05:30');
    expect(formatOffset(-210)).toBe('-03:30');
  });
});

describe('datetime-local values', () => {
  it('shows an instant as wall time in the zone', () => {
    expect(toInputValue('2026-11-22T10:43:34.123Z', 'UTC')).toBe('2026-11-22T10:43');
    expect(toInputValue('2026-11-22T10:43:34.123Z', 'Asia/Kolkata')).toBe('2026-11-22T16:13');
    expect(toInputValue('2026-11-22T23:30:00Z', 'Asia/Tokyo')).toBe('2026-11-23T08:30');
    expect(toInputValue(undefined, 'UTC')).toBe('');
    expect(toInputValue('not a date', 'UTC')).toBe('');
  });

  it('reads wall time in the zone back as the same instant', () => {
    expect(fromInputValue('2026-11-22T10:43', 'UTC')).toBe('2026-11-22T10:43:00.000Z');
    expect(fromInputValue('2026-11-22T16:13', 'Asia/Kolkata')).toBe('2026-11-22T10:43:00.000Z');
    expect(fromInputValue('2026-07-15T08:00:30', 'America/New_York')).toBe('2026-07-15T12:00:30.000Z');
    for (const zone of ['UTC', 'Europe/Paris', 'Australia/Adelaide', 'America/Los_Angeles']) {
      const iso = '2026-03-29T05:17:00.000Z';
      expect(fromInputValue(toInputValue(iso, zone), zone)).toBe(iso);
    }
  });

  it('reads a wall time skipped by a daylight-saving change one offset later, and a repeated one as its first instant', () => {
    // Paris skips 02:00-03:00 on 2026-03-29: 02:30 reads as 03:30 CEST.
    expect(fromInputValue('2026-03-29T02:30', 'Europe/Paris')).toBe('2026-03-29T01:30:00.000Z');
    // Paris repeats 02:00-03:00 on 2026-10-25: 02:30 is first 02:30 CEST (00:30Z).
    expect(fromInputValue('2026-10-25T02:30', 'Europe/Paris')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('refuses what is not a wall time', () => {
    expect(fromInputValue('', 'UTC')).toBeUndefined();
    expect(fromInputValue('2026-11-22', 'UTC')).toBeUndefined();
    expect(fromInputValue('2026-02-30T10:00', 'UTC')).toBeUndefined();
    expect(fromInputValue('2026-11-22T10:43Z', 'UTC')).toBeUndefined();
  });
});
