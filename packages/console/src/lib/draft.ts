/**
 * Text inputs whose trimmed text is applied to the hash after a pause in typing (the Logs page's message search,
 * the traces list's URL and minimum duration). Pure: unit-tested in packages/console/test/draft.test.ts.
 */

/**
 * What an input shows when the applied value (trimmed, '' for none) changes: the user's own text while it still
 * stands for that value, so a space typed before a pause is kept ("two " then "words" gives "two words"); the
 * applied value otherwise, when the hash changed elsewhere (back button, a link, Clear filters).
 */
export function syncDraft(draft: string, applied: string): string {
  return draft.trim() === applied ? draft : applied;
}
