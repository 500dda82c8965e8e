/**
 * The substring match of the reads' text filters (`TraceQuery.urlContains`, `LogQuery.messageContains`), the
 * same in every adapter: the text is literal (no wildcard, no pattern), ASCII letters are compared without
 * regard to case and every other character exactly. SQLite's built-in `lower()` folds ASCII letters only;
 * folding that same set everywhere keeps the adapters' answers identical.
 */

/** `text` with its ASCII capitals in lower case, every other character as it is. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** Whether `haystack` is a string that contains `needle`, by the rule above. */
export function containsText(haystack: unknown, needle: string): boolean {
  return typeof haystack === 'string' && asciiLower(haystack).includes(asciiLower(needle));
}
