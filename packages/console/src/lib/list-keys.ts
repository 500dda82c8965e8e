/**
 * Moving through a list from the keyboard: j or ArrowDown to the next row, k or ArrowUp to the previous one, Home
 * and End to the ends (the rows are one tab stop; Enter opens the row, as its link or button does). Pure:
 * unit-tested in packages/console/test/list-keys.test.ts.
 */
export function listStep(count: number, current: number, key: string): number | undefined {
  if (count <= 0) return undefined;
  const at = Math.max(0, Math.min(count - 1, current));
  if (key === 'j' || key === 'ArrowDown') return Math.min(count - 1, at + 1);
  if (key === 'k' || key === 'ArrowUp') return Math.max(0, at - 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return undefined;
}
