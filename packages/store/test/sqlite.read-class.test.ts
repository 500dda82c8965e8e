import { describe, expect, it } from '@jest/globals';
import { LIGHT_PAGE, logReadClass, metricsReadClass, traceReadClass } from '../src/sqlite/read-class.js';

/** Which reads the read pool treats as light (their own worker, normal priority) and which as heavy. */
describe('sqlite read classes', () => {
  const base = { userId: 'u', projectId: 1 };

  it('a small page served by an index is light; a whole set, a large page or a sliced filter is heavy', () => {
    expect(traceReadClass({ ...base, limit: 21 })).toBe('light');
    expect(traceReadClass({ ...base, limit: 21, applicationId: 2, from: 0, to: 1, cursor: { ts: 1, id: 'x' } })).toBe('light');
    expect(traceReadClass({ ...base, limit: LIGHT_PAGE + 1 })).toBe('heavy');
    expect(traceReadClass({ ...base })).toBe('heavy');
    expect(traceReadClass({ ...base, limit: 2, urlContains: 'zzzz' })).toBe('heavy');
    expect(traceReadClass({ ...base, limit: 2, minDurationMs: 5 })).toBe('heavy');
    expect(traceReadClass({ ...base, limit: 2, status: { min: 500, max: 599 } })).toBe('heavy');
    expect(logReadClass({ userId: 'u', limit: 21, level: 'error' })).toBe('light');
    expect(logReadClass({ userId: 'u', limit: 21, applicationId: 2, traceId: 't' })).toBe('light');
    expect(logReadClass({ userId: 'u', limit: 21, applicationId: 2 })).toBe('heavy');
    expect(logReadClass({ userId: 'u', limit: 2, messageContains: 'zzzz' })).toBe('heavy');
    expect(logReadClass({ userId: 'u' })).toBe('heavy');
  });

  it('metrics and log volume over at most a day are light, a longer window heavy', () => {
    const day = 86_400_000;
    expect(metricsReadClass({ from: 0, to: day })).toBe('light');
    expect(metricsReadClass({ from: 0, to: day + 60_000 })).toBe('heavy');
  });
});
