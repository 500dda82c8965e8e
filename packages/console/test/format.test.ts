import { describe, expect, it } from '@jest/globals';
import {
  formatBucket, formatBytes, formatCount, formatDuration, formatPercent, formatRelative, formatTimestamp, spanName, spanType, statusClass,
} from '../src/lib/format';

const UTC = { timeZone: 'UTC' };
const NOW = Date.parse('2026-11-22T10:43:34.123Z');

describe('formatDuration', () => {
  it('formats sub-millisecond, millisecond, second and minute durations', () => {
    expect(formatDuration(0)).toBe('0 ms');
    expect(formatDuration(0.4)).toBe('0.4 ms');
    expect(formatDuration(12)).toBe('12 ms');
    expect(formatDuration(1530)).toBe('1.53 s');
    expect(formatDuration(12_340)).toBe('12.3 s');
    expect(formatDuration(125_000)).toBe('2m 5s');
    expect(formatDuration(120_000)).toBe('2m');
  });

  it('never shows a rounded value that belongs to the next unit', () => {
    expect(formatDuration(0.96)).toBe('1 ms');
    expect(formatDuration(999.4)).toBe('999 ms');
    expect(formatDuration(999.6)).toBe('1.00 s');
    expect(formatDuration(9_994)).toBe('9.99 s');
    expect(formatDuration(9_996)).toBe('10.0 s');
    expect(formatDuration(59_940)).toBe('59.9 s');
    expect(formatDuration(59_990)).toBe('1m');
    expect(formatDuration(119_600)).toBe('2m');
  });

  it('answers a dash for what is not a duration, and keeps the sign of a negative one', () => {
    expect(formatDuration(null)).toBe('–');
    expect(formatDuration(undefined)).toBe('–');
    expect(formatDuration(NaN)).toBe('–');
    expect(formatDuration(Infinity)).toBe('–');
    expect(formatDuration(-12)).toBe('-12 ms');
  });
});

describe('formatBucket', () => {
  it('names a bucket width in minutes and hours', () => {
    expect(formatBucket(60_000)).toBe('1 min');
    expect(formatBucket(24 * 60_000)).toBe('24 min');
    expect(formatBucket(3_600_000)).toBe('1 h');
    expect(formatBucket(168 * 60_000)).toBe('2 h 48 min');
    expect(formatBucket(0)).toBe('1 min');
    expect(formatBucket(null)).toBe('–');
    expect(formatBucket(NaN)).toBe('–');
  });
});

describe('span helpers', () => {
  it('splits requestMethod into type and name', () => {
    expect(spanType('controller:GET /users')).toBe('controller');
    expect(spanName('controller:GET /users')).toBe('GET /users');
    expect(spanName('external:http://a/b:c')).toBe('http://a/b:c');
    expect(spanType('nocolon')).toBe('other');
    expect(spanName('nocolon')).toBe('nocolon');
  });

  it('gives the status class', () => {
    expect(statusClass(200)).toBe('2xx');
    expect(statusClass(599)).toBe('5xx');
    expect(statusClass(undefined)).toBe('');
  });
});

describe('formatTimestamp', () => {
  it('shows the time only for today, in the given zone', () => {
    expect(formatTimestamp('2026-11-22T08:05:09.007Z', NOW, UTC)).toBe('08:05:09');
    expect(formatTimestamp('2026-11-22T08:05:09.007Z', NOW, { ...UTC, ms: true })).toBe('08:05:09.007');
    expect(formatTimestamp('2026-11-22T00:00:00.000Z', NOW, UTC)).toBe('00:00:00');
  });

  it('adds the date for another day', () => {
    expect(formatTimestamp('2026-11-21T23:59:59.999Z', NOW, { ...UTC, ms: true })).toBe('2026-11-21 23:59:59.999');
    expect(formatTimestamp('2025-01-02T03:04:05.000Z', NOW, UTC)).toBe('2025-01-02 03:04:05');
  });

  it('stops at minutes when asked (chart axes)', () => {
    expect(formatTimestamp('2026-11-22T08:05:59.999Z', NOW, { ...UTC, minutes: true })).toBe('08:05');
    expect(formatTimestamp('2026-11-20T08:05:00.000Z', NOW, { ...UTC, minutes: true, ms: true })).toBe('2026-11-20 08:05');
  });

  it('decides "today" in the zone, not in UTC', () => {
    // 23:30 UTC on the 21st is already the 22nd in Tokyo (UTC+9).
    expect(formatTimestamp('2026-11-21T23:30:00.000Z', NOW, { timeZone: 'Asia/Tokyo' })).toBe('08:30:00');
    // And it is the previous day in New York (UTC-5) at NOW's 05:43 local.
    expect(formatTimestamp('2026-11-22T04:00:00.000Z', NOW, { timeZone: 'America/New_York' })).toBe('2026-11-21 23:00:00');
  });

  it('accepts a Date for now, and answers a dash for null or garbage', () => {
    expect(formatTimestamp('2026-11-22T10:00:00.000Z', new Date(NOW), UTC)).toBe('10:00:00');
    expect(formatTimestamp(null, NOW, UTC)).toBe('–');
    expect(formatTimestamp(undefined, NOW, UTC)).toBe('–');
    expect(formatTimestamp('yesterday', NOW, UTC)).toBe('–');
    expect(formatTimestamp('2026-11-22T10:00:00.000Z', NaN, UTC)).toBe('2026-11-22 10:00:00');
  });
});

