// Attribute terms of the trace search (`attr` on GET /logs/project, docs/api.md "Attribute search"): `key=value`
// (the first `=` ends the key; the value is compared as text) or `key` alone (the key is present). The API takes at
// most 8, each at most 400 characters with a key of 1 or more: the console keeps to that, so a link it makes never
// answers 400.

export const MAX_TERMS = 8;
export const MAX_TERM_LENGTH = 400;

/** A term as typed, trimmed; undefined when the API would refuse it (no key, too long). */
export function attributeTerm(text: string): string | undefined {
  const term = text.trim();
  if (term === '' || term.startsWith('=') || [...term].length > MAX_TERM_LENGTH) return undefined;
  return term;
}

/** The valid, distinct terms of a URL's `attr` params, in order, at most MAX_TERMS. */
export function attributeTerms(raw: readonly string[]): string[] {
  const out: string[] = [];
  for (const text of raw) {
    const term = attributeTerm(text);
    if (term !== undefined && !out.includes(term)) out.push(term);
  }
  return out.slice(0, MAX_TERMS);
}

/** The term that finds an attribute's value: `key=value` for a string, number or boolean, else `key` alone. */
export function termOf(key: string, value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    return attributeTerm(`${key}=${String(value)}`) ?? attributeTerm(key);
  }
  return attributeTerm(key);
}
