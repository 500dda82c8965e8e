import { describe, expect, it } from '@jest/globals';
import { listStep } from '../src/lib/list-keys';

describe('listStep', () => {
  it('moves with j/k and the arrows, stops at the ends, jumps with Home and End', () => {
    expect(listStep(5, 0, 'j')).toBe(1);
    expect(listStep(5, 0, 'ArrowDown')).toBe(1);
    expect(listStep(5, 4, 'j')).toBe(4);
    expect(listStep(5, 2, 'k')).toBe(1);
    expect(listStep(5, 0, 'ArrowUp')).toBe(0);
    expect(listStep(5, 2, 'Home')).toBe(0);
    expect(listStep(5, 2, 'End')).toBe(4);
  });

  it('keeps a position past the end inside the list, and ignores other keys and empty lists', () => {
    expect(listStep(3, 9, 'k')).toBe(1);
    expect(listStep(3, 1, 'x')).toBeUndefined();
    expect(listStep(0, 0, 'j')).toBeUndefined();
  });
});