describe('formatRelative', () => {
  const ago = (ms: number) => new Date(NOW - ms).toISOString();
  it('reads seconds, minutes, hours and days ago', () => {
    expect(formatRelative(ago(0), NOW)).toBe('just now');
    expect(formatRelative(ago(999), NOW)).toBe('just now');
    expect(formatRelative(ago(1000), NOW)).toBe('1 s ago');
    expect(formatRelative(ago(12_400), NOW)).toBe('12 s ago');
    expect(formatRelative(ago(59_999), NOW)).toBe('59 s ago');
    expect(formatRelative(ago(60_000), NOW)).toBe('1 min ago');
    expect(formatRelative(ago(3_599_999), NOW)).toBe('59 min ago');
    expect(formatRelative(ago(3_600_000), NOW)).toBe('1 h ago');
    expect(formatRelative(ago(86_400_000 * 2.5), NOW)).toBe('2 d ago');
  });

  it('reads a future time as "in", and a dash for null or garbage', () => {
    expect(formatRelative(ago(-5_000), NOW)).toBe('in 5 s');
    expect(formatRelative(null, NOW)).toBe('–');
    expect(formatRelative('not a date', NOW)).toBe('–');
    expect(formatRelative(ago(1000), NaN)).toBe('–');
  });
});

describe('formatBytes', () => {
  it('uses binary units with one decimal below 100', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1 KB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(150 * 1024)).toBe('150 KB');
    expect(formatBytes(10_485_760)).toBe('10 MB');
    expect(formatBytes(10_485_761)).toBe('10 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3 GB');
  });

  it('steps up instead of showing 1024 of a unit', () => {
    expect(formatBytes(1_048_575)).toBe('1 MB');
    expect(formatBytes(1023.97)).toBe('1 KB');
  });

  it('answers a dash for null, NaN and negative sizes', () => {
    expect(formatBytes(null)).toBe('–');
    expect(formatBytes(NaN)).toBe('–');
    expect(formatBytes(-1)).toBe('–');
  });
});

describe('formatPercent', () => {
  it('formats a rate with at most one decimal', () => {
    expect(formatPercent(0)).toBe('0%');
    expect(formatPercent(0.01)).toBe('1%');
    expect(formatPercent(0.1234)).toBe('12.3%');
    expect(formatPercent(0.5)).toBe('50%');
    expect(formatPercent(1)).toBe('100%');
  });

  it('never rounds a few errors to 0% or almost all to 100%', () => {
    expect(formatPercent(0.0004)).toBe('<0.1%');
    expect(formatPercent(0.0005)).toBe('0.1%');
    expect(formatPercent(0.9996)).toBe('>99.9%');
  });

  it('answers a dash for null and NaN', () => {
    expect(formatPercent(null)).toBe('–');
    expect(formatPercent(undefined)).toBe('–');
    expect(formatPercent(NaN)).toBe('–');
  });
});

describe('formatCount', () => {
  it('groups thousands', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1234)).toBe('1,234');
    expect(formatCount(1_234_567)).toBe('1,234,567');
    expect(formatCount(12.6)).toBe('13');
    expect(formatCount(-1234)).toBe('-1,234');
  });

  it('abbreviates when compact', () => {
    expect(formatCount(999, true)).toBe('999');
    expect(formatCount(1000, true)).toBe('1k');
    expect(formatCount(1234, true)).toBe('1.2k');
    expect(formatCount(9_960, true)).toBe('10k');
    expect(formatCount(12_345, true)).toBe('12k');
    expect(formatCount(950_000, true)).toBe('950k');
    expect(formatCount(999_950, true)).toBe('1M');
    expect(formatCount(2_500_000, true)).toBe('2.5M');
    expect(formatCount(3e12, true)).toBe('3000B');
  });

  it('answers a dash for null and NaN', () => {
    expect(formatCount(null)).toBe('–');
    expect(formatCount(NaN, true)).toBe('–');
  });
});
