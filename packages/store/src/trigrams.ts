/**
 * Trigrams for the log search indexes of both adapters (docs/architecture.md, "Log search"): a text that contains
 * another contains each of its trigrams, so "holds all the trigrams of the text" narrows the candidates without
 * losing a match. Trigrams count code points (as SQLite's trigram tokenizer does), not UTF-16 units.
 */

/** The distinct trigrams of `text`, in order of first appearance; none under 3 characters. */
export function trigramsOf(text: string): string[] {
  const chars = Array.from(text);
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars[i]! + chars[i + 1]! + chars[i + 2]!);
  return [...grams];
}

/**
 * At most `max` of the distinct trigrams of `text` to look a text up by: all when few, else the first, the last
 * and evenly spaced ones between (a long text needs no more to be rare; each one more costs a lookup).
 */
export function searchTrigrams(text: string, max: number): string[] {
  const all = trigramsOf(text);
  if (all.length <= max) return all;
  return [...new Set(Array.from({ length: max }, (_, k) => all[Math.round((k * (all.length - 1)) / (max - 1))]!))];
}
