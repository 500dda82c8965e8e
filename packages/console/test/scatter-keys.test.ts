import { describe, expect, it } from '@jest/globals';
import { scatterStep } from '../src/lib/scatter-keys';

// Newest first, as the list loads them: index 0 is the newest.
const points = [
  { startMs: 400, durationMs: 20 },
  { startMs: 300, durationMs: 900 },
  { startMs: 200, durationMs: 5 },
  { startMs: 100, durationMs: 300 },
];

describe('scatterStep', () => {
  it('lands on the newest trace first, whatever the key', () => {
    expect(scatterStep(points, undefined, 'ArrowLeft')).toBe(0);
    expect(scatterStep(points, undefined, 'Home')).toBe(0);
  });

  it('steps through time with Left and Right, and to the ends with Home and End', () => {
    expect(scatterStep(points, 0, 'ArrowLeft')).toBe(1);
    expect(scatterStep(points, 1, 'ArrowLeft')).toBe(2);
    expect(scatterStep(points, 2, 'ArrowRight')).toBe(1);
    expect(scatterStep(points, 3, 'ArrowLeft')).toBe(3);
    expect(scatterStep(points, 0, 'ArrowRight')).toBe(0);
    expect(scatterStep(points, 1, 'Home')).toBe(3);
    expect(scatterStep(points, 3, 'End')).toBe(0);
  });

  it('steps to the next slower with Up and the next faster with Down', () => {
    expect(scatterStep(points, 0, 'ArrowUp')).toBe(3);
    expect(scatterStep(points, 3, 'ArrowUp')).toBe(1);
    expect(scatterStep(points, 1, 'ArrowUp')).toBe(1);
    expect(scatterStep(points, 0, 'ArrowDown')).toBe(2);
  });

  it('ignores other keys and an empty chart', () => {
    expect(scatterStep(points, 0, 'Tab')).toBeUndefined();
    expect(scatterStep([], undefined, 'ArrowLeft')).toBeUndefined();
  });
});
