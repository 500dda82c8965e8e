import { describe, expect, it } from '@jest/globals';
import { dragWindow, logTicks, MIN_DRAG_PX, scaleLog, timeTicks } from '../src/lib/scale';

describe('latency chart scales', () => {
  it('log scale and decade ticks', () => {
    const y = scaleLog(1, 1000, 100, 0);
    expect(y(1)).toBe(100);
    expect(y(1000)).toBe(0);
    expect(y(0)).toBeGreaterThan(100); // below the floor of 0.1 ms, drawn at it
    expect(logTicks(3, 450)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(5, 5)).toEqual([1, 10]);
  });

  it('time ticks fall on round instants within the window', () => {
    const from = Date.parse('2026-11-22T10:00:07.000Z');
    const ticks = timeTicks(from, from + 3_600_000, 6);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks.every((t) => t % 600_000 === 0 || t % 900_000 === 0)).toBe(true);
    expect(ticks[0]!).toBeGreaterThanOrEqual(from);
  });
});

describe('dragWindow', () => {
  const at = (x: number) => 1_000_000 + x * 1000; // 1 s a unit

  it('turns a drag into the window between, in either direction', () => {
    expect(dragWindow(10, 30, 0, 100, at)).toEqual({ from: 1_010_000, to: 1_030_000 });
    expect(dragWindow(30, 10, 0, 100, at)).toEqual({ from: 1_010_000, to: 1_030_000 });
  });

  it('clamps the drag to the plot', () => {
    expect(dragWindow(-50, 20, 5, 100, at)).toEqual({ from: 1_005_000, to: 1_020_000 });
    expect(dragWindow(90, 500, 0, 100, at)).toEqual({ from: 1_090_000, to: 1_100_000 });
  });

  it('leaves a click (a few pixels) alone', () => {
    expect(dragWindow(10, 10 + MIN_DRAG_PX - 1, 0, 100, at)).toBeUndefined();
    expect(dragWindow(150, 200, 0, 100, at)).toBeUndefined();
  });
});
