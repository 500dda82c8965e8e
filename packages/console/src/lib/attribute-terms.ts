// Attribute terms of the trace search (`attr` on GET /logs/project, docs/api.md "Attribute search"): `key=value`
// (the first `=` ends the key; the value is compared as text) or `key` alone (the key is present). The API takes at
// most 8, each at most 400 characters with a key of 1 or more: the console keeps to that, so a link it makes never
// answers 400.

export const MAX_TERMS = 8;
export const MAX_TERM_LENGTH = 400;

/**
 * A term as it is, or undefined when the API would refuse it (no key, too long). Never trimmed here: a value is
 * compared exactly, spaces included (`db.statement=SELECT 1\n`); the Attribute box trims what is typed.
 */
export function attributeTerm(text: string): string | undefined {
  if (text === '' || text.startsWith('=') || [...text].length > MAX_TERM_LENGTH) return undefined;
  return text;
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

/**
 * The term that finds an attribute's value: `key=value` for a string, number or boolean, else `key` alone. A span's
 * or log's `serviceName` is searched as `service.name` (its resource's, as the store indexes it).
 */
export function termOf(field: string, value: unknown): string | undefined {
  const key = field === 'serviceName' ? 'service.name' : field;
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    return attributeTerm(`${key}=${String(value)}`) ?? attributeTerm(key);
  }
  return attributeTerm(key);
}
